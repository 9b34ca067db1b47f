// Image CR names: valid DNS-1123 subdomains, readable, stable, and distinct per normalized ref.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { imageResourceName } from '../../../src/core/inventory/naming.js';
import { normalizeRef } from '../../../src/core/refs/normalize.js';

const DNS1123_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const hex64 = '0123456789abcdef'.repeat(4);

function assertValid(name: string): void {
  assert.ok(name.length <= 253, `${name.length} > 253`);
  assert.match(name, DNS1123_SUBDOMAIN);
}

const hash10 = (s: string) => createHash('sha256').update(s).digest('hex').slice(0, 10);

describe('imageResourceName', () => {
  it('is a readable slug plus the first 10 hex of sha256(normalized)', () => {
    const ref = 'docker.io/library/nginx:1.25';
    assert.equal(imageResourceName(ref), `nginx-1.25-${hash10(ref)}`);
    assert.equal(
      imageResourceName('docker.io/bitnami/redis:7'),
      `bitnami-redis-7-${hash10('docker.io/bitnami/redis:7')}`,
    );
    assert.equal(
      imageResourceName('registry.k8s.io/pause:3.10'),
      `registry.k8s.io-pause-3.10-${hash10('registry.k8s.io/pause:3.10')}`,
    );
  });

  it('keeps the repository name visible', () => {
    assert.match(imageResourceName('docker.io/library/nginx:1.25'), /nginx/);
    assert.match(imageResourceName(`docker.io/library/nginx@sha256:${hex64}`), /^nginx-sha256-0123456789ab-/);
    assert.match(imageResourceName('[fc00::1]:5000/docker:latest'), /^fc00-1-5000-docker-latest-/);
  });

  it('is stable across calls', () => {
    const ref = 'quay.io/org/app:v1';
    assert.equal(imageResourceName(ref), imageResourceName(ref));
    assert.equal(imageResourceName(ref), `quay.io-org-app-v1-${hash10(ref)}`);
  });

  it('keeps refs that slug alike apart through the hash', () => {
    const alike = [
      'docker.io/library/app:v1',
      'docker.io/library/app:V1',
      'docker.io/library/app:v_1',
      'docker.io/library/app:v-1',
      'docker.io/library/app-v1:latest',
      'docker.io/library/app:v1-latest',
    ];
    const names = new Set(alike.map(imageResourceName));
    assert.equal(names.size, alike.length);
  });

  it('truncates long refs to 253, keeping the last component, the tag and the hash', () => {
    const path = `${'segment-'.repeat(30)}x/${'deep/'.repeat(8)}myapp`;
    const ref = `registry.example.com/${path}:v1.2.3`;
    const name = imageResourceName(ref);
    assertValid(name);
    assert.ok(name.length >= 250, `${name.length}`); // a cut that lands on a separator drops it
    assert.ok(name.endsWith(`-myapp-v1.2.3-${hash10(ref)}`), name);
    assert.ok(name.startsWith('registry.example.com-segment'), name);
  });

  it('truncates a tail that alone is too long, never the hash', () => {
    const ref = `example.com/${'a'.repeat(200)}:${'T'.repeat(128)}`;
    assert.ok(normalizeRef(ref).ok);
    const name = imageResourceName(ref);
    assertValid(name);
    assert.ok(name.startsWith('a'.repeat(200)));
    assert.ok(name.endsWith(`-${hash10(ref)}`));
  });

  it('never leaves a separator next to a cut or a dot', () => {
    // The cut falls right after a '.' or '-' in these; the result must still be valid.
    for (let n = 180; n < 260; n++) {
      const ref = `example.com/${'ab.-'.repeat(n).slice(0, n)}b/app:v.1`;
      assertValid(imageResourceName(ref));
    }
  });

  it('falls back to the bare hash when nothing readable is left', () => {
    assert.equal(imageResourceName('::@@'), hash10('::@@'));
    assertValid(imageResourceName(''));
  });

  it('property: many refs give valid, distinct, stable names', () => {
    const domains = ['', 'docker.io/', 'quay.io/', 'localhost:5000/', '[::1]:5000/', 'Reg.Example.COM:443/'];
    const paths = [
      'a',
      'nginx',
      'org/app',
      'a_b/c__d',
      'x-y--z/w.v',
      `${'p'.repeat(120)}/${'q'.repeat(120)}`,
    ];
    const suffixes = [
      '',
      ':v1',
      ':V1',
      ':v_1',
      ':latest',
      `@sha256:${hex64}`,
      `:t@sha512:${hex64}${hex64}`,
      `:${'z'.repeat(128)}`,
    ];
    const seen = new Map<string, string>();
    for (const d of domains) {
      for (const p of paths) {
        for (const s of suffixes) {
          const r = normalizeRef(`${d}${p}${s}`);
          if (!r.ok) continue;
          const ref = r.ref.normalized;
          const name = imageResourceName(ref);
          assertValid(name);
          assert.equal(imageResourceName(ref), name);
          const last = p
            .slice(p.lastIndexOf('/') + 1)
            .slice(0, 20)
            .replace(/[^a-z0-9]/g, '');
          assert.ok(name.replace(/[-.]/g, '').includes(last), `${name} should show ${last}`);
          const prev = seen.get(name);
          assert.ok(prev === undefined || prev === ref, `${ref} and ${prev} both named ${name}`);
          seen.set(name, ref);
        }
      }
    }
    assert.ok(seen.size > 200, `${seen.size}`);
  });
});
