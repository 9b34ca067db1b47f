// The cluster-wide image report behind `inv images`: "who uses docker.io/bitnami/*?". Pure:
// per-namespace image uses in (read from Image resources, or computed offline from manifests),
// filtered and grouped rows out. The image filter is the exclusion glob over normalized refs.
import { matchesExclusion, type ExclusionMatcher } from '../refs/exclusion.js';

/** One Image: a normalized ref used in one namespace. */
export interface ImageUse {
  namespace: string;
  image: string;
  kinds: string[];
  /** "Kind/name", at most the cap of status.users. */
  users: string[];
  /** The true number of users. */
  userCount: number;
}

export interface ReportFilters {
  image?: ExclusionMatcher;
  /** Registry host as in normalized refs, e.g. docker.io, quay.io, registry.example.com:5000. */
  registry?: string;
  kinds?: string[];
}

export type GroupBy = 'image' | 'namespace' | 'registry';

export interface ImageRow {
  image: string;
  registry: string;
  kinds: string[];
  userCount: number;
  namespaces: { namespace: string; kinds: string[]; users: string[]; userCount: number }[];
}
export interface NamespaceRow {
  namespace: string;
  images: number;
  registries: number;
  userCount: number;
}
export interface RegistryRow {
  registry: string;
  images: number;
  namespaces: number;
  userCount: number;
}
export type ReportRows =
  | { by: 'image'; rows: ImageRow[] }
  | { by: 'namespace'; rows: NamespaceRow[] }
  | { by: 'registry'; rows: RegistryRow[] };

/** The registry host of a normalized ref: everything before the first '/'. */
export const registryOf = (ref: string): string => ref.slice(0, Math.max(0, ref.indexOf('/'))) || ref;

const cmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
const sortedSet = (xs: Iterable<string>) => [...new Set(xs)].sort(cmp);

/** Uses that pass every filter. With --kind, only users of those kinds are kept and counted. */
export function filterUses(uses: readonly ImageUse[], f: ReportFilters): ImageUse[] {
  const out: ImageUse[] = [];
  for (const u of uses) {
    if (f.registry && registryOf(u.image) !== f.registry) continue;
    if (f.image && matchesExclusion([f.image], [u.image]) === undefined) continue;
    if (f.kinds?.length) {
      const kinds = u.kinds.filter((k) => f.kinds!.includes(k));
      if (!kinds.length) continue;
      const users = u.users.filter((x) => kinds.includes(x.slice(0, x.indexOf('/'))));
      // The capped list cannot tell how many users of the other kinds were cut: count what is listed
      // unless every user is listed.
      const userCount = u.users.length === u.userCount ? users.length : Math.max(users.length, 1);
      out.push({ ...u, kinds, users, userCount });
      continue;
    }
    out.push(u);
  }
  return out;
}

export function groupUses(uses: readonly ImageUse[], by: GroupBy): ReportRows {
  if (by === 'namespace') {
    const m = new Map<string, ImageUse[]>();
    for (const u of uses) m.set(u.namespace, [...(m.get(u.namespace) ?? []), u]);
    const rows = [...m]
      .map(([namespace, us]) => ({
        namespace,
        images: new Set(us.map((u) => u.image)).size,
        registries: new Set(us.map((u) => registryOf(u.image))).size,
        userCount: us.reduce((n, u) => n + u.userCount, 0),
      }))
      .sort((a, b) => cmp(a.namespace, b.namespace));
    return { by, rows };
  }
  if (by === 'registry') {
    const m = new Map<string, ImageUse[]>();
    for (const u of uses) m.set(registryOf(u.image), [...(m.get(registryOf(u.image)) ?? []), u]);
    const rows = [...m]
      .map(([registry, us]) => ({
        registry,
        images: new Set(us.map((u) => u.image)).size,
        namespaces: new Set(us.map((u) => u.namespace)).size,
        userCount: us.reduce((n, u) => n + u.userCount, 0),
      }))
      .sort((a, b) => cmp(a.registry, b.registry));
    return { by, rows };
  }
  const m = new Map<string, ImageUse[]>();
  for (const u of uses) m.set(u.image, [...(m.get(u.image) ?? []), u]);
  const rows = [...m]
    .map(([image, us]) => ({
      image,
      registry: registryOf(image),
      kinds: sortedSet(us.flatMap((u) => u.kinds)),
      userCount: us.reduce((n, u) => n + u.userCount, 0),
      namespaces: us
        .map((u) => ({
          namespace: u.namespace,
          kinds: sortedSet(u.kinds),
          users: u.users,
          userCount: u.userCount,
        }))
        .sort((a, b) => cmp(a.namespace, b.namespace)),
    }))
    .sort((a, b) => cmp(a.image, b.image));
  return { by: 'image', rows };
}
