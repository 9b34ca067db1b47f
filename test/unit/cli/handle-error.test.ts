// src/cli/process/handle-error.ts: every error in one style, `error: <message>`, unwrapped.
import assert from 'node:assert/strict';
import { Errors } from '@oclif/core';
import { errorText, exitCodeOf } from '../../../src/cli/process/handle-error.js';

describe('errorText', () => {
  it('prints oclif errors as one unwrapped error: line with their exit code', () => {
    const long = `no cluster configured: ${'x'.repeat(300)}`;
    const e = new Errors.CLIError(long, { exit: 2 });
    assert.equal(errorText(e), `error: ${long}`);
    assert.equal(exitCodeOf(e), 2);
  });

  it('is silent for this.exit(n), which the command already explained', () => {
    const e = new Errors.ExitError(1);
    assert.equal(errorText(e), undefined);
    assert.equal(exitCodeOf(e), 1);
  });

  it('makes oclif’s multi-line errors one line, and maps anything else to exit 1 and SIGINT to 130', () => {
    assert.equal(
      errorText(new Error('Unexpected argument: extra\nSee more help with --help')),
      'error: Unexpected argument: extra (see --help)',
    );
    assert.equal(
      errorText(new Error('Missing 1 required arg:\njob  ImageJob name.\nSee more help with --help')),
      'error: Missing 1 required arg: job (ImageJob name.) (see --help)',
    );
    assert.equal(
      errorText(
        new Error(
          'The following error occurred:\n  --images=x cannot also be provided when using --all-unused\nSee more help with --help',
        ),
      ),
      'error: --images=x cannot also be provided when using --all-unused (see --help)',
    );
    assert.equal(
      errorText(new Error('The following errors occurred:\n  a is wrong\n  b is wrong')),
      'error: a is wrong; b is wrong',
    );
    assert.equal(exitCodeOf(new Error('boom')), 1);
    assert.equal(exitCodeOf(new Error('SIGINT')), 130);
  });
});
