// Timestamps as Kubernetes writes them, written once.

/** RFC 3339 in UTC with whole seconds (`2026-12-04T10:00:00Z`): metav1.Time's wire form. */
export const rfc3339 = (d: Date): string => d.toISOString().replace(/\.\d{3}Z$/, 'Z');
