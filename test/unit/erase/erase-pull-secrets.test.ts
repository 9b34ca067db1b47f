// Pure: the worker image's pull secrets, an administrator's setting of inv-erase-config
// (worker.imagePullSecrets), reach every worker Pod; bad values name the key.
import assert from 'node:assert/strict';
import { ConfigError, DEFAULT_CONFIG, parseConfig } from '../../../src/core/erase/config/config.js';
import type { ImageJob } from '../../../src/core/erase/api/types.js';
import { workerPodSpec } from '../../../src/core/erase/worker/pod-spec.js';

const job: ImageJob = {
  metadata: { name: 'j' },
  spec: {
    imageList: { name: 'l', uid: 'u1', generation: 1 },
    namespace: 'ns',
    images: ['x'],
    config: DEFAULT_CONFIG,
  },
};

describe('erase: worker.imagePullSecrets', () => {
  it('is empty by default, and the worker Pod then names no pull secret', () => {
    const cfg = parseConfig(undefined);
    assert.deepEqual(cfg.worker.imagePullSecrets, []);
    assert.equal(workerPodSpec(job, cfg).imagePullSecrets, undefined);
  });

  it('passes every named Secret to the worker Pod', () => {
    const cfg = parseConfig(
      'worker:\n  image: registry.example.com/inv:1\n  imagePullSecrets: [regcred, mirror-creds]\n',
    );
    assert.deepEqual(workerPodSpec(job, cfg).imagePullSecrets, [
      { name: 'regcred' },
      { name: 'mirror-creds' },
    ]);
  });

  it('refuses what is not a list of Secret names, naming the key', () => {
    assert.throws(
      () => parseConfig('worker:\n  imagePullSecrets: regcred\n'),
      (e: Error) => e instanceof ConfigError && /worker\.imagePullSecrets: must be a list/.test(e.message),
    );
    assert.throws(
      () => parseConfig('worker:\n  imagePullSecrets: [Reg_Cred]\n'),
      /worker\.imagePullSecrets\[0\]: not a Secret name/,
    );
    assert.throws(
      () => parseConfig('worker:\n  imagePullSecrets: [{name: regcred}]\n'),
      /worker\.imagePullSecrets\[0\]/,
    );
  });
});
