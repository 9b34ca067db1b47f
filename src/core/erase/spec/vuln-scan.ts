// Scan mode's words (ImageList spec.scan): which scanner, by the name the administrator gave it
// in inv-erase-config's `scanners:`, and the requester's policy. PURE.
//
// A requester never names an image, a socket, a volume or a command here: what runs on the
// nodes comes only from the administrator's configuration (config/scanners.ts).
import { PRUNE_ALL } from './images.js';
import { SEVERITIES } from '../../contract/severity.js';

export const VULNERABILITY_TYPES = ['os', 'library'] as const;
/** The scanner `inv erase --vulnerable` picks when none is named. */
export const DEFAULT_SCANNER = 'trivy';

export interface ScanSpec {
  /** A key of the administrator's `scanners:`. */
  scanner: string;
  /** Which severities make an image vulnerable (Eraser's default: all but UNKNOWN). */
  severities?: string[];
  /** Vulnerabilities without a fixed version do not count. */
  ignoreUnfixed?: boolean;
  /** `os` and/or `library` packages. */
  vulnerabilityTypes?: string[];
  /** Remove images the scanner could not judge (default false: kept, unlike Eraser). */
  deleteFailedImages?: boolean;
  /** Remove images whose OS is end of life (default false). */
  deleteEOLImages?: boolean;
}

export const SCANNER_NAME = /^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/;

/** Problems of a spec.scan (besides the CRD's schema, which the API server applies first). */
export function scanProblems(scan: ScanSpec, images: readonly string[]): string[] {
  const out: string[] = [];
  if (typeof scan.scanner !== 'string' || !SCANNER_NAME.test(scan.scanner))
    out.push(
      `spec.scan.scanner: must be a scanner name (lowercase, digits, '-'), got ${JSON.stringify(scan.scanner)}`,
    );
  for (const s of scan.severities ?? [])
    if (!(SEVERITIES as readonly string[]).includes(s))
      out.push(
        `spec.scan.severities: unknown severity ${JSON.stringify(s)} (known: ${SEVERITIES.join(', ')})`,
      );
  for (const t of scan.vulnerabilityTypes ?? [])
    if (!(VULNERABILITY_TYPES as readonly string[]).includes(t))
      out.push(
        `spec.scan.vulnerabilityTypes: unknown type ${JSON.stringify(t)} (known: ${VULNERABILITY_TYPES.join(', ')})`,
      );
  // The scanner only narrows the * prune's candidates: there is nothing else it could narrow.
  if (images.length !== 1 || images[0] !== PRUNE_ALL)
    out.push(
      `spec.scan: a scan works on the unused images of each node: spec.images must be ["${PRUNE_ALL}"]`,
    );
  return out;
}

/** The severities in force: the requester's, or every known one but UNKNOWN. */
export const severitiesOf = (scan: ScanSpec): string[] =>
  scan.severities?.length ? [...scan.severities] : ['CRITICAL', 'HIGH', 'MEDIUM', 'LOW'];
