// Loads cluster credentials the way kubectl does: an explicit --kubeconfig, else
// $KUBECONFIG, else ~/.kube/config, else the in-cluster ServiceAccount.
//
// client-node's loadFromDefault() falls back to an unauthenticated http://localhost:8080 when it
// finds nothing, so a user without any configuration got a TLS error about that made-up server.
// We walk the same sources ourselves and, when none applies, say what was tried.
//
// A file that cannot be used (empty, not YAML, unreadable, not a kubeconfig) is one line naming
// the file and the problem (KubeConfigFileError), never client-node's TypeError or parser dump.
import { KubeConfig } from '@kubernetes/client-node';
import fs from 'node:fs';
import yaml from 'js-yaml';
import os from 'node:os';
import path from 'node:path';
import {
  applyOverrides,
  hasOverrides,
  ImpersonatingKubeConfig,
  type ConnectionOverrides,
} from './connection.js';
import { impersonationOf, mergeFirstWins, readBounded, recordImpersonation } from './kubeconfig-file.js';

export interface KubeTarget {
  kubeconfig?: string;
  context?: string;
  /** kubectl's connection flags over the kubeconfig (connection.ts). */
  overrides?: ConnectionOverrides;
}

/** No cluster configured, or a context, user or cluster that is not there. */
export class KubeConfigError extends Error {}

/**
 * A kubeconfig file that cannot be used. Not a KubeConfigError: `inv version` reports "no cluster
 * configured" on its Server line, but a broken file is bad input and fails the command.
 */
export class KubeConfigFileError extends Error {}

/** Where the in-cluster configuration comes from (client-node reads the same paths). */
export const SERVICEACCOUNT_TOKEN = '/var/run/secrets/kubernetes.io/serviceaccount/token';

export function loadKubeConfig(target: KubeTarget = {}): KubeConfig {
  const kc = new KubeConfig();
  if (target.kubeconfig) {
    if (!fs.existsSync(target.kubeconfig)) {
      throw new KubeConfigError(`kubeconfig ${target.kubeconfig} does not exist (--kubeconfig)`);
    }
    loadFile(kc, target.kubeconfig);
  } else {
    // kubectl needs no kubeconfig at all when --server says where the cluster is.
    loadDefault(kc, !!target.overrides?.server);
  }
  const from = target.kubeconfig ?? (process.env.KUBECONFIG || undefined);
  const where = from ? `the kubeconfig (${from})` : 'the kubeconfig';
  if (target.context) {
    if (!kc.getContextObject(target.context)) {
      const known = kc.getContexts().map((c) => c.name);
      throw new KubeConfigError(
        `context "${target.context}" is not in ${where} (--context; known: ${known.join(', ') || 'none'})`,
      );
    }
    kc.setCurrentContext(target.context);
  }
  let out = kc;
  if (target.overrides && hasOverrides(target.overrides)) {
    const merged = applyOverrides(kc, target.overrides);
    if (merged.problem !== undefined) {
      throw new KubeConfigError(merged.problem.replace('the kubeconfig', where));
    }
    out = merged.kc;
  }
  out = withKubeconfigImpersonation(kc, out, target.overrides, where);
  const cluster = out.getCurrentCluster();
  if (!cluster || !cluster.server) {
    throw new KubeConfigError(
      `no cluster configured: ${where} has no current context with a cluster server${
        kc.getContexts().length ? ' (pick one with --context)' : ' (or give --server)'
      }`,
    );
  }
  return out;
}

/**
 * A user entry's `as-groups`/`as-uid` (which client-node drops) on the clients made from `out`,
 * when the flags give none: kubectl's flags replace the kubeconfig's fields they set, and leave
 * the others.
 */
function withKubeconfigImpersonation(
  kc: KubeConfig,
  out: KubeConfig,
  flags: ConnectionOverrides | undefined,
  where: string,
): KubeConfig {
  const user = out.getCurrentUser();
  const extra = impersonationOf(kc, user?.name);
  if (!extra) return out;
  const groups = flags?.asGroups?.length ? flags.asGroups : extra.groups;
  const uid = flags?.asUid ?? extra.uid;
  if (groups.length === 0 && !uid) return out;
  if (!user?.impersonateUser) {
    throw new KubeConfigError(
      `user "${user?.name}" in ${where} has as-groups or as-uid without as: groups or a UID are impersonated with a user`,
    );
  }
  const withHeaders = new ImpersonatingKubeConfig(groups, uid);
  withHeaders.loadFromOptions({
    clusters: out.getClusters(),
    users: out.getUsers(),
    contexts: out.getContexts(),
    currentContext: out.getCurrentContext(),
  });
  return withHeaders;
}

/**
 * One file into `kc` (merged when `kc` has one already), or a KubeConfigFileError naming the file:
 * client-node reads an empty file as `undefined` and fails on `.clusters`, and prints the YAML
 * parser's whole excerpt for a syntax error.
 */
export function loadFile(kc: KubeConfig, file: string): void {
  let text: string;
  try {
    text = readBounded(file);
  } catch (e) {
    const err = e as NodeJS.ErrnoException;
    const why =
      err.code === 'EACCES'
        ? 'permission denied'
        : err.code === 'EISDIR'
          ? 'it is a directory'
          : err.code === 'ENOENT'
            ? 'it does not exist'
            : err.code === 'ELOOP'
              ? 'too many symbolic links'
              : (err.message ?? String(e));
    throw new KubeConfigFileError(`kubeconfig ${file}: cannot read it: ${why}`);
  }
  if (text.trim() === '') throw new KubeConfigFileError(`kubeconfig ${file}: the file is empty`);
  let doc: unknown;
  try {
    doc = yaml.load(text); // the parser client-node reads it with
  } catch (e) {
    const err = e as Error & { reason?: string; mark?: { line: number; column: number } };
    const at = err.mark ? ` (line ${err.mark.line + 1}, column ${err.mark.column + 1})` : '';
    throw new KubeConfigFileError(`kubeconfig ${file}: not valid YAML: ${err.reason ?? 'syntax error'}${at}`);
  }
  if (doc === null || doc === undefined)
    throw new KubeConfigFileError(`kubeconfig ${file}: the file is empty`);
  if (typeof doc !== 'object' || Array.isArray(doc)) {
    throw new KubeConfigFileError(
      `kubeconfig ${file}: not a kubeconfig: the YAML is ${Array.isArray(doc) ? 'a list' : `a ${typeof doc}`}, not a mapping`,
    );
  }
  const one = new KubeConfig();
  try {
    one.loadFromString(text);
  } catch (e) {
    // client-node's own checks: "clusters[0].cluster.server is missing", ...
    throw new KubeConfigFileError(
      `kubeconfig ${file}: not a kubeconfig: ${String((e as Error).message).split('\n')[0]}`,
    );
  }
  const problem = recordImpersonation(kc, doc as Record<string, unknown>);
  if (problem !== undefined)
    throw new KubeConfigFileError(`kubeconfig ${file}: not a kubeconfig: ${problem}`);
  // Relative certificate and key paths are relative to the file, as loadFromFile makes them.
  one.makePathsAbsolute(path.dirname(file));
  mergeFirstWins(kc, one);
}

function loadDefault(kc: KubeConfig, serverGiven: boolean): void {
  const tried: string[] = ['--kubeconfig (not given)'];
  const env = process.env.KUBECONFIG;
  if (env) {
    const files = env.split(path.delimiter).filter(Boolean);
    const present = files.filter((f) => fs.existsSync(f));
    if (present.length === 0) {
      // kubectl stops here too: a set $KUBECONFIG replaces ~/.kube/config.
      throw new KubeConfigError(
        `no cluster configured: $KUBECONFIG names ${files.join(path.delimiter)}, which does not exist`,
      );
    }
    for (const f of present) loadFile(kc, f);
    return;
  }
  tried.push('$KUBECONFIG (not set)');
  const home = process.env.HOME || os.homedir();
  const file = path.join(home, '.kube', 'config');
  if (fs.existsSync(file)) {
    loadFile(kc, file);
    return;
  }
  tried.push(`~/.kube/config (${file} does not exist)`);
  if (process.env.KUBERNETES_SERVICE_HOST && fs.existsSync(SERVICEACCOUNT_TOKEN)) {
    kc.loadFromCluster();
    return;
  }
  tried.push(
    process.env.KUBERNETES_SERVICE_HOST
      ? `in-cluster (no ServiceAccount token at ${SERVICEACCOUNT_TOKEN})`
      : 'in-cluster (not in a Pod: KUBERNETES_SERVICE_HOST is not set)',
  );
  if (serverGiven) return;
  throw new KubeConfigError(`no cluster configured: tried ${tried.join(', ')}`);
}
