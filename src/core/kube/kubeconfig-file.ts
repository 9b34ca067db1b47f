// What client-node's loadFromFile/mergeConfig get wrong for kubectl's users, done our way:
//
// - a bounded read: a kubeconfig is a few KiB; a path to a device or an endless pipe must give an
//   error, not fill the memory (process substitution, `--kubeconfig <(...)`, still works);
// - kubectl's merge of several $KUBECONFIG files: the first file to set a value wins (an entry's
//   name, the current-context), where client-node takes the last current-context and throws on a
//   name defined twice;
// - a user entry's `as-groups` and `as-uid`, which client-node drops when it parses the file (it
//   keeps `as` only), so a kubeconfig that impersonates a group would silently not.
import type { KubeConfig } from '@kubernetes/client-node';
import fs from 'node:fs';

/** Far above any real kubeconfig (kind's is about 5 KiB; one with 100 clusters about 500 KiB). */
export const KUBECONFIG_MAX_BYTES = 16 * 1024 * 1024;

/** The text of `file`, or an Error whose message says why (the caller names the file). */
export function readBounded(file: string, limit = KUBECONFIG_MAX_BYTES): string {
  const fd = fs.openSync(file, 'r');
  try {
    const chunks: Buffer[] = [];
    let total = 0;
    const buf = Buffer.alloc(64 * 1024);
    for (;;) {
      const n = fs.readSync(fd, buf, 0, buf.length, null);
      if (n === 0) break;
      total += n;
      if (total > limit)
        throw new Error(`larger than ${limit / (1024 * 1024)} MiB, too large for a kubeconfig`);
      chunks.push(Buffer.from(buf.subarray(0, n)));
    }
    return Buffer.concat(chunks).toString('utf8');
  } finally {
    fs.closeSync(fd);
  }
}

/** Impersonation a kubeconfig user entry asks for beyond `as`. */
export interface ExtraImpersonation {
  groups: string[];
  uid?: string;
}

const extras = new WeakMap<KubeConfig, Map<string, ExtraImpersonation>>();

/**
 * Records the `as-groups`/`as-uid` of the user entries of a parsed kubeconfig document for `kc`;
 * a name already recorded (from an earlier file) keeps its value, as kubectl's merge does.
 * Returns a problem when an entry is malformed.
 */
export function recordImpersonation(kc: KubeConfig, doc: Record<string, unknown>): string | undefined {
  const users = Array.isArray(doc.users) ? (doc.users as unknown[]) : [];
  const map = extras.get(kc) ?? new Map<string, ExtraImpersonation>();
  for (const entry of users) {
    const e = entry as { name?: unknown; user?: Record<string, unknown> } | null;
    if (!e || typeof e.name !== 'string' || !e.user || map.has(e.name)) continue;
    const groups = e.user['as-groups'];
    const uid = e.user['as-uid'];
    if (groups === undefined && uid === undefined) continue;
    if (groups !== undefined && (!Array.isArray(groups) || groups.some((g) => typeof g !== 'string')))
      return `user "${e.name}": as-groups is not a list of strings`;
    if (uid !== undefined && typeof uid !== 'string') return `user "${e.name}": as-uid is not a string`;
    map.set(e.name, { groups: (groups as string[] | undefined) ?? [], uid: uid as string | undefined });
  }
  extras.set(kc, map);
  return undefined;
}

/** The recorded extras of the user entry `name` of `kc`, if any. */
export function impersonationOf(kc: KubeConfig, name: string | undefined): ExtraImpersonation | undefined {
  return name === undefined ? undefined : extras.get(kc)?.get(name);
}

/** Carries the recorded extras from `from` to `to` (a KubeConfig rebuilt from it). */
export function copyImpersonation(from: KubeConfig, to: KubeConfig): void {
  const map = extras.get(from);
  if (map) extras.set(to, map);
}

/**
 * Merges `one` into `kc` the way kubectl merges its $KUBECONFIG files: entries whose name `kc`
 * already has are skipped (the first file wins), and `kc`'s current-context is kept when set.
 */
export function mergeFirstWins(kc: KubeConfig, one: KubeConfig): void {
  const add = <T extends { name: string }>(mine: T[], theirs: T[]) => [
    ...mine,
    ...theirs.filter((t) => !mine.some((m) => m.name === t.name)),
  ];
  kc.loadFromOptions({
    clusters: add(kc.getClusters(), one.getClusters()),
    users: add(kc.getUsers(), one.getUsers()),
    contexts: add(kc.getContexts(), one.getContexts()),
    currentContext: kc.getCurrentContext() || one.getCurrentContext(),
  });
}
