// The daemon's declared source kinds as it reads them: the SourceKinds file in ConfigMap
// inv-source-kinds (deploy/source-kinds.yaml, the chart's sourceKinds.kinds). Read by `inv check`
// and by the in-process controllers of `inv erase --standalone`, whose `*` prune must protect
// what the daemon's would.
import * as resources from '../kube/resources.js';
import { isNotFound, type KubeRest } from '../kube/rest.js';
import { parseSourceKinds, SOURCE_KINDS_CONFIGMAP, SOURCE_KINDS_KEY } from './declared-kinds.js';
import { discoverKinds, type SkippedKind } from './discover-kinds.js';
import { BUILTIN, type SourceKinds, type SourceKindSpec } from './source-kinds.js';

const T = { timeoutMs: 10_000 };

/** The declared kinds of ConfigMap `ns/inv-source-kinds`; undefined when there is none. */
export async function readSourceKindsConfigMap(
  rest: KubeRest,
  ns: string,
): Promise<SourceKindSpec[] | undefined> {
  try {
    const cm = await resources.get<{ data?: Record<string, string> }>(
      rest,
      'ConfigMap',
      ns,
      SOURCE_KINDS_CONFIGMAP,
      T,
    );
    return parseSourceKinds(cm.data?.[SOURCE_KINDS_KEY] ?? '', `ConfigMap ${ns}/${SOURCE_KINDS_CONFIGMAP}`);
  } catch (e) {
    if (isNotFound(e)) return undefined;
    throw e;
  }
}

/**
 * The source kinds in force for a one-off process standing in for the daemon: those of `file`
 * (already parsed) when given, else those of the daemon's ConfigMap in `ns`, else the built-in
 * ones; each declared kind checked by discovery (`onSkipped` hears of those not served). Any
 * other failure is thrown: not knowing the declared kinds would leave their images unprotected.
 */
export async function kindsLikeTheDaemon(
  rest: KubeRest,
  ns: string,
  file: SourceKindSpec[] | undefined,
  onSkipped: (s: SkippedKind) => void,
): Promise<SourceKinds> {
  let declared: SourceKindSpec[] | undefined;
  try {
    declared = file ?? (await readSourceKindsConfigMap(rest, ns));
  } catch (e) {
    throw new Error(
      `cannot read the declared source kinds (ConfigMap ${ns}/${SOURCE_KINDS_CONFIGMAP}): ${(e as Error).message}; pass them with --source-kinds FILE`,
    );
  }
  if (!declared?.length) return BUILTIN;
  const d = await discoverKinds(rest, declared);
  d.skipped.forEach(onSkipped);
  return d.kinds;
}
