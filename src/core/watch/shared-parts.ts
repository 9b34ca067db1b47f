// One frozen copy of the parts that many cached objects hold alike. The Pods of one ReplicaSet (or
// Job, or StatefulSet) have the same containers and the same owner reference; stripped, each Pod
// still held its own copies of both, which were most of its size. Shared, a cached Pod costs its
// name, its UID and a few pointers: 266 bytes instead of 688 in a 150,000-Pod model (measured with
// V8's heap after a full GC), some 60 MB at Kubernetes' envelope.
//
// Frozen, because a part shared by thousands of Pods must never change under one of them: the
// cache is read-only to its readers, and a write would throw (ES modules run in strict mode) instead
// of silently changing every Pod that shares it.
import type { StrippedOwnerReference, StrippedPodSpec } from '../inventory/strip.js';

// Bounded as intern() is: past the cap the table starts over; objects already shared stay so,
// new ones are shared again from then on (at worst one more copy of each).
const MAX_ENTRIES = 100_000;
const specs = new Map<string, StrippedPodSpec>();
const owners = new Map<string, StrippedOwnerReference[]>();

function deepFreeze<T>(v: T): T {
  if (v && typeof v === 'object' && !Object.isFrozen(v)) {
    for (const x of Object.values(v as object)) deepFreeze(x);
    Object.freeze(v);
  }
  return v;
}

function shared<T>(table: Map<string, T>, key: string, v: T): T {
  const have = table.get(key);
  if (have !== undefined) return have;
  if (table.size >= MAX_ENTRIES) table.clear();
  table.set(key, deepFreeze(v));
  return v;
}

// Keys are JSON: unambiguous whatever the strings hold (a declared kind's fields may contain any
// character, and two different specs under one key would credit one object with another's images).
const entries = (list: StrippedPodSpec['containers']) => list?.map((c) => [c.name, c.image ?? null]) ?? null;

/** The shared, frozen copy of a stripped PodSpec equal to `s` (containers' names and images). */
export function sharedSpec(s: StrippedPodSpec): StrippedPodSpec {
  const key = JSON.stringify([
    entries(s.containers),
    entries(s.initContainers),
    entries(s.ephemeralContainers),
  ]);
  return shared(specs, key, s);
}

/** The shared, frozen copy of a stripped ownerReferences list equal to `refs`. */
export function sharedOwners(refs: StrippedOwnerReference[]): StrippedOwnerReference[] {
  const key = JSON.stringify(
    refs.map((o) => [o.kind, o.name, o.uid ?? null, o.apiVersion ?? null, !!o.controller]),
  );
  return shared(owners, key, refs);
}
