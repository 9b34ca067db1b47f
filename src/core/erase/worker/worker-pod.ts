// The fields of a worker Pod that inv reads, one shape for every reader: the recognisers here
// (placement-failure.ts) and the ImageJob controller (../imagejob/pod.ts, which adds the object's
// own fields). Declared once, so a field read in one place is read the same way in the other.
export interface WorkerPod {
  metadata?: { creationTimestamp?: string };
  spec?: { nodeName?: string };
  status?: {
    phase?: string;
    reason?: string;
    message?: string;
    startTime?: string;
    nominatedNodeName?: string;
    conditions?: {
      type?: string;
      status?: string;
      reason?: string;
      message?: string;
      lastTransitionTime?: string;
    }[];
    containerStatuses?: {
      name?: string;
      state?: {
        running?: unknown;
        terminated?: { exitCode?: number; message?: string; reason?: string; finishedAt?: string };
        waiting?: { reason?: string; message?: string };
      };
    }[];
  };
}
