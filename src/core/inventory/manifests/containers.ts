// Containers of offline manifests that the rules cannot read. The API server guarantees that
// a container is an object whose `image` is a string; a file guarantees nothing. YAML turns
// `image: 1.25` into a number, `image: true` into a boolean, `image: 2024-01-01` into a date and
// `!!binary` into bytes, and JSON can say `"image": 125`. Such a container is taken out of the
// document (the rest of the document still counts) and reported, so one unquoted tag cannot
// crash the whole scan. Pure: the parsed document in, the problems out.
import { describeValue, isObj } from '../../guards.js';
import { atPath, type OwnerKindSpec, type SourceKindSpec } from '../source-kinds.js';

export interface ContainerProblem {
  /** The container's name, or its place ("containers[2]") when it has no usable name. */
  container: string;
  reason: string;
}

const LISTS = ['containers', 'initContainers', 'ephemeralContainers'] as const;

type Obj = Record<string, unknown>;

/** The pod specs inside a source object, where the kind registry says it keeps them. */
function podSpecsOf(doc: Obj, kind: SourceKindSpec | OwnerKindSpec): Obj[] {
  const paths = 'podSpecs' in kind ? kind.podSpecs : [];
  return paths.map((p) => atPath(doc, p)).filter(isObj);
}

/**
 * Removes from `doc` (in place) every container the rules cannot read, and says why: a list
 * that is not a list, an entry that is not a map, an `image` that is present but not a string.
 * A null or missing image is left to the rules, which report it as an empty image.
 */
export function takeOutBadContainers(doc: Obj, kind: SourceKindSpec | OwnerKindSpec): ContainerProblem[] {
  const problems: ContainerProblem[] = [];
  for (const spec of podSpecsOf(doc, kind)) problems.push(...takeOutOf(spec));
  return problems;
}

function takeOutOf(spec: Obj): ContainerProblem[] {
  const problems: ContainerProblem[] = [];
  for (const list of LISTS) {
    const v = spec[list];
    if (v === undefined || v === null) continue;
    if (!Array.isArray(v)) {
      problems.push({ container: list, reason: `${list} is ${describeValue(v)}, not a list` });
      delete spec[list];
      continue;
    }
    const kept: unknown[] = [];
    for (let i = 0; i < v.length; i++) {
      const c: unknown = v[i];
      const place = `${list}[${i}]`;
      if (!isObj(c)) {
        problems.push({ container: place, reason: `the container is ${describeValue(c)}, not a map` });
        continue;
      }
      const name = typeof c.name === 'string' && c.name ? c.name : place;
      if (c.name !== undefined && typeof c.name !== 'string') {
        problems.push({ container: place, reason: `name is ${describeValue(c.name)}, not a string` });
        continue;
      }
      if (c.image !== undefined && c.image !== null && typeof c.image !== 'string') {
        const scalar = typeof c.image === 'number' || typeof c.image === 'boolean' || c.image instanceof Date;
        problems.push({
          container: name,
          reason: `image is ${describeValue(c.image)}, not a string${scalar ? ' (quote it)' : ''}`,
        });
        continue;
      }
      kept.push(c);
    }
    if (kept.length !== v.length) spec[list] = kept;
  }
  return problems;
}
