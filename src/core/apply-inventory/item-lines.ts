// The compact line encoding of an inventory (items.ts), as the owner's status stores it.
import { rfc3339 } from '../timestamps.js';
import { type InventoryItem, type Inventory, PHASES, type Phase, sortInventory } from './items.js';

// ---- Compact encoding -------------------------------------------------------------------------
// One line per item, fields separated by '|' (a character no Kubernetes name, kind or digest can
// hold):  group/version/Kind|namespace|name|applyOrder|deleteOrder|D or O|digest|phase|lastAppliedAt
// and, when recorded, |uid. lastAppliedAt is Unix seconds. About 90 bytes per Pod alone, ~50 in
// a list (encodeInventory), so 5,000 workers fit in ~250 KB (the ImageJob controller records
// UIDs only for its few ConfigMaps and its PodTemplate, not for Pods).

export function encodeItem(i: InventoryItem): string {
  const at = i.lastAppliedAt ? String(Math.floor(Date.parse(i.lastAppliedAt) / 1000)) : '';
  return [
    `${i.group}/${i.version}/${i.kind}`,
    i.namespace,
    i.name,
    i.applyOrder,
    i.deleteOrder,
    i.deletePolicy === 'Orphan' ? 'O' : 'D',
    i.digest,
    i.phase,
    at,
    ...(i.uid ? [i.uid] : []),
  ].join('|');
}

export function decodeItem(line: string): InventoryItem {
  const f = line.split('|');
  if (f.length !== 9 && f.length !== 10) throw new Error(`inventory: malformed item ${JSON.stringify(line)}`);
  const [gvk, namespace, name, applyOrder, deleteOrder, policy, digest, phase, at, uid] = f as [
    string,
    string,
    string,
    string,
    string,
    string,
    string,
    string,
    string,
    string | undefined,
  ];
  const parts = gvk.split('/');
  if (parts.length !== 3 || !parts[1] || !parts[2])
    throw new Error(`inventory: malformed type in ${JSON.stringify(line)}`);
  if (!PHASES.includes(phase as Phase))
    throw new Error(`inventory: unknown phase in ${JSON.stringify(line)}`);
  const ao = Number(applyOrder);
  const dor = Number(deleteOrder);
  if (!Number.isInteger(ao) || !Number.isInteger(dor))
    throw new Error(`inventory: malformed order in ${JSON.stringify(line)}`);
  if (policy !== 'D' && policy !== 'O')
    throw new Error(`inventory: malformed policy in ${JSON.stringify(line)}`);
  const item: InventoryItem = {
    group: parts[0]!,
    version: parts[1],
    kind: parts[2],
    namespace,
    name,
    applyOrder: ao,
    deleteOrder: dor,
    deletePolicy: policy === 'O' ? 'Orphan' : 'Delete',
    digest,
    phase: phase as Phase,
  };
  if (at) item.lastAppliedAt = rfc3339(new Date(Number(at) * 1000));
  if (uid) item.uid = uid;
  return item;
}

// Lines after the first are written against the line before (sorted, so a job's Pods follow each
// other): a field equal to the one above is `^`, and a name sharing its start with the name above
// is `^<n>:<rest>` (no Kubernetes name, kind, digest or time holds `^`). A 5,000-node job's Pod
// line shrinks from ~100 to ~50 bytes. Lines without `^` (written before) read as they are.

/** Fields that may be written as `^`: type, namespace, orders, policy, phase, lastAppliedAt. */
const DITTO = new Set([0, 1, 3, 4, 5, 7, 8]);

export function encodeInventory(inv: Inventory): string[] {
  let prev: string[] | undefined;
  return sortInventory(inv).map((item) => {
    const f = encodeItem(item).split('|');
    const out = f.map((v, i) => {
      if (!prev || v.length < 2) return v;
      if (DITTO.has(i) && v === prev[i]) return '^';
      if (i !== 2) return v;
      let n = 0;
      while (n < v.length && v[n] === prev[i]![n]) n++;
      return n > 4 ? `^${n}:${v.slice(n)}` : v;
    });
    prev = f;
    return out.join('|');
  });
}

export function decodeInventory(lines: readonly string[] | undefined): InventoryItem[] {
  let prev: string[] | undefined;
  const items = (lines ?? []).map((line) => {
    const f = line.split('|').map((v, i) => {
      if (!v.startsWith('^')) return v;
      const base = prev?.[i];
      if (base === undefined) throw new Error(`inventory: malformed item ${JSON.stringify(line)}`);
      if (v === '^' && DITTO.has(i)) return base;
      const m = i === 2 ? /^\^(\d+):(.*)$/.exec(v) : null;
      if (!m || Number(m[1]) > base.length)
        throw new Error(`inventory: malformed item ${JSON.stringify(line)}`);
      return base.slice(0, Number(m[1])) + m[2]!;
    });
    prev = f;
    return decodeItem(f.join('|'));
  });
  return sortInventory(items);
}
