// normalizeRef against every case in the shared spec (image-refs.md), the limits of each grammar
// rule, and adversarial input that must be refused fast.
import assert from 'node:assert/strict';
import { normalizeRef, parseDigestOrId, type NormalizedRef } from '../../../src/core/refs/normalize.js';

const hex64 = '0123456789abcdef'.repeat(4);
const hex96 = '0123456789abcdef'.repeat(6);
const hex128 = '0123456789abcdef'.repeat(8);

function ok(input: string): NormalizedRef {
  const r = normalizeRef(input);
  assert.ok(r.ok, `expected ${JSON.stringify(input.slice(0, 80))} to be valid, got: ${r.ok ? '' : r.reason}`);
  return r.ref;
}

function rejected(input: string): string {
  const r = normalizeRef(input);
  assert.ok(
    !r.ok,
    `expected ${JSON.stringify(input.slice(0, 80))} to be rejected, got ${r.ok ? r.ref.normalized : ''}`,
  );
  assert.ok(r.reason.length > 0);
  return r.reason;
}

describe('normalizeRef', () => {
  describe('spec cases (distribution/reference tests)', () => {
    const cases: [string, string][] = [
      ['busybox', 'docker.io/library/busybox:latest'],
      ['library/busybox', 'docker.io/library/busybox:latest'],
      ['docker.io/busybox', 'docker.io/library/busybox:latest'],
      ['index.docker.io/library/debian', 'docker.io/library/debian:latest'],
      ['gcr.io/library/busybox', 'gcr.io/library/busybox:latest'],
      ['library/foo/bar', 'docker.io/library/foo/bar:latest'],
      ['dmcgowan/myapp', 'docker.io/dmcgowan/myapp:latest'],
      ['localhost/fooo', 'localhost/fooo:latest'],
      ['LOCALDOMAIN/fooo', 'LOCALDOMAIN/fooo:latest'],
      ['Foo/bar', 'Foo/bar:latest'],
      ['test_com/foo', 'docker.io/test_com/foo:latest'],
      ['test-com:8080/foo', 'test-com:8080/foo:latest'],
      ['127.0.0.1:8000/private/moonbase', '127.0.0.1:8000/private/moonbase:latest'],
      ['xn--n3h.com/foo', 'xn--n3h.com/foo:latest'],
      ['[fc00::1]:5000/docker', '[fc00::1]:5000/docker:latest'],
      [`busybox:latest@sha256:${hex64}`, `docker.io/library/busybox:latest@sha256:${hex64}`],
    ];
    for (const [input, normalized] of cases) {
      it(`${input.slice(0, 40)} -> ${normalized.slice(0, 50)}`, () => {
        assert.equal(ok(input).normalized, normalized);
      });
    }

    const rejects: [string, RegExp][] = [
      ['[fc00::1]:5000', /./],
      ['fc00::1:5000/debian', /registry/],
      ['[fe80::1%eth0]:5000/debian', /IPv6/],
      ['[2001:db8:3:4::192.0.2.33]:5000/debian', /IPv6/],
      ['docker/Docker', /uppercase letters in repository name/],
      ['-docker', /start and end/],
      ['docker///docker', /empty path component/],
      ['dock..er/docker', /registry host/],
      ['docker-/docker', /start and end/],
      ['____/____', /start and end/],
      ['docker/', /empty path component/],
      [hex64, /bare 64-hex identifier is not a name/],
      [`example.com/${'a'.repeat(256)}`, /name too long \(max 255\)/],
    ];
    for (const [input, reason] of rejects) {
      it(`rejects ${input.slice(0, 50)}`, () => {
        assert.match(rejected(input), reason);
      });
    }
  });

  describe('components of the result', () => {
    it('splits domain, path, tag and digest', () => {
      assert.deepEqual(ok(`quay.io/org/app:v1@sha256:${hex64}`), {
        domain: 'quay.io',
        path: 'org/app',
        tag: 'v1',
        digest: `sha256:${hex64}`,
        name: 'quay.io/org/app',
        normalized: `quay.io/org/app:v1@sha256:${hex64}`,
      });
    });
    it('adds latest as the tag only when there is neither tag nor digest', () => {
      assert.equal(ok('nginx').tag, 'latest');
      const d = ok(`nginx@sha256:${hex64}`);
      assert.equal(d.tag, undefined);
      assert.equal(d.normalized, `docker.io/library/nginx@sha256:${hex64}`);
      assert.equal(ok('nginx:1.25').normalized, 'docker.io/library/nginx:1.25');
    });
    it('keeps the library quirk: a host-looking first component that is no host becomes the path', () => {
      // splitDockerDomain calls `a_b.c` a host (it has a dot), the grammar does not; the whole
      // name then parses as a remote name with an empty domain (checked against the Go library).
      const r = ok('a_b.c/foo');
      assert.equal(r.domain, '');
      assert.equal(r.path, 'a_b.c/foo');
      assert.equal(r.normalized, 'a_b.c/foo:latest');
    });
    it('is idempotent on its own output', () => {
      for (const s of ['busybox', 'Foo/bar', `x.io/a:b@sha512:${hex128}`, '[::1]:5000/a/b:c', 'a_b.c/foo']) {
        const once = ok(s).normalized;
        assert.equal(ok(once).normalized, once);
      }
    });
  });

  describe('domains', () => {
    const valid: [string, string][] = [
      ['localhost/app', 'localhost/app:latest'],
      ['localhost:5000/app:v1', 'localhost:5000/app:v1'],
      ['index.docker.io/busybox', 'docker.io/library/busybox:latest'],
      ['docker.io/library/busybox', 'docker.io/library/busybox:latest'],
      ['Registry.Example.COM/app', 'Registry.Example.COM/app:latest'],
      ['example.com:443/a/b/c', 'example.com:443/a/b/c:latest'],
      ['[::1]/app', '[::1]/app:latest'],
      ['[::]:5000/app', '[::]:5000/app:latest'],
      ['[FC00::1]/app', '[FC00::1]/app:latest'],
      ['a-b.example/app', 'a-b.example/app:latest'],
      ['1.2.3.4/app', '1.2.3.4/app:latest'],
      // No slash: never a host, even if it looks like one (the library's documented FIXME).
      ['localhost', 'docker.io/library/localhost:latest'],
      ['localhost:5000', 'docker.io/library/localhost:5000'],
      ['example.com', 'docker.io/library/example.com:latest'],
      // A lowercase first component without '.' or ':' is a Docker Hub namespace.
      ['myregistry/app', 'docker.io/myregistry/app:latest'],
    ];
    for (const [input, normalized] of valid) {
      it(`${input} -> ${normalized}`, () => assert.equal(ok(input).normalized, normalized));
    }
    const invalid: [string, RegExp][] = [
      ['-bad.com/app', /registry host/],
      ['bad-.com/app', /registry host/],
      ['.com/app', /registry host/],
      ['example.com:/app', /port/],
      ['example.com:80a/app', /port/],
      ['example.com:80:90/app', /port/],
      ['[]:5000/app', /IPv6/],
      ['[]/app', /invalid character/], // no '.' or ':': a Docker Hub namespace, not a host
      ['[::1/app', /IPv6/],
      ['[::1]x/app', /port/],
      ['Foo_/bar', /registry host/],
      ['/app', /empty path component/],
      ['localhost:5000/App', /uppercase/],
    ];
    for (const [input, reason] of invalid) {
      it(`rejects ${input}`, () => assert.match(rejected(input), reason));
    }
  });

  describe('repository names', () => {
    it('accepts every separator form', () => {
      for (const s of ['a.b', 'a_b', 'a__b', 'a-b', 'a---b', 'a0.b1_c2__d3-e4', 'a/b/c/d']) ok(s);
    });
    it('rejects bad separators', () => {
      for (const s of ['a..b', 'a___b', 'a._b', 'a-.b', 'a_-b', 'a.-b']) {
        assert.match(rejected(s), /separator/);
      }
    });
    it('rejects characters outside the grammar', () => {
      for (const s of ['a+b', 'a%b', 'café', 'a\u0000b', 'a"b'])
        assert.match(rejected(s), /invalid character|registry/);
    });
    it('never lowercases: uppercase in the path is an error', () => {
      for (const s of ['Nginx', 'docker.io/Library/nginx', 'quay.io/Org/app:v1']) {
        assert.equal(rejected(s), 'uppercase letters in repository name');
      }
    });
    it('allows a remote name of exactly 255 characters and rejects 256', () => {
      const p255 = `${'a'.repeat(127)}/${'b'.repeat(127)}`;
      assert.equal(p255.length, 255);
      assert.equal(ok(`example.com/${p255}`).path, p255);
      assert.match(rejected(`example.com/${p255}b`), /name too long \(max 255\)/);
    });
    it('counts library/ toward the 255 limit, like the library', () => {
      ok('a'.repeat(247)); // library/ + 247 = 255
      assert.match(rejected('a'.repeat(248)), /name too long/);
    });
    it('does not count the domain toward the limit', () => {
      ok(`${'h'.repeat(60)}.example.com/${'a'.repeat(255)}`);
    });
  });

  describe('tags', () => {
    it('accepts word characters, dots and dashes, keeping case', () => {
      assert.equal(ok('app:V1.2-rc_3').tag, 'V1.2-rc_3');
      assert.equal(ok('app:_x').tag, '_x');
      assert.equal(ok('app:9').tag, '9');
    });
    it('accepts a 128-character tag and rejects 129', () => {
      assert.equal(ok(`app:${'t'.repeat(128)}`).tag, 't'.repeat(128));
      assert.match(rejected(`app:${'t'.repeat(129)}`), /tag too long \(max 128\)/);
    });
    it('rejects tags starting with . or -, empty tags and bad characters', () => {
      assert.match(rejected('app:.x'), /invalid tag/);
      assert.match(rejected('app:-x'), /invalid tag/);
      assert.match(rejected('app:'), /empty tag/);
      assert.match(rejected('app:a+b'), /invalid tag/);
      assert.match(rejected('app:a:b'), /./);
    });
    it('a ":" before the last "/" is a port, not a tag', () => {
      const r = ok('host:5000/app');
      assert.equal(r.domain, 'host:5000');
      assert.equal(r.tag, 'latest');
    });
    it('rejects a tag that contains a slash', () => {
      assert.ok(!normalizeRef('foo:bar/baz').ok);
    });
  });

  describe('digests', () => {
    it('accepts sha256, sha384 and sha512 with their exact lengths', () => {
      assert.equal(ok(`app@sha256:${hex64}`).digest, `sha256:${hex64}`);
      assert.equal(ok(`app@sha384:${hex96}`).digest, `sha384:${hex96}`);
      assert.equal(ok(`app@sha512:${hex128}`).digest, `sha512:${hex128}`);
    });
    it('rejects wrong lengths', () => {
      assert.equal(rejected(`app@sha256:${hex64.slice(1)}`), 'digest must be sha256:<64 hex>');
      assert.equal(rejected(`app@sha256:${hex64}0`), 'digest must be sha256:<64 hex>');
      assert.equal(rejected(`app@sha384:${hex64}`), 'digest must be sha384:<96 hex>');
      assert.equal(rejected(`app@sha512:${hex96}`), 'digest must be sha512:<128 hex>');
    });
    it('rejects uppercase hex (go-digest accepts lowercase only)', () => {
      assert.match(rejected(`app@sha256:${hex64.toUpperCase()}`), /lowercase/);
    });
    it('rejects unregistered algorithms and malformed digests', () => {
      assert.match(rejected(`app@md5:${hex64.slice(0, 32)}`), /unsupported digest algorithm/);
      assert.match(rejected(`app@sha1:${hex64.slice(0, 40)}`), /unsupported digest algorithm/);
      assert.match(rejected(`app@SHA256:${hex64}`), /unsupported digest algorithm|uppercase/);
      assert.match(rejected('app@'), /digest must be/);
      assert.match(rejected(`app@:${hex64}`), /digest must be/);
      assert.match(rejected(`app@sha256`), /digest must be/);
      assert.match(rejected(`app@sha256:${hex64}@sha256:${hex64}`), /digest/);
      assert.match(rejected(`app@sha256:${hex64.slice(0, 60)}zzzz`), /sha256:<64 hex>/);
    });
    it('keeps both tag and digest', () => {
      const r = ok(`quay.io/a/b:v2@sha512:${hex128}`);
      assert.equal(r.tag, 'v2');
      assert.equal(r.digest, `sha512:${hex128}`);
      assert.equal(r.normalized, `quay.io/a/b:v2@sha512:${hex128}`);
    });
    it('rejects a digest with no name', () => {
      assert.ok(!normalizeRef(`@sha256:${hex64}`).ok);
    });
  });

  describe('empty, whitespace and length', () => {
    it('rejects empty and blank input as "empty reference"', () => {
      for (const s of ['', ' ', '\t\n', '   ']) assert.equal(rejected(s), 'empty reference');
    });
    it('rejects any whitespace instead of trimming it', () => {
      for (const s of [' nginx', 'nginx ', 'ngi nx', 'nginx:1 ', '\tnginx', 'nginx\n', 'nginx\u00a0']) {
        assert.equal(rejected(s), 'whitespace in reference');
      }
    });
    it('rejects input over the 4096-character cap before parsing', () => {
      assert.equal(rejected(`example.com/${'a'.repeat(5000)}`), 'reference too long (max 4096)');
    });
    it('refuses non-strings from untyped callers', () => {
      assert.deepEqual(normalizeRef(undefined as unknown as string), {
        ok: false,
        reason: 'reference is not a string',
      });
    });
    it('rejects a bare 64-hex string but accepts 63 or 65 hex characters as names', () => {
      assert.match(rejected(hex64), /bare 64-hex/);
      assert.equal(ok(hex64.slice(1)).normalized, `docker.io/library/${hex64.slice(1)}:latest`);
      assert.equal(ok(`${hex64}a`).normalized, `docker.io/library/${hex64}a:latest`);
    });
  });

  describe('adversarial input is rejected in under 1 ms', () => {
    const shapes: [string, string][] = [
      ['a x 10000', 'a'.repeat(10000)],
      ['a- x 5000', 'a-'.repeat(5000)],
      ['a/ x 5000 + !', `${'a/'.repeat(5000)}!`],
      ['a: x 5000', 'a:'.repeat(5000)],
      ['a. x 5000', 'a.'.repeat(5000)],
      ['a_ x 5000 + A', `${'a_'.repeat(5000)}A`],
      ['[: x 5000', '[:'.repeat(5000)],
      ['a@ x 5000', 'a@'.repeat(5000)],
      ['host/ + a-- x 3330 + !', `host/${'a--'.repeat(3330)}!`],
      ['4000 valid-looking + 6000 bad', `${'a'.repeat(4000)}${'-'.repeat(6000)}`],
    ];
    // Capped shapes as well: just under the cap, the scanner itself must be linear.
    const capped: [string, string][] = [
      ['a- x 2047 + !', `${'a-'.repeat(2047)}!`],
      ['a/ x 2047 + !', `${'a/'.repeat(2047)}!`],
      ['a._ x 1365', 'a._'.repeat(1365)],
      ['example.com/ + a__ x 1350 + A', `example.com/${'a__'.repeat(1350)}A`],
      ['x: + 4090 word chars + !', `x:${'w'.repeat(4090)}!`],
    ];
    for (const [label, input] of [...shapes, ...capped]) {
      it(label, () => {
        assert.ok(!normalizeRef(input).ok);
        const times: number[] = [];
        for (let i = 0; i < 15; i++) {
          const t0 = process.hrtime.bigint();
          normalizeRef(input);
          times.push(Number(process.hrtime.bigint() - t0) / 1e6);
        }
        times.sort((a, b) => a - b);
        const median = times[Math.floor(times.length / 2)]!;
        assert.ok(median < 1, `median ${median.toFixed(3)} ms`);
      });
    }
  });
});

describe('parseDigestOrId', () => {
  it('recognizes sha256:<64 hex> and a bare 64-hex string as image IDs', () => {
    assert.deepEqual(parseDigestOrId(`sha256:${hex64}`), { kind: 'id', id: `sha256:${hex64}` });
    assert.deepEqual(parseDigestOrId(hex64), { kind: 'id', id: `sha256:${hex64}` });
  });
  it('checks IDs before references (sha256:<hex> would otherwise be a valid tagged ref)', () => {
    assert.ok(normalizeRef(`sha256:${hex64}`).ok);
    assert.equal(parseDigestOrId(`sha256:${hex64}`).kind, 'id');
  });
  it('refuses uppercase IDs rather than lowercasing them', () => {
    assert.deepEqual(parseDigestOrId(hex64.toUpperCase()), {
      kind: 'invalid',
      reason: 'image ID must be lowercase hex',
    });
  });
  it('falls back to a normalized reference', () => {
    const r = parseDigestOrId('nginx:1.25');
    assert.equal(r.kind, 'ref');
    assert.equal(r.kind === 'ref' && r.ref.normalized, 'docker.io/library/nginx:1.25');
    const d = parseDigestOrId(`nginx@sha256:${hex64}`);
    assert.equal(d.kind === 'ref' && d.ref.normalized, `docker.io/library/nginx@sha256:${hex64}`);
  });
  it('reports invalid input with a reason', () => {
    assert.deepEqual(parseDigestOrId('Nginx'), {
      kind: 'invalid',
      reason: 'uppercase letters in repository name',
    });
    assert.deepEqual(parseDigestOrId(''), { kind: 'invalid', reason: 'empty reference' });
    assert.equal(parseDigestOrId(`sha256:${hex64.slice(1)}`).kind, 'ref'); // 63 hex: just a tag
  });
});
