// The bundled program's entry into oclif (scripts/bundle.mjs builds dist/bundle/oclif.js from
// this): there is no TypeScript and no node_modules next to the bundle, so oclif is told not to
// look for TypeScript sources to transpile, whatever NODE_ENV says.
import { execute, settings } from '@oclif/core';

/** Runs the command line with the bundle's own package.json (`dir`: a file URL inside the bundle). */
export async function run(dir: string): Promise<void> {
  settings.enableAutoTranspile = false;
  await execute({ dir });
}
