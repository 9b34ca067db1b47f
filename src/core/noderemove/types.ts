// Shapes of `inv node-remove`: what the decision step produces and what the report carries.
import type { FreedSummary } from '../contract/freed-space.js';
import type { ScanFailureCounts } from '../contract/scan-failures.js';

import { removes, traitsOf, type Outcome } from '../contract/worker-summary.js';

export type { Outcome };

/** A parsed removal target. */
export type Target =
  | { kind: 'all'; input: string }
  | { kind: 'id'; input: string; id: string }
  /** 12-63 hex digits of an ID; `ref` is the name reading of a bare hex string, tried first. */
  | { kind: 'id-prefix'; input: string; prefix: string; ref?: string }
  /** `name@digest`, matched against repoDigests. */
  | { kind: 'digest'; input: string; ref: string }
  /** normalized `name:tag`, matched against normalized repoTags. */
  | { kind: 'tag'; input: string; ref: string }
  | { kind: 'invalid'; input: string; reason: string };

/** One row of the decision: a target and one image it matched (or none). */
export interface Decision {
  target: string;
  /** '' when the target matched no image or was invalid. */
  imageId: string;
  /** Every name of the image: tags, digest refs, then the ID. */
  aliases: string[];
  /** The image's size as the runtime lists it (ListImages), in bytes; 0 when unknown or no image. */
  size: number;
  /** `remove` means "remove unless the re-check finds it in use". */
  action: 'remove' | 'keep';
  /** For keep: why (`failed`: refused for safety, the reason in detail). */
  outcome: Exclude<Outcome, 'removed' | 'would-remove'> | 'remove';
  /** Human explanation for the table (the JSON only carries `error`). */
  detail: string;
  /** How long the node's record has seen the image unused (threshold and minimum-age runs). */
  unusedForMs?: number;
}

export interface Result {
  target: string;
  imageId: string;
  aliases: string[];
  /** Bytes, as the runtime listed the image (0 when there is no image). */
  size: number;
  outcome: Outcome;
  /** The error or refusal (failed) or the reason (invalid); '' otherwise. */
  error: string;
  /** Human explanation for the table; not part of the JSON report. */
  detail: string;
  /** Scan mode: what the scanner said of this image (removed ones are its `vulnerable`). */
  vuln?: VulnInfo;
  /** How long the node's record has seen the image unused (threshold and minimum-age runs). */
  unusedForMs?: number;
}

/** What a scanner said of one image (counts unknown when it sent only Eraser's plain list). */
export interface VulnInfo {
  status: 'vulnerable' | 'eol' | 'scan-failed';
  cveCount?: number;
  highestSeverity?: string;
  /** The first few CVE IDs (at most 5). */
  cves?: string[];
}

/** Scan mode's node-wide facts. */
export interface ScanReport {
  /** Candidates handed to the scanner. */
  candidates: number;
  /** Removed (would be, in a dry run) because the scanner named them. */
  vulnerable: number;
  /** Named, but kept by a keep rule. */
  kept: number;
  /** Sum of the CVE counts the scanner gave for the images above (unknown ones count 0). */
  cves: number;
  highestSeverity: string;
  /** From handing over the candidates to the scanner's answer. */
  ms: number;
  /** Why the scan failed (nothing was removed); absent when it answered. */
  failed?: string;
  /** Images on this node the scanner could not judge, by reason (inv's scanner only). */
  failures?: ScanFailureCounts;
}

export interface RuntimeInfo {
  name: string;
  version: string;
  apiVersion: string;
}

/** What the removed (or, in a dry run, would-be-removed) images take, each image counted once. */
export function bytesFreed(results: readonly Result[]): number {
  const seen = new Set<string>();
  let n = 0;
  for (const r of results) {
    if (!removes(r.outcome) || seen.has(r.imageId)) continue;
    seen.add(r.imageId);
    n += r.size;
  }
  return n;
}

/**
 * Outcomes counted once per image, whatever the number of targets that matched it; rows without
 * an image (not-present, invalid, a refused `*`) once per target.
 */
export function imageCounts(results: readonly Result[]): Partial<Record<Outcome, number>> {
  const c: Partial<Record<Outcome, number>> = {};
  const byImage = new Map<string, Outcome>();
  // Which outcome an image gets when several targets matched it: the lowest rank (worker-summary.ts).
  const rank = (o: Outcome) => traitsOf(o).rank;
  for (const r of results) {
    if (!r.imageId) c[r.outcome] = (c[r.outcome] ?? 0) + 1;
    else {
      const prev = byImage.get(r.imageId);
      if (prev === undefined || rank(r.outcome) < rank(prev)) byImage.set(r.imageId, r.outcome);
    }
  }
  for (const o of byImage.values()) c[o] = (c[o] ?? 0) + 1;
  return c;
}

/** The names people know an image by: its repo tags, else its repo digests (never the ID). */
export function imageNames(aliases: readonly string[], imageId: string): string[] {
  const named = aliases.filter((a) => a !== imageId && !/^sha256:[0-9a-f]+$/.test(a));
  const tags = named.filter((a) => !a.includes('@'));
  return tags.length ? tags : named;
}

export interface Report {
  node: string;
  runtime: RuntimeInfo;
  results: Result[];
  /** Things the operator should know that are not a result (also printed on stderr). */
  warnings?: string[];
  /** Scan mode only. */
  scan?: ScanReport;
  /** A threshold run: the image file system before and (estimated) after. */
  imageFs?: ImageFsReport;
  /**
   * A real run that removed images: the runtime's image file system usage [before, after] the
   * removals, or why it was not measured (contract/freed-space.ts).
   */
  freed?: FreedSummary;
}

/** What a threshold run measured (image-fs.ts) and decided. */
export interface ImageFsReport {
  /** Bytes the runtime's images used before the run. */
  used: number;
  capacity: number;
  available: number;
  mountPoint: string;
  highPercent: number;
  lowPercent: number;
  /** used minus the listed sizes of what went (would go, in a dry run). */
  usedAfter: number;
}
