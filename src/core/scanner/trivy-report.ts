// The verdict on one image from Trivy's JSON report (`--format=json`: Metadata.OS.EOSL and
// Results[].Vulnerabilities[]), decided as Eraser's Trivy scanner decides it: any reported
// vulnerability makes the image non-compliant (Trivy has already applied the severity, unfixed
// and status filters), and an end-of-life OS does when deleteEOLImages is on. inv also counts
// the distinct CVEs and names the highest severity and the first few ids, for the report. Pure.
import { MAX_CVES, type InvScanExtension } from '../contract/scanner-contract.js';
import { SEVERITIES } from './trivy-config.js';

export type Verdict = { status: 'ok' } | (InvScanExtension & { status: 'vulnerable' | 'eol' });

interface TrivyVulnerability {
  VulnerabilityID?: unknown;
  Severity?: unknown;
}

const rank = (s: string): number => {
  const i = (SEVERITIES as readonly string[]).indexOf(s);
  return i < 0 ? SEVERITIES.length : i;
};

/** Throws when the text is not a Trivy report (that image then counts as failed to scan). */
export function judgeReport(text: string, deleteEOLImages: boolean): Verdict {
  let report: unknown;
  try {
    report = JSON.parse(text);
  } catch (e) {
    throw new Error(`Trivy's output is not JSON: ${(e as Error).message}`);
  }
  if (!report || typeof report !== 'object' || Array.isArray(report)) {
    throw new Error("Trivy's output is not a report object");
  }
  const r = report as { Metadata?: { OS?: { EOSL?: unknown } }; Results?: unknown };
  if (r.Results !== undefined && r.Results !== null && !Array.isArray(r.Results)) {
    throw new Error("Trivy's report has Results that are not a list");
  }
  const severityOf = new Map<string, string>();
  for (const result of (r.Results as { Vulnerabilities?: unknown }[] | undefined) ?? []) {
    const vulns = result?.Vulnerabilities;
    if (vulns === undefined || vulns === null) continue;
    if (!Array.isArray(vulns)) throw new Error("Trivy's report has Vulnerabilities that are not a list");
    for (const v of vulns as TrivyVulnerability[]) {
      const id = typeof v?.VulnerabilityID === 'string' ? v.VulnerabilityID : '(no id)';
      const sev = typeof v?.Severity === 'string' ? v.Severity.toUpperCase() : 'UNKNOWN';
      const known = severityOf.get(id);
      if (known === undefined || rank(sev) < rank(known)) severityOf.set(id, sev);
    }
  }
  if (severityOf.size > 0) {
    const ordered = [...severityOf].sort(
      ([a, sa], [b, sb]) => rank(sa) - rank(sb) || (a < b ? -1 : a > b ? 1 : 0),
    );
    return {
      status: 'vulnerable',
      cveCount: severityOf.size,
      highestSeverity: ordered[0]![1],
      cves: ordered.slice(0, MAX_CVES).map(([id]) => id),
    };
  }
  if (deleteEOLImages && r.Metadata?.OS?.EOSL === true) return { status: 'eol', cveCount: 0 };
  return { status: 'ok' };
}
