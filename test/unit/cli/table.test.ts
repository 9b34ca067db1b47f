// src/cli/output/table.ts: kubectl-style borderless tables fitted to the terminal width.
import assert from 'node:assert/strict';
import { shortenRef } from '../../../src/cli/output/shorten-ref.js';
import { renderTable, terminalWidth, visibleLength, type Column } from '../../../src/cli/output/table.js';
import { fitText, wrapLine } from '../../../src/cli/output/wrap.js';

const columns: Column[] = [
  { header: 'NAMESPACE' },
  { header: 'IMAGE', shrink: true, minWidth: 20 },
  { header: 'KINDS' },
  { header: 'STATUS' },
  { header: 'NAME', wide: true },
];
const long = `registry.example.com:5000/team/${'very-long-repository-name/'.repeat(4)}api:2.3.1`;
const rows = [
  ['shop', long, 'Deployment,Pod', 'created', 'api-2.3.1-0123456789'],
  ['web', 'docker.io/library/nginx:1.25', 'Deployment', 'unchanged', 'nginx-1.25-abcdef0123'],
];
const lines = (s: string) => s.replace(/\n$/, '').split('\n');

describe('renderTable', () => {
  let noColor: string | undefined;
  before(() => {
    noColor = process.env.NO_COLOR;
    process.env.NO_COLOR = '1';
  });
  after(() => {
    if (noColor === undefined) delete process.env.NO_COLOR;
    else process.env.NO_COLOR = noColor;
  });

  it('has no borders, a header in capitals and columns three spaces apart', () => {
    const out = renderTable(columns, rows);
    assert.doesNotMatch(out, /[│─┌┐└┘|]/);
    const [head, first] = lines(out);
    assert.match(head!, /^NAMESPACE {3}IMAGE {2,}KINDS {3,}STATUS$/);
    assert.ok(first!.startsWith(`shop        ${long}   Deployment,Pod   created`));
    for (const l of lines(out)) assert.equal(l, l.trimEnd(), 'no trailing spaces');
  });

  it('fits 80 columns by truncating the shrinkable column with …', () => {
    const out = renderTable(columns, rows, { width: 80 });
    for (const l of lines(out)) assert.ok(visibleLength(l) <= 80, `${visibleLength(l)}: ${l}`);
    assert.match(out, /registry\.example\.com:5000\/team\/very.*…/);
    assert.match(out, /docker\.io\/library\/nginx:1\.25/, 'short values stay whole');
    assert.doesNotMatch(out, /NAME\b(?!SPACE)/, 'wide-only columns are hidden');
  });

  it('leaves everything whole at 200 columns', () => {
    const out = renderTable(columns, rows, { width: 200 });
    assert.ok(out.includes(long));
    assert.doesNotMatch(out, /…/);
    for (const l of lines(out)) assert.ok(visibleLength(l) <= 200);
  });

  it('never truncates below a column’s minimum, even on a very narrow terminal', () => {
    const out = renderTable(columns, rows, { width: 20 });
    const image = lines(out)[1]!.slice('NAMESPACE   '.length).split('   ')[0]!;
    assert.equal(visibleLength(image), 20);
    assert.ok(image.endsWith('…'));
  });

  it('-o wide shows the wide columns and never truncates, whatever the width', () => {
    const out = renderTable(columns, rows, { wide: true, width: 80 });
    assert.match(lines(out)[0]!, /STATUS {3,}NAME$/);
    assert.ok(out.includes(long));
    assert.ok(out.includes('api-2.3.1-0123456789'));
  });

  it('--no-headers prints the rows only, and nothing for no rows', () => {
    const out = renderTable(columns, rows, { noHeaders: true });
    assert.equal(lines(out).length, 2);
    assert.ok(lines(out)[0]!.startsWith('shop'));
    assert.equal(renderTable(columns, [], { noHeaders: true }), '');
    assert.equal(lines(renderTable(columns, [])).length, 1, 'a header alone without rows');
  });

  it('measures and truncates by visible characters, ignoring ANSI colour codes', () => {
    const green = (s: string) => `\u001b[32m${s}\u001b[39m`;
    const colored = rows.map((r) => [r[0]!, r[1]!, r[2]!, green(r[3]!), r[4]!]);
    const plain = renderTable(columns, rows, { width: 80 });
    const out = renderTable(columns, colored, { width: 80 });
    // eslint-disable-next-line no-control-regex
    assert.equal(out.replace(/\u001b\[[0-9;]*m/g, ''), plain, 'the same layout with and without colour');
    assert.ok(out.includes(green('created')), 'the colour is kept on a whole value');
    assert.equal(visibleLength(green('created')), 7);
  });

  it('right-aligns numeric columns', () => {
    const out = renderTable(
      [{ header: 'NAME' }, { header: 'COUNT', align: 'right' }, { header: 'NOTE' }],
      [
        ['a', '5', 'x'],
        ['b', '12345', 'y'],
      ],
    );
    assert.deepEqual(lines(out), ['NAME   COUNT   NOTE', 'a          5   x', 'b      12345   y']);
  });
});

describe('terminalWidth', () => {
  it('is undefined when piped, the terminal’s otherwise, and COLUMNS overrides', () => {
    const saved = process.env.COLUMNS;
    try {
      delete process.env.COLUMNS;
      assert.equal(terminalWidth({ isTTY: false } as NodeJS.WriteStream), undefined);
      assert.equal(terminalWidth({ isTTY: true, columns: 132 } as NodeJS.WriteStream), 132);
      process.env.COLUMNS = '200';
      assert.equal(terminalWidth({ isTTY: true, columns: 132 } as NodeJS.WriteStream), 200);
      assert.equal(terminalWidth({ isTTY: false } as NodeJS.WriteStream), undefined, 'piped stays whole');
    } finally {
      if (saved === undefined) delete process.env.COLUMNS;
      else process.env.COLUMNS = saved;
    }
  });
});

describe('shortenRef, collapsing columns, wrapping prose', () => {
  it('cuts a ref in the middle and keeps the tag, or the digest’s start', () => {
    assert.equal(shortenRef('docker.io/nicolaka/netshoot:v0.13', 40), 'docker.io/nicolaka/netshoot:v0.13');
    assert.equal(shortenRef('docker.io/nicolaka/netshoot:v0.13', 24), 'docker.i…/netshoot:v0.13');
    const digest = `ghcr.io/acme/migrate:v2@sha256:${'4c1e6a1b0d6e'.repeat(5)}abcd`;
    assert.equal(shortenRef(digest, 40), 'ghcr.io/acme/migrate:v2@sha256:4c1e6a1b…');
    assert.equal(shortenRef(digest, 24), 'ghcr.io/ac…/migrate:v2@…');
    const byDigest = `docker.io/library/nginx@sha256:${'4c1e6a1b0d6e'.repeat(5)}abcd`;
    assert.equal(shortenRef(byDigest, 30), 'docker.…/nginx@sha256:4c1e6a1…');
    for (const w of [8, 10, 16, 24, 30, 40]) assert.ok([...shortenRef(digest, w)].length <= w);
  });

  it('collapses a marked column of one value on a terminal only', () => {
    const cols: Column[] = [{ header: 'NODE' }, { header: 'TARGET', collapse: true }, { header: 'OUTCOME' }];
    const rows = [
      ['a', '*', 'removed'],
      ['b', '*', 'kept'],
    ];
    assert.equal(
      renderTable(cols, rows, { width: 80 }),
      'TARGET: * (every row)\nNODE   OUTCOME\na      removed\nb      kept\n',
    );
    assert.match(renderTable(cols, rows, {}), /^NODE {3}TARGET {3}OUTCOME$/m);
    assert.match(renderTable(cols, rows, { width: 80, wide: true }), /TARGET/);
    assert.match(renderTable(cols, [rows[0]!, ['b', 'x:1', 'kept']], { width: 80 }), /^NODE {3}TARGET/m);
  });

  it('wraps at word boundaries with a hanging indent, and leaves piped text alone', () => {
    const text = `warning: ${'word '.repeat(30).trim()}`;
    const out = fitText(text, 40).split('\n');
    for (const l of out) assert.ok(l.length <= 40, l);
    assert.ok(out.slice(1).every((l) => l.startsWith('  ') && !l.startsWith('   ')));
    assert.equal(out.map((l) => l.trim()).join(' '), text);
    assert.equal(fitText(text, undefined), text);
    assert.deepEqual(wrapLine(`a ${'x'.repeat(50)}`, 30), [
      'a',
      `  ${'x'.repeat(28)}`,
      `  ${'x'.repeat(22)}`,
    ]);
  });
});
