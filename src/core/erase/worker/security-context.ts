// The security context of the containers that open the node's runtime socket (the worker and
// the scanner): root, because the socket is root-owned, and nothing more.
/** Root to open the runtime socket (root-owned); nothing else. The worker's and the scanner's. */
export const SOCKET_CLIENT_SECURITY_CONTEXT = {
  runAsUser: 0,
  allowPrivilegeEscalation: false,
  privileged: false,
  readOnlyRootFilesystem: true,
  capabilities: { drop: ['ALL'] },
  seccompProfile: { type: 'RuntimeDefault' },
} as const;
