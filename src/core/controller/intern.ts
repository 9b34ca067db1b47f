// Strings repeated across many cached objects (namespaces, owner kinds, image refs): JSON.parse
// gives every object its own copy; interning keeps one. Bounded by what the cluster contains.
const interned = new Map<string, string>();
export function intern(s: string): string {
  const have = interned.get(s);
  if (have !== undefined) return have;
  if (interned.size > 200_000) interned.clear();
  interned.set(s, s);
  return s;
}
