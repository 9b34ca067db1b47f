// A real registry that requires credentials (scripts/registry.mjs: the Distribution registry on
// 127.0.0.1, htpasswd), and the kubernetes.io/dockerconfigjson Secret an administrator makes for it.
import path from 'node:path';
import { repoRoot } from './paths.js';

export interface Registry {
  /** 127.0.0.1:PORT */
  host: string;
  user: string;
  password: string;
  logFile: string;
  stop(): Promise<void>;
}

export interface RegistryScript {
  start(opts?: { timeoutMs?: number }): Promise<Registry>;
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
