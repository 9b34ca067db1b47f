// Scan mode's decisions, PURE: what node-remove hands the scanner (its `*` candidates, in
// Eraser's image-list shape), how it reads the answer (strictly, bounded), and how the answer
// narrows the candidates. The scanner only filters: it can never add a removal.
//
//   candidate named          -> removed (would be): the result carries what the scanner said
//   kept image named         -> vulnerable-kept, with the keep rule's reason
//   anything else named      -> ignored, with a warning
//   candidate not named      -> clean (kept), or scan-failed (kept) when the scanner says
//                               it could not judge it (inv's extension file, scan-failures.ts)
//   scan-failed / eol named  -> removed only when the policy says so (deleteFailedImages,
//                               deleteEOLImages); otherwise kept as scan-failed / clean
import { isObj } from '../../guards.js';
import { severityRank } from '../../contract/severity.js';
import type { ScanFailure } from '../../contract/scan-failures.js';
import {
  MAX_CVES,
  MAX_LIST_IMAGES,
  SCAN_STATUSES,
  type ContractImage,
  type ScanStatus,
} from '../../contract/scanner-contract.js';
import type { Decision, VulnInfo } from '../types.js';

/** One image in Eraser's list shape (api/unversioned Image). */
export type ScanImage = ContractImage;

export interface AnswerEntry {
  id: string;
  vuln: VulnInfo;
}

/** The most images an answer may name (the contract's list limit), and CVE IDs kept per image. */
export const MAX_ANSWER_IMAGES = MAX_LIST_IMAGES;

export class AnswerError extends Error {}

/**
 * Kept images the scanner also sees, so that a vulnerable image a container runs (or a workload
 * references, or a pin holds) is reported as vulnerable-kept rather than only as in use. They can
 * never go: narrow() condemns only decisions to remove. Excluded images and the sandbox image are
 * not sent: the administrator set them aside, and scanning them would only cost time.
 */
const REPORTED_KEEPS = new Set(['in-use', 'pinned', 'protected']);

/**
 * What node-remove hands the scanner, once each, in Eraser's shape: the `*` candidates
 * (decisions to remove) and the images kept by REPORTED_KEEPS.
 */
export function candidateList(decisions: readonly Decision[]): ScanImage[] {
  const seen = new Set<string>();
  const out: ScanImage[] = [];
  for (const d of decisions) {
    const sent = d.action === 'remove' || REPORTED_KEEPS.has(d.outcome);
    if (!sent || !d.imageId || seen.has(d.imageId)) continue;
    seen.add(d.imageId);
    const others = d.aliases.filter((a) => a !== d.imageId);
    // Eraser's collector sends RepoTags as names and the digest part of RepoDigests as digests.
    const names = others.filter((a) => !a.includes('@'));
    const digests = [
      ...new Set(others.filter((a) => a.includes('@')).map((a) => a.slice(a.indexOf('@') + 1))),
    ];
    out.push({
      image_id: d.imageId,
      ...(names.length ? { names } : {}),
      ...(digests.length ? { digests } : {}),
    });
  }
  return out;
}

const short = (v: unknown) => JSON.stringify(v)?.slice(0, 80) ?? String(v);

/**
 * The scanner's answer: a JSON array of `{image_id, names?, digests?, inv?}`. Anything else is
 * an AnswerError (the node then removes nothing). `inv` is our optional extension:
 * `{status, cveCount, highestSeverity, cves}`; Eraser's scanners do not send it.
 */
export function parseAnswer(text: string): AnswerEntry[] {
  if (text.trim() === '') throw new AnswerError('the scanner answered nothing (an empty scanErase)');
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (e) {
    throw new AnswerError(`the scanner's answer is not JSON (${(e as Error).message.slice(0, 80)})`);
  }
  if (!Array.isArray(doc))
    throw new AnswerError(`the scanner's answer is not a list of images: ${short(doc)}`);
  if (doc.length > MAX_ANSWER_IMAGES)
    throw new AnswerError(`the scanner named ${doc.length} images, more than ${MAX_ANSWER_IMAGES}`);
  return doc.map((e, i): AnswerEntry => {
    if (!isObj(e) || typeof e.image_id !== 'string' || e.image_id === '' || e.image_id.length > 512)
      throw new AnswerError(`entry ${i} of the scanner's answer has no image_id: ${short(e)}`);
    const ext = isObj(e.inv) ? e.inv : {};
    const status: ScanStatus = SCAN_STATUSES.includes(ext.status as ScanStatus)
      ? (ext.status as ScanStatus)
      : 'vulnerable';
    const vuln: VulnInfo = { status };
    if (typeof ext.cveCount === 'number' && Number.isSafeInteger(ext.cveCount) && ext.cveCount >= 0)
      vuln.cveCount = ext.cveCount;
    if (typeof ext.highestSeverity === 'string' && severityRank(ext.highestSeverity) > 0)
      vuln.highestSeverity = ext.highestSeverity.toUpperCase();
    if (Array.isArray(ext.cves)) {
      const ids = ext.cves
        .filter((c): c is string => typeof c === 'string' && c.length <= 64)
        .slice(0, MAX_CVES);
      if (ids.length) vuln.cves = ids;
    }
    return { id: e.image_id, vuln };
  });
}

export interface ScanPolicy {
  deleteFailedImages: boolean;
  deleteEOLImages: boolean;
}

export interface Narrowed {
  /** The decisions to execute: candidates the scan did not condemn are kept. */
  decisions: Decision[];
  /** What the scanner said, by image ID, for every image it named that is on the node. */
  vulns: Map<string, VulnInfo>;
  /** The candidates on this node the scanner could not judge (kept images' failures are warnings). */
  failures: ScanFailure[];
  warnings: string[];
}

/** Normalized ID for matching (`sha256:` prefix optional in an answer). */
const idKey = (id: string) => (id.includes(':') ? id : `sha256:${id}`).toLowerCase();

export function narrow(
  decisions: readonly Decision[],
  answer: readonly AnswerEntry[],
  policy: ScanPolicy,
  failed: readonly ScanFailure[] = [],
): Narrowed {
  const byId = new Map<string, Decision[]>();
  for (const d of decisions) {
    if (!d.imageId) continue;
    const k = idKey(d.imageId);
    byId.set(k, [...(byId.get(k) ?? []), d]);
  }
  const vulns = new Map<string, VulnInfo>();
  const condemned = new Set<string>();
  const unknown: string[] = [];
  for (const e of answer) {
    const k = idKey(e.id);
    const ds = byId.get(k);
    if (!ds) {
      unknown.push(e.id);
      continue;
    }
    vulns.set(ds[0]!.imageId, e.vuln);
    const goes =
      e.vuln.status === 'vulnerable' ||
      (e.vuln.status === 'scan-failed' && policy.deleteFailedImages) ||
      (e.vuln.status === 'eol' && policy.deleteEOLImages);
    if (goes) condemned.add(ds[0]!.imageId);
  }
  // The images the scanner could not judge (on this node, once each); those it did not also
  // name get the verdict "scan-failed", so that no report reads them as clean. A candidate's
  // failure is a failure of the run (its removal hung on the verdict); a kept image's is only
  // reported: it was sent so a vulnerable one is named, and stays whatever the scanner says.
  const failures: ScanFailure[] = [];
  let keptFailures = 0;
  const why = new Map<string, string>();
  for (const f of failed) {
    const ds = byId.get(idKey(f.image_id));
    if (!ds || why.has(ds[0]!.imageId)) continue;
    why.set(ds[0]!.imageId, f.message || f.reason);
    if (ds.some((d) => d.action === 'remove')) failures.push(f);
    else keptFailures++;
    if (!vulns.has(ds[0]!.imageId)) vulns.set(ds[0]!.imageId, { status: 'scan-failed' });
  }
  const out = decisions.map((d): Decision => {
    const v = d.imageId ? vulns.get(d.imageId) : undefined;
    if (d.action === 'remove') {
      if (condemned.has(d.imageId)) return d;
      const reason = why.get(d.imageId);
      return {
        ...d,
        action: 'keep',
        outcome: v?.status === 'scan-failed' ? 'scan-failed' : 'clean',
        detail:
          v?.status === 'scan-failed'
            ? // The scanner's own words when it gave them (inv's): they say what to fix.
              (reason ?? 'the scanner could not judge it (kept: deleteFailedImages is false)')
            : v
              ? 'end of life (kept: deleteEOLImages is false)'
              : 'the scanner found nothing',
      };
    }
    // Kept by a rule (in use, pinned, sandbox, excluded, protected): the scan changes nothing
    // but the report.
    if (v && condemned.has(d.imageId) && d.outcome !== 'failed' && d.outcome !== 'invalid')
      return { ...d, outcome: 'vulnerable-kept', detail: `${d.outcome}: ${d.detail}` };
    return d;
  });
  const warnings: string[] = [];
  if (keptFailures)
    warnings.push(
      `the scanner could not judge ${keptFailures} image(s) kept anyway (in use, pinned or protected): their rows say scan-failed, and nothing else changes`,
    );
  if (unknown.length)
    warnings.push(
      `the scanner named ${unknown.length} image(s) this node does not have, ignored: ${unknown
        .slice(0, 3)
        .join(', ')}${unknown.length > 3 ? ', …' : ''}`,
    );
  return { decisions: out, vulns, failures, warnings };
}
