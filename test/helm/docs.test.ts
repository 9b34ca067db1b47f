// The Helm the docs show: every `helm ...` line of the README, docs/ and the chart's README parses
// with Helm 4 and with Helm 3, neither refusing a flag nor calling one deprecated (Helm 4 renamed
// Helm 3's --atomic, --force and `template --validate`, and takes the old names with a warning),
// and docs/install.md and the chart's README name the Helm releases that are tested (helmVersions,
// scripts/tools.mjs).
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { shellWords } from '../support/docs/docs-commands.js';
import { codeBlocks, docsPages, type Page } from '../support/docs/docs-pages.js';
import { helm, helm3, tools, warnings } from '../support/helm.js';
import { repoRoot } from '../support/paths.js';

/** The `helm ...` lines of the pages' code blocks (a `$ ` prompt dropped), with where they are. */
function helmLines(): { where: string; argv: string[] }[] {
  const chartReadme = 'charts/inv/README.md';
  const pages: Page[] = [
    ...docsPages(),
    { file: chartReadme, text: fs.readFileSync(path.join(repoRoot, chartReadme), 'utf8') },
  ];
  const out: { where: string; argv: string[] }[] = [];
  for (const page of pages)
    for (const b of codeBlocks(page)) {
      if (['yaml', 'yml', 'json'].includes(b.lang)) continue;
      b.body.split('\n').forEach((l, i) => {
        const m = /^(?:\$ )?helm (.*)$/.exec(l.trim());
        if (m) out.push({ where: `${b.file}:${b.line + 1 + i}`, argv: shellWords(m[1]!).words });
      });
    }
  return out;
}

describe('Helm in the docs', function () {
  this.timeout(120_000);
  const lines = helmLines();

  it('finds the lines: install, test, upgrade and uninstall among them', () => {
    const verbs = new Set(lines.map((l) => l.argv[0]));
    for (const v of ['install', 'test', 'upgrade', 'uninstall'])
      assert.ok(verbs.has(v), `a \`helm ${v}\` line`);
  });

  for (const [name, run] of [
    ['Helm 4', helm],
    ['Helm 3', helm3],
  ] as const)
    it(`each parses with ${name}: no unknown flag, none deprecated`, async () => {
      for (const { where, argv } of lines) {
        // --help after the line: Helm parses every flag, then prints the command's help.
        const r = await run([...argv, '--help']);
        assert.equal(r.code, 0, `${where}: helm ${argv.join(' ')}:\n${r.stderr}`);
        assert.deepEqual(warnings(r), [], `${where}: helm ${argv.join(' ')}`);
      }
    });

  for (const page of ['docs/install.md', 'charts/inv/README.md'])
    it(`${page} names the Helm releases that are tested, and no other`, async () => {
      const { helmVersions } = await tools();
      const text = fs.readFileSync(path.join(repoRoot, page), 'utf8');
      for (const v of Object.values(helmVersions)) assert.ok(text.includes(v), `${page} names ${v}`);
      const named = new Set(text.match(/\bv[34]\.\d+\.\d+\b/g));
      assert.deepEqual([...named].sort(), Object.values(helmVersions).sort(), `${page}: Helm versions`);
    });
});
