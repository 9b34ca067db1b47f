// The fields of a worker Pod the ImageJob controller reads.
import type { KubeObject } from '../../apply-inventory/objects.js';

export interface PodLike extends KubeObject {
  spec?: { nodeName?: string };
  status?: {
    phase?: string;
    reason?: string;
    startTime?: string;
    containerStatuses?: {
      state?: {
        terminated?: { exitCode?: number; message?: string; reason?: string };
        waiting?: { reason?: string; message?: string };
      };
    }[];
  };
}
