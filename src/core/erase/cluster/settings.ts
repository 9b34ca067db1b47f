// The administrator's erase settings: the ConfigMap `inv-erase-config` and the labeled exclusion
// ConfigMaps, in the configuration namespace: the daemon's own (image-inventory-system), where
// the install grants nobody else anything. They are the only source of what a worker runs as
// (image, runtime socket, tolerations, resources, priority class), of which nodes may be touched
// at all (node filter), which images never are (exclusions) and what a requester may ask for
// (policy). An ImageList or ImageJob may record them for display; the controllers never take
// them from it. They were once read from the workers' namespace, where creating a ConfigMap is
// a much smaller right: a configuration found only there is refused, never read.
import { KubeRest } from '../../kube/rest.js';
import { CONFIG_KEY, CONFIG_MAP_NAME, ConfigError, parseConfig, type EraseConfig } from '../config/config.js';
import { parseExclusionData } from '../spec/images.js';
import { RestReader, type EraseReader } from './reader.js';

export { DEFAULT_CONFIG_NAMESPACE } from '../api/types.js';

/** The controllers read through their cache; `inv check` and tests straight from the server. */
const asReader = (source: KubeRest | EraseReader): EraseReader =>
  source instanceof KubeRest ? new RestReader(source) : source;

/** The kubectl commands that move a configuration from the workers' namespace. */
export const moveCommand = (from: string, to: string): string =>
  `kubectl create configmap ${CONFIG_MAP_NAME} -n ${to} --from-literal=${CONFIG_KEY}="$(kubectl get configmap ${CONFIG_MAP_NAME} -n ${from} -o jsonpath='{.data.config\\.yaml}')" --dry-run=client -o yaml | kubectl apply -f - && kubectl delete configmap ${CONFIG_MAP_NAME} -n ${from}`;

export const missingConfigMessage = (ns: string): string =>
  `the erase configuration ConfigMap ${ns}/${CONFIG_MAP_NAME} does not exist, and erase runs nothing without it: create it with \`inv install\` (it writes every default once)`;

/**
 * The configuration in force, or a ConfigError: missing (fail closed: never "defaults from
 * wherever"), found only in the workers' namespace (refused, with the command that moves it),
 * or a bad value (naming it).
 */
export async function loadConfig(
  source: KubeRest | EraseReader,
  namespace: string,
  workersNamespace?: string,
): Promise<EraseConfig> {
  const reader = asReader(source);
  const cm = await reader.configMap(namespace, CONFIG_MAP_NAME);
  if (!cm) {
    if (workersNamespace && workersNamespace !== namespace) {
      const old = await reader.configMap(workersNamespace, CONFIG_MAP_NAME);
      if (old)
        throw new ConfigError(
          `the erase configuration is read from ConfigMap ${namespace}/${CONFIG_MAP_NAME} now, not from the workers' namespace (anyone allowed to create ConfigMaps there could have written ${workersNamespace}/${CONFIG_MAP_NAME}); check its content, then move it: ${moveCommand(workersNamespace, namespace)}`,
        );
    }
    throw new ConfigError(missingConfigMessage(namespace));
  }
  try {
    return parseConfig(cm.data?.[CONFIG_KEY]);
  } catch (e) {
    throw new ConfigError(`ConfigMap ${namespace}/${CONFIG_MAP_NAME}: ${(e as Error).message}`);
  }
}

/**
 * Exclusion patterns merged from the ConfigMaps that carry the configured label in the
 * configuration namespace, in name order. Never from the workers' namespace: whoever may create
 * a ConfigMap there could exclude everything (`["*"]`) or, with invalid JSON, make every request
 * fail. Lists left there by earlier versions are ignored; `inv check` names them
 * (`strayExclusionLists`).
 */
export async function loadExclusions(
  source: KubeRest | EraseReader,
  namespace: string,
  cfg: EraseConfig,
): Promise<string[]> {
  const reader = asReader(source);
  const out = new Set<string>();
  const items = await reader.configMaps(namespace, cfg.exclusionLabel);
  for (const cm of [...items].sort((a, b) => (a.metadata.name < b.metadata.name ? -1 : 1))) {
    for (const p of parseExclusionData(`${namespace}/${cm.metadata.name}`, cm.data)) out.add(p);
  }
  return [...out];
}

/** Names of labelled exclusion lists in the workers' namespace, which are not read (above). */
export async function strayExclusionLists(
  source: KubeRest | EraseReader,
  workersNamespace: string,
  cfg: EraseConfig,
): Promise<string[]> {
  const items = await asReader(source).configMaps(workersNamespace, cfg.exclusionLabel);
  return items.map((cm) => cm.metadata.name).sort();
}

export interface AdminSettings {
  config: EraseConfig;
  exclusions: string[];
}

/**
 * The settings, read at most every `ttlMs` (reconciles of a busy job come many per second; an
 * administrator's change takes effect within the TTL for objects not created yet).
 */
export class AdminSettingsSource {
  private cached?: { at: number; value: AdminSettings };

  constructor(
    private readonly source: KubeRest | EraseReader,
    /** The configuration namespace. */
    private readonly namespace: string,
    private readonly ttlMs = 5000,
    /** Where a fresh read goes (default: `source`): the server, when `source` is a cache. */
    private readonly freshSource: KubeRest | EraseReader = source,
    /** The workers' namespace, to name a configuration left there (see loadConfig). */
    private readonly workersNamespace?: string,
  ) {}

  /**
   * `fresh`: read now, from the server (a job's plan must see the configuration the request was
   * checked against, not a cache that may lag it by an event).
   */
  async get(fresh = false): Promise<AdminSettings> {
    if (!fresh && this.cached && Date.now() - this.cached.at < this.ttlMs) return this.cached.value;
    const source = fresh ? this.freshSource : this.source;
    const config = await loadConfig(source, this.namespace, this.workersNamespace);
    const exclusions = await loadExclusions(source, this.namespace, config);
    this.cached = { at: Date.now(), value: { config, exclusions } };
    return this.cached.value;
  }
}
