// Kubernetes object-name rules, checked before any request so a typo fails fast and clearly.

/** Returns why `name` is not a valid namespace name (a DNS-1123 label), or undefined. */
export function validateNamespaceName(name: string): string | undefined {
  if (name.length === 0) return 'must not be empty';
  if (name.length > 63) return 'must be at most 63 characters (DNS-1123 label)';
  if (!/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/.test(name)) {
    return "must consist of lowercase letters, digits and '-', and start and end with a letter or digit (DNS-1123 label)";
  }
  return undefined;
}
