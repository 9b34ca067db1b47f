// Exclusion patterns for node-side removal: normalization of the pattern, `*` semantics, and
// matching against every alias of an image.
import assert from 'node:assert/strict';
import {
  compileExclusion,
  globMatch,
  matchesExclusion,
  type ExclusionMatcher,
} from '../../../src/core/refs/exclusion.js';

const hex64 = 'fedcba9876543210'.repeat(4);
const other64 = '0123456789abcdef'.repeat(4);

function compile(pattern: string): ExclusionMatcher {
  const r = compileExclusion(pattern);
  assert.ok(r.ok, `expected ${pattern} to compile, got ${r.ok ? '' : r.reason}`);
  return r.matcher;
}

/** Does `pattern` exclude an image with these aliases? */
function excludes(pattern: string, ...aliases: string[]): boolean {
  return matchesExclusion([compile(pattern)], aliases) === pattern;
}

describe('globMatch', () => {
  const cases: [string, string, boolean][] = [
    ['abc', 'abc', true],
    ['abc', 'abcd', false],
    ['*', '', true],
    ['*', 'anything', true],
    ['a*', 'a', true],
    ['a*', 'ba', false],
    ['*a', 'ba', true],
    ['*a', 'ab', false],
    ['a*b*c', 'abc', true],
    ['a*b*c', 'aXbYbZc', true],
    ['a*b*c', 'aXbYc', true],
    ['a*b*c', 'acb', false],
    ['a**b', 'ab', true],
    ['ab*ba', 'aba', false], // prefix and suffix may not overlap
    ['*ab*ab*', 'xabyab', true],
    ['*ab*ab*', 'xaby', false],
  ];
  for (const [glob, text, want] of cases) {
    it(`${glob} ~ ${text} = ${want}`, () => assert.equal(globMatch(glob, text), want));
  }
  it('stays fast on adversarial globs and texts', () => {
    const glob = `${'a*'.repeat(500)}b`;
    const text = 'a'.repeat(4000);
    const t0 = process.hrtime.bigint();
    assert.equal(globMatch(glob, text), false);
    assert.ok(Number(process.hrtime.bigint() - t0) / 1e6 < 50);
  });
});

describe('compileExclusion', () => {
  const globs: [string, string[]][] = [
    ['busybox', ['docker.io/library/busybox:latest']],
    ['nginx:1.25', ['docker.io/library/nginx:1.25']],
    ['nginx:*', ['docker.io/library/nginx:*', 'docker.io/library/nginx@*']],
    ['docker.io/library/*', ['docker.io/library/*']],
    ['docker.io/*', ['docker.io/*']],
    ['docker.io/ngi*', ['docker.io/library/ngi*']],
    ['index.docker.io/ngi*', ['docker.io/library/ngi*']],
    ['ngi*', ['docker.io/library/ngi*']],
    ['bitnami/*', ['docker.io/bitnami/*']],
    ['quay.io/org/app:*', ['quay.io/org/app:*', 'quay.io/org/app@*']],
    ['quay.io/org/app:v1.*', ['quay.io/org/app:v1.*']],
    ['quay.io/org/*/app', ['quay.io/org/*/app:latest']],
    ['localhost:5000/app:*', ['localhost:5000/app:*', 'localhost:5000/app@*']],
    ['registry.k8s.io/pause:*', ['registry.k8s.io/pause:*', 'registry.k8s.io/pause@*']],
    ['*.gcr.io/app:*', ['*.gcr.io/app:*']],
    ['registry.*.io/app:v1', ['registry.*.io/app:v1']],
    ['*', ['*']],
    ['**', ['*']],
    ['*:latest', ['*:latest']],
    [`sha256:${hex64}`, [`sha256:${hex64}`, `*@sha256:${hex64}`]],
    [hex64, [`sha256:${hex64}`, `*@sha256:${hex64}`]],
    ['sha256:fedc*', ['sha256:fedc*', '*@sha256:fedc*']],
    [`app@sha256:${hex64}`, [`docker.io/library/app@sha256:${hex64}`]],
    [
      `app:v1@sha256:${hex64}`,
      [`docker.io/library/app:v1@sha256:${hex64}`, `docker.io/library/app@sha256:${hex64}`],
    ],
    ['app@sha256:fe*', ['docker.io/library/app@sha256:fe*']],
  ];
  for (const [pattern, want] of globs) {
    it(`${pattern.slice(0, 40)} -> ${want.join(' | ').slice(0, 80)}`, () => {
      assert.deepEqual(compile(pattern).globs, want);
    });
  }

  const invalid: [string, RegExp][] = [
    ['', /empty pattern/],
    ['   ', /empty pattern/],
    ['nginx *', /whitespace in pattern/],
    [' nginx', /whitespace in pattern/],
    [`a${'*'.repeat(5000)}`, /pattern too long/],
    ['Nginx', /uppercase/],
    ['docker.io/Library/*', /uppercase/],
    ['nginx:*!', /invalid character in pattern/],
    ['ng%nx:*', /invalid character/],
    ['nginx:.*', /invalid tag/],
    ['docker.io//*', /empty path component/],
    ['-bad.io/app:*', /registry host/],
    ['app@md5:*', /unsupported digest algorithm/],
    ['app@sha256:xyz*', /digest pattern/],
    ['app:v*@sha256', /digest must be/],
    ['sha256:XYZ*', /image ID pattern/],
    [hex64.toUpperCase(), /lowercase/],
    [`app@sha256:${hex64.slice(2)}`, /sha256:<64 hex>/],
  ];
  for (const [pattern, reason] of invalid) {
    it(`rejects ${JSON.stringify(pattern.slice(0, 30))}`, () => {
      const r = compileExclusion(pattern);
      assert.ok(!r.ok);
      assert.match(r.reason, reason);
    });
  }
});

describe('matchesExclusion', () => {
  it('localhost:5000/app:* matches only app on that registry and port', () => {
    assert.ok(excludes('localhost:5000/app:*', 'localhost:5000/app:v1'));
    assert.ok(!excludes('localhost:5000/app:*', 'localhost:5000/app2:v1'));
    assert.ok(!excludes('localhost:5000/app:*', 'localhost:5001/app:v1'));
    // `*` matches any run of characters, but the literal ':' must directly follow `app`.
    assert.ok(!excludes('localhost:5000/app:*', 'localhost:5000/app/sub:v1'));
    assert.ok(!excludes('localhost:5000/app:*', 'localhost:5000/app/sub@sha256:' + hex64));
  });
  it('name:* also protects an image known only by digest', () => {
    assert.ok(excludes('registry.k8s.io/pause:*', `registry.k8s.io/pause@sha256:${hex64}`));
    assert.ok(excludes('registry.k8s.io/pause:*', 'registry.k8s.io/pause:3.10'));
    assert.ok(!excludes('registry.k8s.io/pause:*', 'registry.k8s.io/pause2:3.10'));
  });
  it('familiar patterns match normalized aliases', () => {
    assert.ok(excludes('nginx:*', 'docker.io/library/nginx:1.25'));
    assert.ok(excludes('busybox', 'docker.io/library/busybox:latest'));
    assert.ok(!excludes('busybox', 'docker.io/library/busybox:1.36'));
    assert.ok(excludes('docker.io/library/*', 'docker.io/library/redis:7'));
    assert.ok(!excludes('docker.io/library/*', 'docker.io/bitnami/redis:7'));
    assert.ok(excludes('docker.io/*', 'docker.io/bitnami/redis:7'));
    assert.ok(excludes('quay.io/org/app:*', 'quay.io/org/app:v1'));
    assert.ok(!excludes('quay.io/org/app:*', 'quay.io/other/app:v1'));
  });
  it('normalizes familiar aliases too', () => {
    assert.ok(excludes('docker.io/library/nginx:1.25', 'nginx:1.25'));
    assert.ok(excludes(`sha256:${hex64}`, hex64));
  });
  it('matches image IDs, and digest refs with that digest', () => {
    const aliases = [
      'docker.io/library/nginx:1.25',
      `docker.io/library/nginx@sha256:${other64}`,
      `sha256:${hex64}`,
    ];
    assert.ok(excludes(`sha256:${hex64}`, ...aliases));
    assert.ok(excludes(hex64, ...aliases));
    assert.ok(excludes(`sha256:${other64}`, ...aliases));
    assert.ok(!excludes(`sha256:${'1'.repeat(64)}`, ...aliases));
    assert.ok(excludes('sha256:fedc*', ...aliases));
  });
  it('a tag+digest pattern matches the digest alias', () => {
    assert.ok(excludes(`nginx:1.25@sha256:${other64}`, `docker.io/library/nginx@sha256:${other64}`));
  });
  it('a leading * spans registries', () => {
    assert.ok(excludes('*/nginx:*', 'quay.io/nginx:1', 'x'));
    assert.ok(excludes('*:latest', 'ghcr.io/a/b:latest'));
    assert.ok(!excludes('*:latest', 'ghcr.io/a/b:v1'));
    assert.ok(excludes('*', 'anything'));
  });
  it('returns the first matching pattern, or undefined', () => {
    const ms = ['quay.io/*', 'nginx:*', 'docker.io/*'].map(compile);
    assert.equal(matchesExclusion(ms, ['docker.io/library/nginx:1']), 'nginx:*');
    assert.equal(matchesExclusion(ms, ['ghcr.io/x:1']), undefined);
    assert.equal(matchesExclusion([], ['docker.io/library/nginx:1']), undefined);
    assert.equal(matchesExclusion(ms, []), undefined);
  });
  it('ignores unparsable aliases except for exact/as-written matching', () => {
    assert.equal(matchesExclusion([compile('*')], ['<none>:<none>']), '*');
    assert.equal(matchesExclusion([compile('nginx:*')], ['<none>:<none>']), undefined);
  });
});
