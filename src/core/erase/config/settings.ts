// The administrator's erase settings: the ConfigMap `inv-erase-config` and the labeled
// exclusion ConfigMaps, in the controllers' own namespace. They are the only source of what a
// worker runs as (image, runtime socket, namespace, tolerations, resources, priority class) and
// of which nodes may be touched at all (node filter) and which images never are (exclusions).
// An ImageList or ImageJob may record them for display; the controllers never take them from it.
import { KubeRest } from '../../kube/rest.js';
import { CONFIG_KEY, CONFIG_MAP_NAME, ConfigError, parseConfig, type EraseConfig } from './config.js';
import { parseExclusionData } from '../api/images.js';
import { RestReader, type EraseReader } from '../reader.js';

/** The controllers read through their cache; `inv check` and tests straight from the server. */
const asReader = (source: KubeRest | EraseReader): EraseReader =>
  source instanceof KubeRest ? new RestReader(source) : source;

/** The configuration in force, or a ConfigError naming the bad value. */
export async function loadConfig(source: KubeRest | EraseReader, namespace: string): Promise<EraseConfig> {
  const cm = await asReader(source).configMap(namespace, CONFIG_MAP_NAME);
  if (!cm) return parseConfig(undefined);
  try {
    return parseConfig(cm.data?.[CONFIG_KEY]);
  } catch (e) {
    throw new ConfigError(`ConfigMap ${namespace}/${CONFIG_MAP_NAME}: ${(e as Error).message}`);
  }
}

/** Exclusion patterns merged from the ConfigMaps that carry the configured label, in name order. */
export async function loadExclusions(
  source: KubeRest | EraseReader,
  namespace: string,
  cfg: EraseConfig,
): Promise<string[]> {
  const items = await asReader(source).configMaps(namespace, cfg.exclusionLabel);
  const out = new Set<string>();
  for (const cm of [...items].sort((a, b) => (a.metadata.name < b.metadata.name ? -1 : 1))) {
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
    private readonly source: KubeRest | EraseReader,
    private readonly namespace: string,
    private readonly ttlMs = 5000,
    /** Where a fresh read goes (default: `source`): the server, when `source` is a cache. */
    private readonly freshSource: KubeRest | EraseReader = source,
  ) {}

  /**
   * `fresh`: read now, from the server (a job's plan must see the configuration the request was
   * checked against, not a cache that may lag it by an event).
   */
  async get(fresh = false): Promise<AdminSettings> {
    if (!fresh && this.cached && Date.now() - this.cached.at < this.ttlMs) return this.cached.value;
    const source = fresh ? this.freshSource : this.source;
    const config = await loadConfig(source, this.namespace);
    const exclusions = await loadExclusions(source, this.namespace, config);
    this.cached = { at: Date.now(), value: { config, exclusions } };
    return this.cached.value;
  }
}
