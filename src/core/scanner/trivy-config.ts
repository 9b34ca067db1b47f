// The Trivy scanner's settings, read the way Eraser's Trivy scanner reads them
// (pkg/scanners/trivy/helpers.go): the --config file is an EraserConfig whose
// components.scanner.config is a YAML *string* holding the scanner's own settings. The keys are
// Eraser's (cacheDir, dbRepo, deleteFailedImages, deleteEOLImages, vulnerabilities, timeout),
// plus inv's own for one DB download per cluster (server, skipDBUpdate). Stricter than Eraser:
// an unknown key or a wrong type is an error naming it (Eraser ignores them), and what cannot be
// judged is kept (deleteFailedImages and deleteEOLImages default to false; Eraser's to true).
// Pure: text in, settings out.
import { isObj } from '../guards.js';
import { parse } from 'yaml';
import { parseDurationMs } from '../duration.js';
import { parseSize } from '../size.js';

export const SEVERITIES = ['CRITICAL', 'HIGH', 'MEDIUM', 'LOW', 'UNKNOWN'] as const;
const VULN_TYPES = ['os', 'library'];
const SCANNERS = ['vuln', 'misconfig', 'secret', 'license'];
const STATUSES = [
  'unknown',
  'not_affected',
  'affected',
  'fixed',
  'under_investigation',
  'will_not_fix',
  'fix_deferred',
  'end_of_life',
];

export interface TrivyScannerConfig {
  /** Trivy's --cache-dir: where its DB lives (and, without a server, where it is downloaded). */
  cacheDir: string;
  /** Trivy's --db-repository (an OCI reference; a mirror for air-gapped clusters). */
  dbRepo: string;
  /** Use the DB already in cacheDir, never download one (air-gapped, or a DB put there). */
  skipDBUpdate: boolean;
  /** Trivy client/server mode: the server holds the one DB of the cluster; nodes download none. */
  server?: string;
  deleteFailedImages: boolean;
  deleteEOLImages: boolean;
  ignoreUnfixed: boolean;
  types: string[];
  securityChecks: string[];
  severities: string[];
  ignoredStatuses: string[];
  totalMs: number;
  perImageMs: number;
  /** CRI-O: the most bytes of one image (its layers, uncompressed) served to Trivy. */
  maxImageBytes: number;
}

export const DEFAULT_TRIVY_CONFIG: Readonly<TrivyScannerConfig> = Object.freeze({
  cacheDir: '/var/lib/trivy',
  dbRepo: 'ghcr.io/aquasecurity/trivy-db',
  skipDBUpdate: false,
  deleteFailedImages: false,
  deleteEOLImages: false,
  ignoreUnfixed: false,
  types: ['os', 'library'],
  securityChecks: ['vuln'],
  severities: ['CRITICAL', 'HIGH', 'MEDIUM', 'LOW'],
  ignoredStatuses: [],
  totalMs: 30 * 60_000,
  perImageMs: 5 * 60_000,
  maxImageBytes: 20 * 1024 ** 3,
});

type Obj = Record<string, unknown>;

function only(o: Obj, where: string, keys: readonly string[]): void {
  for (const k of Object.keys(o)) {
    if (!keys.includes(k))
      throw new Error(`${where}: unknown key ${JSON.stringify(k)} (known: ${keys.join(', ')})`);
  }
}

function str(o: Obj, k: string, where: string): string | undefined {
  const v = o[k];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'string') throw new Error(`${where}.${k} must be a string`);
  return v;
}

function bool(o: Obj, k: string, where: string): boolean | undefined {
  const v = o[k];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'boolean') throw new Error(`${where}.${k} must be true or false`);
  return v;
}

function list(
  o: Obj,
  k: string,
  where: string,
  allowed: readonly string[],
  upper = false,
): string[] | undefined {
  const v = o[k];
  if (v === undefined || v === null) return undefined;
  if (!Array.isArray(v) || !v.every((s) => typeof s === 'string')) {
    throw new Error(`${where}.${k} must be a list of strings`);
  }
  return v.map((s: string) => {
    const n = upper ? s.toUpperCase() : s.toLowerCase();
    if (!allowed.includes(n))
      throw new Error(`${where}.${k}: ${JSON.stringify(s)} is not one of ${allowed.join(', ')}`);
    return n;
  });
}

function duration(o: Obj, k: string, where: string): number | undefined {
  const v = str(o, k, where);
  if (v === undefined) return undefined;
  const ms = parseDurationMs(v, `${where}.${k}`);
  if (ms <= 0) throw new Error(`${where}.${k} must be more than 0`);
  return ms;
}

/** The scanner's own settings (the YAML string), over the defaults. */
export function parseTrivySettings(yamlText: string): TrivyScannerConfig {
  const where = 'components.scanner.config';
  let doc: unknown;
  try {
    doc = parse(yamlText, { maxAliasCount: 0 });
  } catch (e) {
    throw new Error(`${where} is not YAML: ${(e as Error).message.split('\n')[0]}`);
  }
  if (doc === null || doc === undefined) return { ...DEFAULT_TRIVY_CONFIG };
  if (!isObj(doc)) throw new Error(`${where} must be a mapping`);
  only(doc, where, [
    'cacheDir',
    'dbRepo',
    'skipDBUpdate',
    'server',
    'deleteFailedImages',
    'deleteEOLImages',
    'vulnerabilities',
    'timeout',
    'runtime',
    'maxImageSize',
  ]);
  const c: TrivyScannerConfig = { ...DEFAULT_TRIVY_CONFIG };
  c.cacheDir = str(doc, 'cacheDir', where) || c.cacheDir;
  c.dbRepo = str(doc, 'dbRepo', where) || c.dbRepo;
  c.skipDBUpdate = bool(doc, 'skipDBUpdate', where) ?? c.skipDBUpdate;
  const server = str(doc, 'server', where);
  if (server) {
    if (!/^https?:\/\/[^\s/]+/.test(server))
      throw new Error(`${where}.server must be an http(s) URL, got ${server}`);
    c.server = server;
  }
  c.deleteFailedImages = bool(doc, 'deleteFailedImages', where) ?? c.deleteFailedImages;
  c.deleteEOLImages = bool(doc, 'deleteEOLImages', where) ?? c.deleteEOLImages;
  const v = doc.vulnerabilities;
  if (v !== undefined && v !== null) {
    const w = `${where}.vulnerabilities`;
    if (!isObj(v)) throw new Error(`${w} must be a mapping`);
    only(v, w, ['ignoreUnfixed', 'types', 'securityChecks', 'severities', 'ignoredStatuses']);
    c.ignoreUnfixed = bool(v, 'ignoreUnfixed', w) ?? c.ignoreUnfixed;
    c.types = list(v, 'types', w, VULN_TYPES) ?? c.types;
    c.securityChecks = list(v, 'securityChecks', w, SCANNERS) ?? c.securityChecks;
    c.severities = list(v, 'severities', w, SEVERITIES, true) ?? c.severities;
    c.ignoredStatuses = list(v, 'ignoredStatuses', w, STATUSES) ?? c.ignoredStatuses;
  }
  const t = doc.timeout;
  if (t !== undefined && t !== null) {
    const w = `${where}.timeout`;
    if (!isObj(t)) throw new Error(`${w} must be a mapping`);
    only(t, w, ['total', 'perImage']);
    c.totalMs = duration(t, 'total', w) ?? c.totalMs;
    c.perImageMs = duration(t, 'perImage', w) ?? c.perImageMs;
  }
  const size = doc.maxImageSize;
  if (size !== undefined && size !== null) {
    const r = parseSize(String(size));
    if (!r.ok) throw new Error(`${where}.maxImageSize: ${r.reason}`);
    c.maxImageBytes = r.bytes;
  }
  // runtime: Eraser's scanner ignores its address too (the socket is always CRI_SOCKET_IN_SCANNER) and takes
  // the runtime's name from ERASER_RUNTIME_NAME.
  return c;
}

/** The whole --config file (an EraserConfig): its components.scanner.config string, parsed. */
export function parseScannerConfigFile(text: string): TrivyScannerConfig {
  let doc: unknown;
  try {
    doc = parse(text, { maxAliasCount: 0 });
  } catch (e) {
    throw new Error(`the configuration is not YAML: ${(e as Error).message.split('\n')[0]}`);
  }
  if (doc === null || doc === undefined) return { ...DEFAULT_TRIVY_CONFIG };
  if (!isObj(doc)) throw new Error('the configuration must be a mapping (an EraserConfig)');
  const components = doc.components;
  if (components !== undefined && !isObj(components)) throw new Error('components must be a mapping');
  const scanner = components?.scanner;
  if (scanner !== undefined && !isObj(scanner)) throw new Error('components.scanner must be a mapping');
  const inner = scanner?.config;
  if (inner === undefined || inner === null) return { ...DEFAULT_TRIVY_CONFIG };
  if (typeof inner !== 'string') {
    throw new Error('components.scanner.config must be a YAML string (config: |), as Eraser reads it');
  }
  return parseTrivySettings(inner);
}
