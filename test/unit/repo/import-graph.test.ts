// Keeps the layering of ARCHITECTURE.md ("Layers") true, from the source: every relative import
// (type-only ones too) of every file in src/ points at the same folder or at a lower layer, and
// no chain of imports leads back to the file it started from.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { repoRoot } from '../../support/paths.js';

/** Bottom first. A folder imports only from its own folder and from lower layers. */
const LAYERS: readonly (readonly string[])[] = [
  ['core'], // core/*.ts: small shared helpers
  ['core/refs', 'core/kube', 'core/cri', 'core/observability'],
  ['core/contract', 'core/controller'],
  ['core/apply-inventory', 'core/inventory'],
  ['core/report', 'core/erase'],
  ['core/erase-request'], // the client side of erase: what `inv erase` runs on the user's machine
  ['core/noderemove', 'core/scanner', 'core/check', 'core/install', 'core/watch'],
  ['cli', 'hooks'],
  ['commands', 'bundle', 'docs'],
];

/**
 * The same inside core/erase, bottom first ('.' is its root): the words of the ImageList spec, the
 * administrator's configuration (which a job snapshots), the API, what the controllers build on,
 * the controllers' pieces, and at the top the controllers themselves.
 */
const ERASE_LAYERS: readonly (readonly string[])[] = [
  ['spec'],
  ['config'],
  ['api'],
  ['worker', 'nodes', 'metrics'],
  ['cluster'],
  ['imagejob', 'imagelist'],
  ['imagejob/admission'],
  ['.'],
];

const src = path.join(repoRoot, 'src');
const erase = path.join(src, 'core', 'erase');

function sourceFiles(dir: string, out: string[] = []): string[] {
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) sourceFiles(p, out);
    else if (e.name.endsWith('.ts') && !e.name.endsWith('.d.ts')) out.push(p);
  }
  return out;
}

/** The folder a file belongs to for layering: core/<first folder>, core, or the top folder. */
function folderOf(file: string): string {
  const parts = path.relative(src, file).split(path.sep);
  if (parts[0] === 'core') return parts.length > 2 ? `core/${parts[1]}` : 'core';
  return parts[0]!;
}

const IMPORT =
  /(?:^|\n)\s*(?:import|export)\b[^'";]*?\bfrom\s*['"](\.[^'"]+)['"]|\bimport\(\s*['"](\.[^'"]+)['"]\s*\)/g;

function importsOf(file: string): string[] {
  const text = fs.readFileSync(file, 'utf8');
  const out: string[] = [];
  for (const m of text.matchAll(IMPORT)) {
    const spec = m[1] ?? m[2]!;
    out.push(path.resolve(path.dirname(file), spec).replace(/\.js$/, '.ts'));
  }
  return out;
}

describe('the import graph of src/', () => {
  const files = sourceFiles(src);
  const graph = new Map(files.map((f) => [f, importsOf(f)] as const));
  const rank = new Map(LAYERS.flatMap((layer, i) => layer.map((f) => [f, i] as const)));
  const rel = (f: string) => path.relative(repoRoot, f);

  it('reads the imports (the scan sees the files it should)', () => {
    assert.ok(files.length > 100);
    assert.ok(graph.get(path.join(src, 'commands', 'erase.ts'))!.length > 5);
  });

  it('places every folder in a layer', () => {
    const unplaced = [...new Set(files.map(folderOf))].filter((f) => !rank.has(f));
    assert.deepEqual(unplaced, [], 'add new folders to LAYERS here and in ARCHITECTURE.md');
  });

  it('has no import into a missing file', () => {
    const missing = [...graph].flatMap(([f, deps]) =>
      deps.filter((d) => !graph.has(d)).map((d) => `${rel(f)} -> ${rel(d)}`),
    );
    assert.deepEqual(missing, []);
  });

  it('has no import upward or sideways between folders', () => {
    const bad: string[] = [];
    for (const [f, deps] of graph) {
      const from = folderOf(f);
      for (const d of deps) {
        const to = folderOf(d);
        if (to !== from && !(rank.get(to)! < rank.get(from)!))
          bad.push(`${rel(f)} (${from}) -> ${rel(d)} (${to})`);
      }
    }
    assert.deepEqual(bad, []);
  });

  it('keeps the layers inside core/erase (ERASE_LAYERS): no import upward or sideways between its folders', () => {
    const eraseRank = new Map(ERASE_LAYERS.flatMap((layer, i) => layer.map((f) => [f, i] as const)));
    const inner = (f: string) => path.relative(erase, path.dirname(f)).split(path.sep).join('/') || '.';
    const inErase = [...graph].filter(([f]) => !path.relative(erase, f).startsWith('..'));
    const unplaced = [...new Set(inErase.map(([f]) => inner(f)))].filter((d) => !eraseRank.has(d));
    assert.deepEqual(
      unplaced,
      [],
      'add new folders of core/erase to ERASE_LAYERS here and in ARCHITECTURE.md',
    );
    const bad: string[] = [];
    for (const [f, deps] of inErase) {
      for (const d of deps) {
        if (path.relative(erase, d).startsWith('..')) continue;
        const [from, to] = [inner(f), inner(d)];
        if (to !== from && !(eraseRank.get(to)! < eraseRank.get(from)!))
          bad.push(`${rel(f)} (${from}) -> ${rel(d)} (${to})`);
      }
    }
    assert.deepEqual(bad, []);
  });

  it("ARCHITECTURE.md's two layer tables say LAYERS and ERASE_LAYERS, row by row", () => {
    // Each table row's rooms, by the README each one links to; the erase table's last row is its root.
    const doc = fs.readFileSync(path.join(repoRoot, 'ARCHITECTURE.md'), 'utf8');
    const rows = (header: string, room: (link: string) => string | undefined) => {
      const start = doc.indexOf(header);
      assert.ok(start >= 0, `ARCHITECTURE.md has a table headed ${header}`);
      const table = doc.slice(start).split('\n\n')[0]!.split('\n').slice(2);
      return table.map((row) => {
        const links = [...row.matchAll(/\]\(src\/([^)]+)\/README\.md\)/g)].map((m) => room(m[1]!));
        const rooms = links.filter((r): r is string => r !== undefined);
        return row.includes('| the root |') ? [...rooms, '.'] : rooms;
      });
    };
    const top = rows('| layer | rooms |', (dir) => (dir.split('/').length <= 2 ? dir : undefined));
    assert.deepEqual(top, LAYERS);
    const inner = rows('| layer | folders of `core/erase` |', (dir) =>
      dir.startsWith('core/erase/') ? dir.slice('core/erase/'.length) : undefined,
    );
    assert.deepEqual(inner, ERASE_LAYERS);
  });

  it('has no cycle between files', () => {
    const state = new Map<string, 'open' | 'done'>();
    const stack: string[] = [];
    const cycles: string[] = [];
    const visit = (f: string) => {
      state.set(f, 'open');
      stack.push(f);
      for (const d of graph.get(f) ?? []) {
        if (state.get(d) === 'open') cycles.push([...stack.slice(stack.indexOf(d)), d].map(rel).join(' -> '));
        else if (!state.has(d)) visit(d);
      }
      stack.pop();
      state.set(f, 'done');
    };
    for (const f of files) if (!state.has(f)) visit(f);
    assert.deepEqual(cycles, []);
  });

  it("keeps the worker's and the scanner's rooms off the controller's: they meet in core/contract", () => {
    // noderemove and scanner sit above erase in the layers, but what they share with the erase
    // controller is a wire contract (core/contract), not the controller's code.
    const apart = new Map([
      ['core/noderemove', 'core/erase'],
      ['core/scanner', 'core/erase'],
    ]);
    const bad = [...graph].flatMap(([f, deps]) =>
      deps.filter((d) => apart.get(folderOf(f)) === folderOf(d)).map((d) => `${rel(f)} -> ${rel(d)}`),
    );
    assert.deepEqual(bad, []);
  });

  it("states Eraser's scanner contract once (contract/scanner-contract.ts)", () => {
    // The paths and file names of the contract as string literals (comments and help text may
    // name them): they were written in three files, with two different limits on the list.
    const literals = [
      "'/run/eraser.sh/shared-data'",
      "'/run/cri/cri.sock'",
      "'/config/controller_manager_config.yaml'",
      "'collectScan'",
      "'scanErase'",
      "'eraseCompleteScan'",
    ];
    const home = path.join(src, 'core', 'contract', 'scanner-contract.ts');
    const elsewhere = files
      .filter((f) => f !== home)
      .flatMap((f) => {
        const text = fs.readFileSync(f, 'utf8');
        return literals.filter((l) => text.includes(l)).map((l) => `${rel(f)}: ${l}`);
      });
    assert.deepEqual(elsewhere, []);
  });

  it('keeps rooms small and names distinct: no folder holds more than 20 files, no file name is in more than two folders', () => {
    const perFolder = new Map<string, number>();
    const folders = new Map<string, Set<string>>();
    for (const f of files) {
      const dir = path.dirname(f);
      perFolder.set(dir, (perFolder.get(dir) ?? 0) + 1);
      const name = path.basename(f);
      if (!folders.has(name)) folders.set(name, new Set());
      folders.get(name)!.add(rel(dir));
    }
    // The benchmarks and the tests are code too: their folders keep the same bound.
    for (const f of [
      ...sourceFiles(path.join(repoRoot, 'bench')),
      ...sourceFiles(path.join(repoRoot, 'test')),
    ])
      perFolder.set(path.dirname(f), (perFolder.get(path.dirname(f)) ?? 0) + 1);
    const crowded = [...perFolder].filter(([, n]) => n > 20).map(([d, n]) => `${rel(d)}: ${n} files`);
    assert.deepEqual(crowded, []);
    const repeated = [...folders]
      .filter(([, dirs]) => dirs.size > 2)
      .map(([name, dirs]) => `${name} in ${[...dirs].join(', ')}`);
    assert.deepEqual(repeated, []);
  });
});
