// One release, one version: package.json's version is the chart's version and appVersion, the
// latest release of CHANGELOG.md, the default image tags (the daemon bundle's, the erase workers'
// built-in default, the chart's, which follow appVersion), the krew manifest's and the tarball
// the docs install. Each value is read from the file that defines it, never from a copy here.
// The chart's Artifact Hub annotations are checked the same way against their sources: the
// changes against the CHANGELOG, the image against the one a release pushes, the CRDs against crds/, the
// license against package.json.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';
import { DEFAULT_CONFIG } from '../../../src/core/erase/config/config.js';
import { repoRoot } from '../../support/paths.js';

const read = (f: string) => fs.readFileSync(path.join(repoRoot, f), 'utf8');
const yamlOf = <T>(f: string) => parse(read(f)) as T;

interface Chart {
  version: string;
  appVersion: string;
  annotations: Record<string, string>;
}
interface ImageValue {
  repository: string;
  tag: string;
  digest: string;
}
interface Values {
  image: ImageValue;
  erase: { worker: { image: ImageValue } };
}

const pkg = JSON.parse(read('package.json')) as { version: string; license: string };
const chart = yamlOf<Chart>('charts/inv/Chart.yaml');
const values = yamlOf<Values>('charts/inv/values.yaml');
const changelog = read('CHANGELOG.md');
const annotation = <T>(key: string) => parse(chart.annotations[`artifacthub.io/${key}`] ?? 'null') as T;

/** The CHANGELOG's releases, newest first: `## [X.Y.Z] - YYYY-MM-DD` and its entries by kind. */
function releases(
  text: string,
): { version: string; date: string; changes: { kind: string; description: string }[] }[] {
  const out: ReturnType<typeof releases> = [];
  let kind = '';
  for (const line of text.split('\n')) {
    const rel = /^## \[(\d+\.\d+\.\d+(?:-[\w.]+)?)\] - (\d{4}-\d{2}-\d{2})$/.exec(line);
    if (rel) {
      out.push({ version: rel[1]!, date: rel[2]!, changes: [] });
      kind = '';
      continue;
    }
    if (/^## /.test(line)) kind = '';
    const k = /^### (\w+)$/.exec(line);
    if (k) kind = k[1]!.toLowerCase();
    else if (line.startsWith('- ') && kind && out.length)
      // Artifact Hub shows plain text: the entry without its Markdown code marks.
      out.at(-1)!.changes.push({ kind, description: line.slice(2).replaceAll('`', '') });
  }
  return out;
}

/** The tag of an image reference (repository[:tag][@digest]). */
const tagOf = (ref: string) => /:([\w][\w.-]{0,127})(?:@|$)/.exec(ref.replace(/^[^/]*\//, ''))?.[1];

describe('release versions agree', () => {
  const v = pkg.version;

  it('package.json, the chart’s version and appVersion', () => {
    assert.match(v, /^\d+\.\d+\.\d+(-[\w.]+)?$/);
    assert.equal(chart.version, v, 'charts/inv/Chart.yaml version');
    assert.equal(chart.appVersion, v, 'charts/inv/Chart.yaml appVersion');
  });

  it('the CHANGELOG: an Unreleased section, then the latest release is this version, each with its link', () => {
    assert.match(changelog, /^## \[Unreleased\]$/m);
    assert.ok(changelog.indexOf('## [Unreleased]') < changelog.indexOf(`## [${v}]`), 'Unreleased first');
    const [latest] = releases(changelog);
    assert.equal(latest?.version, v, 'the newest ## [X.Y.Z] - date heading');
    assert.ok(latest.changes.length > 0, 'the latest release lists its changes');
    for (const r of ['Unreleased', ...releases(changelog).map((x) => x.version)])
      assert.match(
        changelog,
        new RegExp(`^\\[${r.replace(/\./g, '\\.')}\\]: https://`, 'm'),
        `link for [${r}]`,
      );
  });

  it('the default image tags: the daemon bundle’s, the erase workers’, the chart’s', () => {
    const kust = yamlOf<{ images: { name: string; newName: string; newTag: string }[] }>(
      'deploy/kustomization.yaml',
    );
    const daemon = kust.images.find((i) => i.name === 'inv');
    assert.ok(daemon, 'deploy/kustomization.yaml sets the inv image');
    assert.equal(daemon.newTag, v, 'deploy/kustomization.yaml newTag (inv install --daemon)');
    assert.equal(
      tagOf(DEFAULT_CONFIG.worker.image),
      v,
      `erase workers' default image ${DEFAULT_CONFIG.worker.image}`,
    );
    // The chart's tags follow appVersion when empty (templates/_helpers.tpl).
    for (const [key, img] of [
      ['image', values.image],
      ['erase.worker.image', values.erase.worker.image],
    ] as const)
      assert.ok(
        img.tag === '' || img.tag === v,
        `values.yaml ${key}.tag is empty (appVersion) or ${v}: ${img.tag}`,
      );
    assert.match(
      read('charts/inv/templates/_helpers.tpl'),
      /\.image\.tag \| default \.root\.Chart\.AppVersion/,
    );
  });

  it('the krew manifest and the tarball the docs install', () => {
    const krew = yamlOf<{ spec: { version: string; platforms: { uri: string }[] } }>('plugins/inv.yaml');
    assert.equal(krew.spec.version, `v${v}`);
    for (const p of krew.spec.platforms) assert.ok(p.uri.endsWith(`/v${v}/inv-${v}.tgz`), p.uri);
    for (const f of ['README.md', 'docs/install.md']) {
      const named = [...read(f).matchAll(/\binv-(\d+\.\d+\.\d+(?:-[\w.]+)?)\.tgz\b/g)].map((m) => m[1]);
      assert.ok(f !== 'README.md' || named.length > 0, 'the README installs the tarball');
      assert.deepEqual(
        [...new Set(named)].filter((x) => x !== v),
        [],
        `${f} names inv-${v}.tgz`,
      );
    }
  });

  describe('the chart’s Artifact Hub annotations', () => {
    it('changes: the CHANGELOG’s latest release, entry for entry', () => {
      assert.deepEqual(annotation('changes'), releases(changelog)[0]!.changes);
    });

    it('images: the image the release pushes (deploy/’s), at appVersion, for the daemon and the workers', () => {
      const images = annotation<{ name: string; image: string }[]>('images');
      // The chart names no default image (image.repository is required: nothing is published
      // before a release), and the workers' empty repository means the daemon's.
      assert.equal(values.image.repository, '');
      assert.equal(values.erase.worker.image.repository, '', 'one image for both');
      const kust = yamlOf<{ images: { name: string; newName: string }[] }>('deploy/kustomization.yaml');
      const released = kust.images.find((i) => i.name === 'inv')!.newName;
      assert.deepEqual(
        images.map((i) => i.image),
        [`${released}:${chart.appVersion}`],
      );
    });

    it('crds: the kinds, names and versions of crds/', () => {
      const dir = path.join(repoRoot, 'charts', 'inv', 'crds');
      const crds = fs
        .readdirSync(dir)
        .map(
          (f) =>
            parse(fs.readFileSync(path.join(dir, f), 'utf8')) as {
              metadata: { name: string };
              spec: { names: { kind: string }; versions: { name: string; storage: boolean }[] };
            },
        )
        .map((c) => ({
          kind: c.spec.names.kind,
          name: c.metadata.name,
          version: c.spec.versions.find((x) => x.storage)!.name,
        }));
      const listed = annotation<{ kind: string; name: string; version: string }[]>('crds').map(
        ({ kind, name, version }) => ({ kind, name, version }),
      );
      const byName = (a: { name: string }, b: { name: string }) => a.name.localeCompare(b.name);
      assert.deepEqual(listed.sort(byName), crds.sort(byName));
    });

    it('license and links: package.json’s license, links at this version’s tag', () => {
      assert.equal(chart.annotations['artifacthub.io/license'], pkg.license);
      const links = annotation<{ name: string; url: string }[]>('links');
      for (const l of links.filter((x) => x.url.includes('/blob/')))
        assert.ok(l.url.includes(`/blob/v${v}/`), `${l.name}: ${l.url}`);
      assert.ok(links.some((l) => l.name === 'support'));
    });
  });
});
