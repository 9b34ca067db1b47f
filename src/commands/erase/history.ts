// `inv erase history [JOB]`: the removal record, what every node removed, would remove, kept (and
// why) or failed on, kept after the jobs and their Pods are deleted (ImageJobRecords, for the
// retention the erase configuration sets).
import { Command } from '@oclif/core';
import { jobArg } from '../../cli/erase/job-select.js';
import { historyFlags } from '../../cli/erase/history-flags.js';
import { completeHistoryOptions } from '../../cli/erase/history-options.js';
import { historyNotes, renderHistory } from '../../cli/erase/render-history.js';
import { EraseSession } from '../../cli/erase/session.js';
import { failFlags } from '../../cli/process/fail.js';
import { paragraphs } from '../../cli/help-text.js';
import { exitOnInterrupt } from '../../cli/process/interrupt.js';
import { tableOptions } from '../../cli/flags.js';
import { renderData } from '../../cli/output/print-data.js';
import { readHistory } from '../../core/erase-request/history.js';
import { historyDocument } from '../../core/erase-request/history-report.js';
import { commandCompletion } from '../../cli/completion/sources.js';

export default class EraseHistory extends Command {
  static override summary = 'Show what erase jobs did on each node, image by image, after the jobs are gone.';

  static override description =
    paragraphs(`Reads the removal record: for every node of every erase job, each image
the node removed, would remove (a dry run), kept (and why: in-use, protected, excluded...) or
failed on, with its size. The erase controller writes it from each worker's report when the worker
finishes, and keeps it after the ImageJob and its worker Pods are deleted, for the retention the
erase configuration sets (record: 30 days, 5000 objects, 256 MiB by default; oldest first out).

Every image of a node is recorded up to 5,000; past that the node's record counts them. Under
the table, on stderr, a line says so for each node whose record is not complete.

JOB (or --name LIST) picks one job (or one ImageList's jobs); --node, --image, --outcome,
--since and --until narrow the rows. Newest node first.

Exit codes: 0 shown (also when nothing matched: "No records found." on stderr); 2 bad input or
no usable cluster.`);

  static override examples = [
    {
      description: 'What every node did in the last 24 hours',
      command: '<%= config.bin %> erase history --since 24h',
    },
    {
      description: 'What node worker-3 removed last night',
      command: '<%= config.bin %> erase history --node worker-3 --outcome removed --since 12h',
    },
    {
      description: 'Where an image went, on every node',
      command: '<%= config.bin %> erase history --image nginx:1.25',
    },
    {
      description: "A nightly list's record, as JSON (docs/schemas/EraseHistory.json)",
      command: '<%= config.bin %> erase history --name nightly -o json',
    },
    {
      description: 'One job, with image IDs and targets',
      command: '<%= config.bin %> erase history imagelist-3-1a2b3 -o wide',
    },
  ];

  static override args = jobArg('; default: every job recorded');

  static override flags = historyFlags;

  /** Where TAB finds each flag's values, as the flags declare it (read by `inv __complete`). */
  static completion = commandCompletion(this.flags, this.args);

  async run(): Promise<void> {
    exitOnInterrupt();
    const { args, flags } = await this.parse(EraseHistory);
    const { options, problems } = completeHistoryOptions(args.job, flags, new Date());
    if (args.job && flags.name) problems.push('give JOB or --name, not both');
    if (problems.length) failFlags(this, problems);
    const session = EraseSession.open(this, flags);
    await session.run(this, 'erase history', async () => {
      const doc = historyDocument(await readHistory(session.rest, options.filter));
      const data = renderData(doc, options.output, { items: doc.records, noHeaders: options.noHeaders });
      if (data !== undefined) {
        process.stdout.write(data);
        return;
      }
      if (!doc.records.length) {
        process.stderr.write('No records found.\n');
        return;
      }
      process.stdout.write(renderHistory(doc, Date.now(), tableOptions(flags)));
      for (const line of historyNotes(doc.records)) process.stderr.write(`note: ${line}\n`);
    });
  }
}
