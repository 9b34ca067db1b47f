// `inv completion bash|zsh|fish`, spelled as kubectl and helm spell it: prints a script that
// the shell loads, which asks `inv __complete` for candidates on every TAB (commands, flags,
// -o formats, and from the cluster: namespaces, ImageList and ImageJob names, contexts).
import { Args, Command } from '@oclif/core';
import { bashScript, fishScript, zshScript } from '../cli/completion/completion-scripts.js';
import { paragraphs } from '../cli/help-text.js';

export default class Completion extends Command {
  static override summary = 'Print the shell completion script for bash, zsh or fish.';

  static override description =
    paragraphs(`Prints a script that makes TAB complete inv's commands and flags, the values of
-o, and names from the cluster: namespaces (-n and the *-namespace flags), ImageList names
(--name), ImageJob names (erase status, erase cancel) and kubeconfig contexts (--context).
Names are read with the --kubeconfig, --context and connection flags (--as, --token, ...)
typed on the line, each lookup under a 2.5-second deadline: a slow or unreachable cluster gives no candidates, never a hung shell.

kubectl's plugin completion (kubectl 1.26+) uses the same answers through the
kubectl_complete-inv program installed next to kubectl-inv: \`kubectl inv scan -n <TAB>\` works
without loading anything.`);

  static override examples = [
    { description: 'Load in the current bash shell', command: 'source <(<%= config.bin %> completion bash)' },
    {
      description: 'Load in every bash shell (bash-completion 2)',
      command:
        '<%= config.bin %> completion bash > ~/.local/share/bash-completion/completions/<%= config.bin %>',
    },
    {
      description: 'zsh, on the $fpath (run compinit after)',
      command: '<%= config.bin %> completion zsh > "${fpath[1]}/_<%= config.bin %>"',
    },
    {
      description: 'fish',
      command: '<%= config.bin %> completion fish > ~/.config/fish/completions/<%= config.bin %>.fish',
    },
  ];

  static override args = {
    shell: Args.string({ description: 'The shell.', options: ['bash', 'zsh', 'fish'], required: true }),
  };

  async run(): Promise<void> {
    const { args } = await this.parse(Completion);
    const bin = this.config.bin;
    const script =
      args.shell === 'bash' ? bashScript(bin) : args.shell === 'zsh' ? zshScript(bin) : fishScript(bin);
    process.stdout.write(script);
  }
}
