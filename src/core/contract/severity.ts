// The severity words a scanner's answer and the worker's summary use (Trivy's, as Eraser's
// scanners name them), ranked: what spec.scan.severities accepts (erase/spec/vuln-scan.ts) and how
// the worker picks a node's highest (noderemove/vuln-scan/). PURE.

export const SEVERITIES = ['CRITICAL', 'HIGH', 'MEDIUM', 'LOW', 'UNKNOWN'] as const;
export type Severity = (typeof SEVERITIES)[number];

/** Higher is worse; unknown words rank lowest. */
export const severityRank = (s: string | undefined): number => {
  const i = SEVERITIES.indexOf((s ?? '').toUpperCase() as Severity);
  return i < 0 ? -1 : SEVERITIES.length - i;
};
