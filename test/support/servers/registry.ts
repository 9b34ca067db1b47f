// A real registry that requires credentials (scripts/registry.mjs: the Distribution registry on
// 127.0.0.1, htpasswd), and the kubernetes.io/dockerconfigjson Secret an administrator makes for it.
import path from 'node:path';
import { repoRoot } from '../paths.js';

export interface Registry {
  /** 127.0.0.1:PORT */
  host: string;
  user: string;
  password: string;
  logFile: string;
  /** With tls: the certificate of the CA that signed the registry's (a PEM file). */
  caFile?: string;
  stop(): Promise<void>;
}

/** Distribution's token auth: Bearer tokens from `realm`, signed by a key rootCertBundle vouches for. */
export interface RegistryTokenAuth {
  realm: string;
  service: string;
  issuer: string;
  rootCertBundle: string;
}

export interface RegistryScript {
  /** tls: HTTPS with a CA of its own (caFile); token: Bearer tokens instead of htpasswd (no user). */
  start(opts?: { timeoutMs?: number; tls?: boolean; token?: RegistryTokenAuth }): Promise<Registry>;
  /** ctr images push from a containerd's k8s.io namespace, over plain HTTP. */
  push(opts: {
    ctr: string;
    address: string;
    local: string;
    remote: string;
    user: string;
    password: string;
    timeoutMs?: number;
  }): void;
}

export const registryScript = (): Promise<RegistryScript> =>
  import(path.join(repoRoot, 'scripts', 'registry.mjs')) as Promise<RegistryScript>;

/** The ctr that matches the runtime of the containerd in `criDir`. */
export async function ctrFor(criDir: string): Promise<string> {
  const cri = (await import(path.join(repoRoot, 'scripts', 'cri.mjs'))) as { ctrFor(d: string): string };
  return cri.ctrFor(criDir);
}

/** A kubernetes.io/dockerconfigjson Secret for `host` (what `kubectl create secret docker-registry` makes). */
export function pullSecret(name: string, host: string, user: string, password: string) {
  const auth = Buffer.from(`${user}:${password}`).toString('base64');
  const config = { auths: { [host]: { username: user, password, auth } } };
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name },
    type: 'kubernetes.io/dockerconfigjson',
    data: { '.dockerconfigjson': Buffer.from(JSON.stringify(config)).toString('base64') },
  };
}
