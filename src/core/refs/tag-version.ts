// Tags read as versions, for keep-newest's order (noderemove/retention/): `1.4`, `v2.0.1`,
// `3`, `1.0.0-rc.1`, `2.1.0+build.7`. PURE.
//
// The grammar is Semantic Versioning 2.0.0 with two allowances tags commonly take: a leading `v`,
// and a missing minor or patch number (`1.4` is 1.4.0, `3` is 3.0.0) where no pre-release or
// build follows. Anything else (`latest`,
// `stable`, `2024-05-01`, `1.2.3.4`, a leading zero as in `01.2`) does not parse. Build metadata
// (`+...`) takes no part in the order, as SemVer says; two tags equal but for it compare equal.

export interface TagVersion {
  readonly core: readonly [number, number, number];
  /** Pre-release identifiers (`rc`, `1`); empty for a release. */
  readonly pre: readonly string[];
}

const NUM = '(0|[1-9][0-9]*)';
const IDENT = '[0-9A-Za-z-]+';
const VERSION = new RegExp(
  `^v?${NUM}(?:\\.${NUM})?(?:\\.${NUM})?(?:-(${IDENT}(?:\\.${IDENT})*))?(?:\\+${IDENT}(?:\\.${IDENT})*)?$`,
);

/** The tag as a version, or undefined when it is not one. */
export function parseTagVersion(tag: string): TagVersion | undefined {
  const m = VERSION.exec(tag);
  if (!m) return undefined;
  // A pre-release or build needs all three numbers: `2024-05-01` is a date, not 2024.0.0-05-01.
  if ((m[4] !== undefined || tag.includes('+')) && m[3] === undefined) return undefined;
  const n = (s: string | undefined) => (s === undefined ? 0 : Number(s));
  const core: [number, number, number] = [n(m[1]), n(m[2]), n(m[3])];
  if (!core.every(Number.isSafeInteger)) return undefined;
  const pre = m[4] === undefined ? [] : m[4].split('.');
  // SemVer: numeric pre-release identifiers have no leading zeros.
  if (pre.some((p) => /^0[0-9]+$/.test(p))) return undefined;
  return { core, pre };
}

/** SemVer precedence: negative when a is older than b, 0 when equal, positive when newer. */
export function compareVersions(a: TagVersion, b: TagVersion): number {
  for (let i = 0; i < 3; i++) if (a.core[i] !== b.core[i]) return a.core[i]! - b.core[i]!;
  // A release is newer than its pre-releases.
  if (a.pre.length === 0 || b.pre.length === 0) return b.pre.length - a.pre.length;
  for (let i = 0; i < Math.min(a.pre.length, b.pre.length); i++) {
    const c = compareIdentifier(a.pre[i]!, b.pre[i]!);
    if (c !== 0) return c;
  }
  return a.pre.length - b.pre.length;
}

function compareIdentifier(a: string, b: string): number {
  const an = /^[0-9]+$/.test(a);
  const bn = /^[0-9]+$/.test(b);
  if (an && bn) return a.length !== b.length ? a.length - b.length : a < b ? -1 : a > b ? 1 : 0;
  // Numeric identifiers are older than alphanumeric ones; alphanumeric ones compare in ASCII.
  if (an !== bn) return an ? -1 : 1;
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * The fallback order of tags that are not all versions: runs of digits compare as numbers, the
 * rest in ASCII (`build-9` before `build-10`). Negative when a sorts before b.
 */
export function compareNatural(a: string, b: string): number {
  const split = (s: string) => s.match(/[0-9]+|[^0-9]+/g) ?? [];
  const pa = split(a);
  const pb = split(b);
  for (let i = 0; i < Math.min(pa.length, pb.length); i++) {
    const x = pa[i]!;
    const y = pb[i]!;
    if (x === y) continue;
    const xn = /^[0-9]/.test(x);
    const yn = /^[0-9]/.test(y);
    if (xn && yn) {
      const xs = x.replace(/^0+(?=.)/, '');
      const ys = y.replace(/^0+(?=.)/, '');
      if (xs.length !== ys.length) return xs.length - ys.length;
      if (xs !== ys) return xs < ys ? -1 : 1;
      continue;
    }
    return x < y ? -1 : 1;
  }
  return pa.length !== pb.length ? pa.length - pb.length : a < b ? -1 : a > b ? 1 : 0;
}
