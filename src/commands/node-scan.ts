// `inv node-scan`: the default scanner of scan mode, run as the scanner container of an erase
// worker Pod, next to `inv node-remove`. Hidden: people start it through `inv erase --vulnerable`,
// never by hand. Thin: flags in, src/cli/node-scan/node-scan-run.ts does the rest.
import { Command } from '@oclif/core';
import { EXIT_OK } from '../cli/process/exit-codes.js';
import { paragraphs } from '../cli/help-text.js';
import { runNodeScan } from '../cli/node-scan/node-scan-run.js';
import { nodeScanFlags } from '../cli/node-scan/node-scan-flags.js';

export default class NodeScan extends Command {
  static override hidden = true;

  static override summary = "Scan this node's unused images with Trivy, speaking Eraser's scanner contract.";

  static override description =
    paragraphs(`The scanner container of a scan-mode worker Pod. Reads the candidate images that inv
node-remove writes to collectScan in the shared folder, scans each with Trivy through the node's
containerd (--image-src containerd over the CRI socket: nothing is pulled), and writes the
vulnerable ones to scanErase as Eraser's JSON list, each with inv's optional extension (status,
CVE count, highest severity, the first CVE ids). Then waits for the remover's "complete".

The settings are Eraser's Trivy scanner settings, read from the YAML string
components.scanner.config of the --config file (an EraserConfig), plus server (Trivy
client/server mode: the cluster's one DB) and skipDBUpdate (use the DB in cacheDir).
docs/scan-mode.md, "The scanner contract" has the whole contract.

Exit codes: 0 answered and the remover completed; 1 the exchange broke midway (no list in
time, a bad list, no completion); 2 unusable configuration.`);

  static override examples = [
    {
      description: 'As the worker Pod runs it',
      command: '<%= config.bin %> node-scan --config=/run/inv/scanner/config.yaml',
    },
  ];

  static override flags = nodeScanFlags;

  async run(): Promise<void> {
    const { flags } = await this.parse(NodeScan);
    const code = await runNodeScan(flags);
    if (code !== EXIT_OK) this.exit(code);
  }
}
