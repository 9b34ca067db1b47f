// kubectl's connection flags (--server, --token, --as, --user, --cluster, ...) over a loaded
// kubeconfig, merged the way client-go's clientcmd merges ConfigOverrides: --cluster and --user
// pick entries by name in place of the current context's, and each flag given replaces that one
// field of the picked entry. Pure: the result is a new KubeConfig, and a problem is returned as a
// sentence, never thrown, so the loader words it with the file it came from.
//
// client-node sends Impersonate-User from a user's `as` but knows nothing of groups or a UID, so
// a KubeConfig that adds those headers carries them: every client made from it (KubeRest reads
// its credentials through applyToHTTPSOptions) impersonates the same way.
import { KubeConfig, type Cluster, type User } from '@kubernetes/client-node';
import type https from 'node:https';

export interface ConnectionOverrides {
  /** --server: the API server's address; a host:port without a scheme is https, as kubectl takes it. */
  server?: string;
  /** --certificate-authority: a CA file, in place of the cluster's CA (and of its insecure-skip-tls-verify). */
  certificateAuthority?: string;
  /** --insecure-skip-tls-verify. */
  insecureSkipTlsVerify?: boolean;
  /** --tls-server-name; a --server without it clears the kubeconfig's, as kubectl does. */
  tlsServerName?: string;
  /** --token: the bearer token, in place of the user's token, exec plugin or auth provider. */
  token?: string;
  /** --as, --as-group (repeated), --as-uid: impersonation. */
  as?: string;
  asGroups?: string[];
  asUid?: string;
  /** --user, --cluster: kubeconfig entries by name, in place of the current context's. */
  user?: string;
  cluster?: string;
}

/** Whether any flag would change the connection (none given: the kubeconfig as loaded). */
export function hasOverrides(o: ConnectionOverrides): boolean {
  return Object.values(o).some((v) => (Array.isArray(v) ? v.length > 0 : v !== undefined && v !== false));
}

/**
 * Problems with the flags on their own, before any kubeconfig is read: kubectl refuses groups or
 * a UID to impersonate without a user to impersonate (client-go's transport does).
 */
export function overrideProblems(o: ConnectionOverrides): string[] {
  const problems: string[] = [];
  if (!o.as && ((o.asGroups?.length ?? 0) > 0 || o.asUid)) {
    problems.push('--as-group and --as-uid need --as: groups or a UID are impersonated with a user');
  }
  if (o.server !== undefined) {
    const url = serverUrl(o.server);
    if (!url) problems.push(`--server ${JSON.stringify(o.server)}: not an http(s) address`);
  }
  return problems;
}

/** kubectl's reading of --server: https when no scheme is given; undefined when it is no http(s) URL. */
export function serverUrl(text: string): string | undefined {
  const withScheme = /^[a-z][a-z0-9+.-]*:\/\//i.test(text) ? text : `https://${text}`;
  try {
    const url = new URL(withScheme);
    if (url.protocol !== 'https:' && url.protocol !== 'http:') return undefined;
    return withScheme.replace(/\/$/, '');
  } catch {
    return undefined;
  }
}

/** A KubeConfig whose clients also send Impersonate-Group and Impersonate-Uid. */
export class ImpersonatingKubeConfig extends KubeConfig {
  constructor(
    readonly groups: readonly string[],
    readonly uid?: string,
  ) {
    super();
  }

  override async applyToHTTPSOptions(opts: https.RequestOptions): Promise<void> {
    await super.applyToHTTPSOptions(opts);
    const headers = (opts.headers ??= {}) as Record<string, string | string[]>;
    // An array: Node sends one Impersonate-Group header line per group, as client-go does.
    if (this.groups.length > 0) headers['Impersonate-Group'] = [...this.groups];
    if (this.uid) headers['Impersonate-Uid'] = this.uid;
  }
}

/** client-node's entries are readonly; the merge builds new ones field by field. */
type Writable<T> = { -readonly [K in keyof T]: T[K] };

const known = (names: string[]) => names.join(', ') || 'none';

/**
 * The kubeconfig with the flags applied to its current context (a new KubeConfig; `kc` is not
 * changed), or the problem: a --user or --cluster naming no entry. With no flag given, `kc` itself.
 */
export function applyOverrides(
  kc: KubeConfig,
  o: ConnectionOverrides,
): { kc: KubeConfig; problem?: undefined } | { problem: string } {
  if (!hasOverrides(o)) return { kc };
  const contextName = kc.getCurrentContext() ?? '';
  const context = kc.getContextObject(contextName);

  const clusterName = o.cluster ?? context?.cluster;
  const baseCluster = clusterName ? kc.getCluster(clusterName) : null;
  if (o.cluster && !baseCluster) {
    return {
      problem: `cluster "${o.cluster}" is not in the kubeconfig (--cluster; known: ${known(kc.getClusters().map((c) => c.name))})`,
    };
  }
  const userName = o.user ?? context?.user;
  const baseUser = userName ? kc.getUser(userName) : null;
  if (o.user && !baseUser) {
    return {
      problem: `user "${o.user}" is not in the kubeconfig (--user; known: ${known(kc.getUsers().map((u) => u.name))})`,
    };
  }

  // Entries made for the flags get names no kubeconfig entry has, so nothing else refers to them.
  const cluster = mergeCluster(baseCluster, o, clusterName ?? '(--server)');
  const user = mergeUser(baseUser, o, userName ?? '(flags)');
  const out = new ImpersonatingKubeConfig(o.as ? (o.asGroups ?? []) : [], o.as ? o.asUid : undefined);
  const others = <T extends { name: string }>(list: T[], name: string) => list.filter((x) => x.name !== name);
  out.loadFromOptions({
    clusters: cluster ? [...others(kc.getClusters(), cluster.name), cluster] : kc.getClusters(),
    users: [...others(kc.getUsers(), user.name), user],
    contexts: [
      ...others(kc.getContexts(), contextName),
      { ...(context ?? {}), name: contextName, cluster: cluster?.name ?? '', user: user.name },
    ],
    currentContext: contextName,
  });
  return { kc: out };
}

/** clientcmd's getCluster with overrides; null when there is neither an entry nor a --server. */
export function mergeCluster(base: Cluster | null, o: ConnectionOverrides, name: string): Cluster | null {
  if (!base && o.server === undefined) return null;
  const merged: Writable<Cluster> = { ...(base ?? { server: '', skipTLSVerify: false }), name };
  if (o.server !== undefined) merged.server = serverUrl(o.server) ?? o.server;
  // A CA or insecure-skip-tls-verify on the command line replaces all three of the entry's:
  // otherwise the kubeconfig's CA data would win over --certificate-authority.
  if (o.insecureSkipTlsVerify || o.certificateAuthority) {
    merged.skipTLSVerify = !!o.insecureSkipTlsVerify;
    merged.caFile = o.certificateAuthority;
    merged.caData = undefined;
  }
  // The kubeconfig's tls-server-name belongs to its server: another --server drops it.
  if (o.tlsServerName !== undefined || o.server !== undefined) merged.tlsServerName = o.tlsServerName;
  return merged;
}

/** clientcmd's getAuthInfo with overrides. */
export function mergeUser(base: User | null, o: ConnectionOverrides, name: string): User {
  const merged: Writable<User> = { ...(base ?? {}), name };
  if (o.token !== undefined) {
    // One Authorization header: the token replaces whatever else would write it (an exec
    // plugin is not run, a password is not sent); a client certificate stays, as in kubectl.
    merged.token = o.token;
    merged.exec = undefined;
    merged.authProvider = undefined;
    merged.username = undefined;
    merged.password = undefined;
  }
  if (o.as) merged.impersonateUser = o.as;
  return merged;
}
