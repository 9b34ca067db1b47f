// Pure: what the ImageJob controller accepts as "created by the ImageList controller".
import assert from 'node:assert/strict';
import { ownerProblem } from '../../src/core/erase/imagejob/trust.js';
import type { ImageJob, OwnerReference } from '../../src/core/erase/api/types.js';
import { DEFAULT_CONFIG } from '../../src/core/erase/config/config.js';

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
});
