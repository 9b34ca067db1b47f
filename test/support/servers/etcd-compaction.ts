// Compacting the embedded etcd of a private test API server (fresh-apiserver.ts), the way
// kube-apiserver's own compactor does every 5 minutes: write the revision to `compact_rev_key`
// (which every API server watches, so its watch cache drops older snapshots), then compact. A
// continue token of an older revision then gets the real 410 Expired, with the token that
// resumes at the next key. etcd's client port is the testcluster process's only loopback
// listener that answers etcd's JSON gateway (/v3/kv/range); its peer port and the API server's
// TLS port do not.
import fs from 'node:fs';
import path from 'node:path';

const b64 = (s: string) => Buffer.from(s).toString('base64');

/** Loopback TCP ports the process listens on (from /proc: its socket inodes in /proc/net/tcp). */
function listeningPorts(pid: number): number[] {
  const inodes = new Set<string>();
  for (const fd of fs.readdirSync(`/proc/${pid}/fd`)) {
    try {
      const m = /^socket:\[(\d+)\]$/.exec(fs.readlinkSync(`/proc/${pid}/fd/${fd}`));
      if (m) inodes.add(m[1]!);
    } catch {
      // closed meanwhile
    }
  }
  const ports: number[] = [];
  for (const line of fs.readFileSync(`/proc/${pid}/net/tcp`, 'utf8').split('\n').slice(1)) {
    const f = line.trim().split(/\s+/);
    // local_address, state 0A = LISTEN, inode
    if (f.length > 9 && f[3] === '0A' && inodes.has(f[9]!)) ports.push(parseInt(f[1]!.split(':')[1]!, 16));
  }
  return ports;
}

async function post<T>(url: string, body: unknown): Promise<T> {
  const r = await fetch(url, { method: 'POST', body: JSON.stringify(body) });
  if (!r.ok) throw new Error(`${url}: ${r.status} ${await r.text()}`);
  return (await r.json()) as T;
}

export interface Etcd {
  url: string;
  /** Compacts at the current revision, as the API server's compactor would; returns it. */
  compactNow(): Promise<number>;
}

/** The etcd of the test API server whose kubeconfig is `kubeconfig` (its folder holds `pid`). */
export async function etcdOf(kubeconfig: string): Promise<Etcd> {
  const pid = Number(fs.readFileSync(path.join(path.dirname(kubeconfig), 'pid'), 'utf8'));
  let url: string | undefined;
  for (const port of listeningPorts(pid)) {
    try {
      await post(`http://127.0.0.1:${port}/v3/kv/range`, { key: b64('compact_rev_key') });
      url = `http://127.0.0.1:${port}`;
      break;
    } catch {
      // not etcd's client port
    }
  }
  if (!url) throw new Error(`no etcd client port among process ${pid}'s listeners`);
  const base = url;
  return {
    url: base,
    async compactNow() {
      type Put = { header: { revision: string } };
      const now = Number(
        (await post<Put>(`${base}/v3/kv/put`, { key: b64('compact_rev_key'), value: b64('0') })).header
          .revision,
      );
      await post(`${base}/v3/kv/put`, { key: b64('compact_rev_key'), value: b64(String(now)) });
      await post(`${base}/v3/kv/compaction`, { revision: String(now), physical: true });
      return now;
    },
  };
}
