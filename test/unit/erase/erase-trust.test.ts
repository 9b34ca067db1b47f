// Pure: what the ImageJob controller accepts as "created by the ImageList controller".
import assert from 'node:assert/strict';
import { ownerProblem, specProblem } from '../../../src/core/erase/imagejob/admission/trust.js';
import type { ImageJob, ImageList, OwnerReference } from '../../../src/core/erase/api/types.js';
import { DEFAULT_CONFIG } from '../../../src/core/erase/config/config.js';

const job = (refs: OwnerReference[] | undefined): ImageJob => ({
  metadata: { name: 'j', ...(refs ? { ownerReferences: refs } : {}) },
  spec: {
    imageList: { name: 'l', uid: 'u1', generation: 1 },
    namespace: 'ns',
    images: ['x'],
    config: DEFAULT_CONFIG,
  },
});
const ref = (over: Partial<OwnerReference> = {}): OwnerReference => ({
  apiVersion: 'erase.imageinventory.dev/v1alpha1',
  kind: 'ImageList',
  name: 'l',
  uid: 'u1',
  controller: true,
  ...over,
});

describe('erase: trusted ImageJobs', () => {
  it('accepts a controller reference to the ImageList the job names', () => {
    assert.equal(ownerProblem(job([ref()])), undefined);
    assert.equal(ownerProblem(job([{ ...ref(), controller: false, uid: 'other' }, ref()])), undefined);
  });

  it('refuses no reference, a non-controller one, another kind or group', () => {
    for (const refs of [
      undefined,
      [ref({ controller: false })],
      [ref({ kind: 'Deployment' })],
      [ref({ apiVersion: 'v1' })],
    ]) {
      assert.match(ownerProblem(job(refs))!, /not created by the ImageList controller/);
    }
  });

  it('refuses a reference that does not match spec.imageList (name or UID)', () => {
    assert.match(ownerProblem(job([ref({ uid: 'u2' })]))!, /does not match spec\.imageList/);
    assert.match(ownerProblem(job([ref({ name: 'other' })]))!, /does not match spec\.imageList/);
  });

  it('a job not started yet asks for exactly what its list asks for', () => {
    const list = (spec: Partial<ImageList['spec']>, generation = 1): ImageList => ({
      metadata: { name: 'l', uid: 'u1', generation },
      spec: { images: ['x'], ...spec },
    });
    const j = (spec: Partial<ImageJob['spec']>): ImageJob => {
      const base = job([ref()]);
      return { ...base, spec: { ...base.spec, ...spec } };
    };
    // Defaults and absent fields compare equal (the ImageList controller writes them so).
    assert.equal(
      specProblem(j({ dryRun: false }), list({ nodeSelector: '', protectInventory: true })),
      undefined,
    );
    assert.equal(
      specProblem(
        j({
          scan: { scanner: 'trivy' },
          rollout: { maxParallel: 2 },
          config: { ...DEFAULT_CONFIG, jobTimeoutSeconds: 60 },
        }),
        list({ scan: { scanner: 'trivy' }, rollout: { maxParallel: 2 }, jobTimeout: '1m' }),
      ),
      undefined,
    );
    // The administrator's default rollout is not the list's to decide.
    assert.equal(specProblem(j({ rollout: { maxParallel: '10%' } }), list({})), undefined);
    assert.equal(
      specProblem(
        j({ images: ['*'], protectInventory: false, scan: { scanner: 'other' } }),
        list({ scan: { scanner: 'trivy' } }),
      ),
      'its spec differs from what ImageList l asks for (images, protectInventory, scan)',
    );
    assert.equal(
      specProblem(j({ config: { ...DEFAULT_CONFIG, jobTimeoutSeconds: 99999 } }), list({ jobTimeout: '1m' })),
      'its spec differs from what ImageList l asks for (jobTimeout)',
    );
    assert.match(
      specProblem(j({}), list({}, 2))!,
      /^made for generation 1 of ImageList l, which is at generation 2/,
    );
    // The job the list's controller made from generation 1, as the list's status says.
    const moved = { ...list({}, 2), status: { lastJob: 'j', lastJobGeneration: 1 } };
    assert.equal(specProblem(j({ images: ['y'] }), moved), undefined);
    assert.match(
      specProblem(j({}), { ...moved, status: { lastJob: 'other', lastJobGeneration: 1 } })!,
      /not the job/,
    );
  });
});
