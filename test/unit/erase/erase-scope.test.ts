// A scoped prune (--only, --except; spec.scope) as pure logic: the patterns checked up front with
// the exclusion engine's reasons, which images are in scope, what the worker makes of the `*`
// decisions, and the request's rules in the flags' and the spec's words.
import assert from 'node:assert/strict';
import {
  compileScope,
  FLAG_WORDS,
  MAX_SCOPE_PATTERNS,
  outOfScope,
  scopePatternProblem,
  scopeProblems,
} from '../../../src/core/refs/scope.js';
import { applyScope } from '../../../src/core/noderemove/remove/scoped.js';
import { narrowingProblems, summarizeTargets } from '../../../src/core/erase/spec/images.js';
import { policyProblem } from '../../../src/core/erase/config/policy.js';
import { completeNarrowing } from '../../../src/cli/erase/scope-flags.js';
import type { Decision } from '../../../src/core/noderemove/types.js';
import { specProblem } from '../../../src/core/erase/imagejob/admission/trust.js';
import { DEFAULT_CONFIG } from '../../../src/core/erase/config/config.js';
import type { ImageJob, ImageList } from '../../../src/core/erase/api/types.js';

const aliases = (ref: string, id = 'sha256:' + 'a'.repeat(64)) => [ref, id];

describe('scope patterns (the exclusion grammar, one engine)', () => {
  it('refuses an empty pattern, a pattern of only *, and one no reference can match, with the reason', () => {
    assert.match(scopePatternProblem('', 'only')!, /empty pattern matches no image/);
    assert.match(scopePatternProblem('  ', 'except')!, /empty pattern/);
    assert.match(scopePatternProblem('*', 'only')!, /matches every image: drop it/);
    assert.match(scopePatternProblem('**', 'except')!, /every image out of scope/);
    assert.match(scopePatternProblem('ci.example.com/App*', 'only')!, /no image reference can match it/);
    assert.match(
      scopePatternProblem('sha256:xyz*', 'only')!,
      /no image reference can match it: image ID pattern/,
    );
    assert.match(scopePatternProblem('app:bad tag', 'only')!, /no image reference can match it: whitespace/);
    assert.match(scopePatternProblem('a'.repeat(256), 'only')!, /longer than 255/);
    for (const ok of ['ci.example.com/**', 'app:*', '*/nginx:*', 'registry.local:5000/team/*', 'redis'])
      assert.equal(scopePatternProblem(ok, 'only'), undefined, ok);
  });

  it("names every problem with its list, in the caller's words", () => {
    const problems = scopeProblems({ only: ['', 'ok/*'], except: ['*'] }, FLAG_WORDS);
    assert.deepEqual(problems, [
      '--only "": an empty pattern matches no image',
      '--except "*": a pattern of only * puts every image out of scope: nothing could be removed',
    ]);
    assert.match(scopeProblems({ only: [] })[0]!, /spec\.scope\.only: give at least one pattern/);
    const many = Array.from({ length: MAX_SCOPE_PATTERNS + 1 }, (_, i) => `r${i}/*`);
    assert.match(scopeProblems({ except: many })[0]!, /65 patterns, at most 64/);
  });

  it('an image is in scope when it matches an only pattern and no except pattern', () => {
    const s = compileScope({ only: ['ci.example.com/**'], except: ['ci.example.com/keep:*'] });
    assert.equal(outOfScope(s, aliases('ci.example.com/team/build:7')), undefined);
    assert.equal(
      outOfScope(s, aliases('docker.io/library/nginx:1.25')),
      'matches no only pattern (ci.example.com/**)',
    );
    assert.equal(
      outOfScope(s, aliases('ci.example.com/keep:1')),
      'matches except pattern ci.example.com/keep:*',
    );
    // A digest-only image of the repository: `keep:*` means any version, digests too.
    assert.match(outOfScope(s, [`ci.example.com/keep@sha256:${'b'.repeat(64)}`])!, /except/);
    // Written the way people write images: `nginx` is docker.io/library/nginx:latest.
    const hub = compileScope({ except: ['nginx'] });
    assert.match(outOfScope(hub, aliases('docker.io/library/nginx:latest'))!, /except pattern nginx/);
    assert.equal(outOfScope(hub, aliases('docker.io/library/nginx:1.25')), undefined);
  });

  it('the worker keeps every * decision about an image out of scope, whatever decide made of it; named targets are not scoped', () => {
    const d = (target: string, ref: string, outcome: Decision['outcome'], action: Decision['action']) => ({
      target,
      imageId: `sha256:${ref.length.toString(16).padStart(64, '0')}`,
      aliases: [ref],
      size: 1,
      action,
      outcome,
      detail: '',
    });
    const s = compileScope({ only: ['ci.example.com/**'] });
    const out = applyScope(
      [
        d('*', 'ci.example.com/a:1', 'remove', 'remove'),
        d('*', 'docker.io/library/b:1', 'remove', 'remove'),
        d('*', 'docker.io/library/cc:1', 'in-use', 'keep'),
        d('docker.io/library/dd:1', 'docker.io/library/dd:1', 'remove', 'remove'),
      ],
      s,
    );
    assert.deepEqual(
      out.map((x) => [x.outcome, x.action]),
      [
        ['remove', 'remove'],
        ['out-of-scope', 'keep'],
        ['out-of-scope', 'keep'],
        ['remove', 'remove'],
      ],
    );
    assert.equal(out[1]!.detail, 'matches no only pattern (ci.example.com/**)');
  });
});

describe('a scoped request: the flags and the spec', () => {
  it("goes with a * prune alone, in the flags' words", () => {
    const r = completeNarrowing(
      { only: ['ci.example.com/**,other.example.com/*'], except: undefined, 'keep-newest': undefined },
      ['*'],
    );
    assert.deepEqual(r.problems, []);
    assert.deepEqual(r.spec, { scope: { only: ['ci.example.com/**', 'other.example.com/*'] } });
    const named = completeNarrowing({ only: ['a/*'], except: undefined, 'keep-newest': undefined }, [
      'nginx',
    ]);
    assert.deepEqual(named.problems, [
      '--only, --except and --keep-newest go with --all-unused or --vulnerable alone',
    ]);
  });

  it("refuses what the ImageList controller refuses, in the spec's words", () => {
    assert.deepEqual(narrowingProblems({ images: ['*'], scope: { only: ['*'] } }), [
      'spec.scope.only "*": a pattern of only * matches every image: drop it for a plain prune of every unused image',
    ]);
    assert.match(
      narrowingProblems({ images: ['nginx'], scope: { except: ['a/*'] } })[0]!,
      /narrow a "\*" prune/,
    );
  });

  it('the policy gate applies to a scoped prune as to any *: allowPruneAll false refuses it', () => {
    const spec = { images: ['*'], scope: { only: ['ci.example.com/**'] } };
    assert.match(
      policyProblem(spec, { allowPruneAll: false, allowUnprotected: true })!,
      /allowPruneAll is false/,
    );
    assert.equal(policyProblem(spec, { allowPruneAll: true, allowUnprotected: true }), undefined);
  });

  it('the IMAGES column says what narrows a * prune', () => {
    assert.equal(
      summarizeTargets({
        images: ['*'],
        scope: { only: ['ci.example.com/**'], except: ['ci.example.com/base:*'] },
        keepNewest: 2,
      }),
      '* (only ci.example.com/**; except ci.example.com/base:*; keep newest 2)',
    );
    assert.equal(summarizeTargets({ images: ['*'] }), '* (every unused image)');
  });

  it("a job not started yet must ask for its list's scope and keepNewest (a forged job cannot widen them)", () => {
    const list: ImageList = {
      metadata: { name: 'l', uid: 'u1', generation: 1 },
      spec: { images: ['*'], scope: { only: ['ci.example.com/**'] }, keepNewest: 2 },
    };
    const job = (spec: Partial<ImageJob['spec']>): ImageJob => ({
      metadata: { name: 'j' },
      spec: {
        imageList: { name: 'l', uid: 'u1', generation: 1 },
        namespace: 'ns',
        images: ['*'],
        config: DEFAULT_CONFIG,
        ...spec,
      },
    });
    assert.equal(
      specProblem(job({ scope: { only: ['ci.example.com/**'] }, keepNewest: 2 }), list),
      undefined,
    );
    assert.equal(
      specProblem(job({ keepNewest: 1 }), list),
      'its spec differs from what ImageList l asks for (scope, keepNewest)',
    );
  });
});
