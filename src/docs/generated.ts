// The docs' generated regions: which page, which region, and what writes it. `npm run gen:docs`
// (scripts/gen-docs.mjs) rewrites them; test/unit/repo/docs-generated.test.ts fails while one is stale.
import { configTable } from './config-table.js';
import { exitCodesTable } from './exit-codes-table.js';
import { metricsTable } from './metrics-catalog.js';
import { printerColumnsTable } from './printer-columns.js';
import { supportedVersionsTables } from './supported-versions-table.js';

export interface GeneratedRegion {
  /** The page, from the repository's root. */
  file: string;
  region: string;
  body: () => string;
}

export const GENERATED_DOCS: readonly GeneratedRegion[] = [
  { file: 'docs/daemon.md', region: 'metrics', body: metricsTable },
  { file: 'docs/erase-config.md', region: 'configuration keys', body: configTable },
  { file: 'docs/cli.md', region: 'exit codes', body: exitCodesTable },
  { file: 'docs/imagejob-status.md', region: 'printer columns', body: printerColumnsTable },
  { file: 'docs/supported-versions.md', region: 'supported versions', body: supportedVersionsTables },
];
