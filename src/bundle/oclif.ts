// The bundled program's entry into oclif (scripts/bundle.mjs builds dist/bundle/oclif.js from
// this): there is no TypeScript and no node_modules next to the bundle, so oclif is told not to
// look for TypeScript sources to transpile, whatever NODE_ENV says.
import { flush, run as runOclif, settings } from '@oclif/core';
import { handleError } from '../cli/process/handle-error.js';

/** Runs the command line with the bundle's own package.json (`dir`: a file URL inside the bundle). */
export async function run(dir: string): Promise<void> {
  settings.enableAutoTranspile = false;
  try {
    await runOclif(process.argv.slice(2), dir);
    await flush();
  } catch (e) {
    // The one error style, as in a checkout (bin/run.js).
    await handleError(e);
  }
}
