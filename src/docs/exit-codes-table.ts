// docs/cli.md's table of exit codes, from their one definition (src/cli/process/exit-codes.ts).
import { EXIT_CODES } from '../cli/process/exit-codes.js';
import { table } from './regions.js';

export function exitCodesTable(): string {
  return table(
    ['exit', 'meaning'],
    EXIT_CODES.map((e) => [`\`${e.code}\``, e.meaning]),
  );
}
