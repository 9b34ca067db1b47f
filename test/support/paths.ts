import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository root, from the compiled location dist/test/support/. */
export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
