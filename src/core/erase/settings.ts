// The administrator's erase settings: the ConfigMap `inv-erase-config` and the labeled
// exclusion ConfigMaps, in the controllers' own namespace. They are the only source of what a
// worker runs as (image, runtime socket, namespace, tolerations, resources, priority class) and
// of which nodes may be touched at all (node filter) and which images never are (exclusions).
// An ImageList or ImageJob may record them for display; the controllers never take them from it.
import { isNotFound, type KubeRest } from '../kube/rest.js';
import { CONFIG_KEY, CONFIG_MAP_NAME, ConfigError, parseConfig, type EraseConfig } from './config.js';
import { parseExclusionData } from './images.js';

/** The configuration in force, or a ConfigError naming the bad value. */
export async function loadConfig(rest: KubeRest, namespace: string): Promise<EraseConfig> {
  try {
    const cm = await rest.get<{ data?: Record<string, string> }>(
      `/api/v1/namespaces/${namespace}/configmaps/${CONFIG_MAP_NAME}`,
    );
    try {
      return parseConfig(cm.data?.[CONFIG_KEY]);
    } catch (e) {
      throw new ConfigError(`ConfigMap ${namespace}/${CONFIG_MAP_NAME}: ${(e as Error).message}`);
    }
  } catch (e) {
    if (isNotFound(e)) return parseConfig(undefined);
    throw e;
  }
}

/** Exclusion patterns merged from the ConfigMaps that carry the configured label, in name order. */
export async function loadExclusions(rest: KubeRest, namespace: string, cfg: EraseConfig): Promise<string[]> {
  const r = await rest.list<{ metadata: { name: string }; data?: Record<string, string> }>(
    `/api/v1/namespaces/${namespace}/configmaps`,
    { query: { labelSelector: cfg.exclusionLabel } },
  );
  const out = new Set<string>();
  for (const cm of r.items.sort((a, b) => (a.metadata.name < b.metadata.name ? -1 : 1))) {
    for (const p of parseExclusionData(`${namespace}/${cm.metadata.name}`, cm.data)) out.add(p);
  }
  return [...out];
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
    private readonly rest: KubeRest,
    private readonly namespace: string,
    private readonly ttlMs = 5000,
  ) {}

  /** `fresh`: read now (a job's plan must see the configuration the request was checked against). */
  async get(fresh = false): Promise<AdminSettings> {
    if (!fresh && this.cached && Date.now() - this.cached.at < this.ttlMs) return this.cached.value;
    const config = await loadConfig(this.rest, this.namespace);
    const exclusions = await loadExclusions(this.rest, this.namespace, config);
    this.cached = { at: Date.now(), value: { config, exclusions } };
    return this.cached.value;
  }
}
