// Kubernetes label selectors in their string form (`a=b,c!=d,e,!f,g in (x,y),h notin (z)`),
// parsed once and matched locally against Node labels.

export type Requirement =
  { key: string; op: 'exists' | 'notexists' } | { key: string; op: 'in' | 'notin'; values: string[] };

export type Selector = Requirement[];

const KEY =
  /^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*\/)?[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?$/;
const VALUE = /^(([A-Za-z0-9][-A-Za-z0-9_.]{0,61})?[A-Za-z0-9])?$/;

function checkKey(k: string): string {
  if (!KEY.test(k)) throw new Error(`invalid label key ${JSON.stringify(k)}`);
  return k;
}
function checkValue(v: string): string {
  if (!VALUE.test(v)) throw new Error(`invalid label value ${JSON.stringify(v)}`);
  return v;
}

/** Splits on commas that are not inside parentheses. */
function splitTop(s: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let cur = '';
  for (const ch of s) {
    if (ch === '(') depth++;
    if (ch === ')') depth--;
    if (ch === ',' && depth === 0) {
      out.push(cur);
      cur = '';
    } else cur += ch;
  }
  out.push(cur);
  return out;
}

export function parseSelector(text: string): Selector {
  const s = text.trim();
  if (s === '') return [];
  const reqs: Selector = [];
  for (const raw of splitTop(s)) {
    const part = raw.trim();
    if (part === '') throw new Error(`empty requirement in selector ${JSON.stringify(text)}`);
    let m: RegExpExecArray | null;
    if ((m = /^(\S+)\s+(in|notin)\s*\(([^)]*)\)$/.exec(part))) {
      const values = m[3]!.split(',').map((v) => checkValue(v.trim()));
      reqs.push({ key: checkKey(m[1]!), op: m[2] as 'in' | 'notin', values });
    } else if ((m = /^([^=!\s]+)\s*(==|=|!=)\s*(\S*)$/.exec(part))) {
      reqs.push({ key: checkKey(m[1]!), op: m[2] === '!=' ? 'notin' : 'in', values: [checkValue(m[3]!)] });
    } else if ((m = /^!\s*(\S+)$/.exec(part))) {
      reqs.push({ key: checkKey(m[1]!), op: 'notexists' });
    } else if (/^\S+$/.test(part)) {
      reqs.push({ key: checkKey(part), op: 'exists' });
    } else {
      throw new Error(`cannot parse selector requirement ${JSON.stringify(part)}`);
    }
  }
  return reqs;
}

export function matches(sel: Selector, labels: Readonly<Record<string, string>> = {}): boolean {
  return sel.every((r) => {
    const has = Object.hasOwn(labels, r.key);
    switch (r.op) {
      case 'exists':
        return has;
      case 'notexists':
        return !has;
      case 'in':
        return has && r.values.includes(labels[r.key]!);
      case 'notin':
        return !has || !r.values.includes(labels[r.key]!);
    }
  });
}
