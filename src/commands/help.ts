// `inv help [COMMAND...]`, kubectl's and git's habit: the same text as `inv COMMAND --help`.
// oclif's core renders it; this command only passes the words on (no plugin needed).
import { Args, Command, Help } from '@oclif/core';
import { failLine } from '../cli/process/fail.js';

export default class HelpCommand extends Command {
  static override summary = 'Show help for inv or for a command.';
  static override strict = false;
  static override args = { command: Args.string({ description: 'The command (e.g. scan, erase status).' }) };
  static override examples = [
    { description: 'Every command', command: '<%= config.bin %> help' },
    { description: 'One command', command: '<%= config.bin %> help scan' },
  ];

  async run(): Promise<void> {
    const { argv } = await this.parse(HelpCommand);
    const words = argv as string[];
    const id = words.join(':');
    if (words.length && !this.config.findCommand(id) && !this.config.findTopic(id))
      failLine(this, `unknown command "${words.join(' ')}": run \`${this.config.bin} help\` for the list`);
    await new Help(this.config, this.config.pjson.oclif.helpOptions ?? {}).showHelp(words);
  }
}
