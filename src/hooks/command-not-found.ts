// A mistyped command, answered as kubectl answers it: one `error:` line, the closest commands,
// exit 127 (the shell's "command not found"), on a terminal or not. oclif's not-found plugin
// printed ` ›   Warning:` in oclif's own style and asked a question only on a terminal.
import { Errors, type Hook } from '@oclif/core';

import { distance } from '../core/edit-distance.js';

export { distance };

/** Commands within two edits of `word`, or starting with it; closest first. */
export function suggestions(word: string, commands: string[]): string[] {
  return commands
    .map((c) => ({ c, d: c.startsWith(word) ? 0 : distance(word, c) }))
    .filter((x) => x.d <= 2)
    .sort((x, y) => x.d - y.d || x.c.localeCompare(y.c))
    .map((x) => x.c);
}

const hook: Hook<'command_not_found'> = async function (opts) {
  const words = opts.id.split(':');
  const commands = [...new Set(opts.config.commandIDs.map((c) => c.split(':').join(' ')))].filter(
    (c) => !opts.config.findCommand(c.split(' ').join(':'))?.hidden,
  );
  const typed = words.join(' ');
  const near = suggestions(typed, commands);
  const lines = [`unknown command "${typed}" for "${opts.config.bin}"`];
  if (near.length) lines.push('Did you mean this?', ...near.map((c) => `\t${c}`));
  lines.push(`Run '${opts.config.bin} help' for the list of commands.`);
  throw new Errors.CLIError(lines.join('\n'), { exit: 127 });
};

export default hook;
