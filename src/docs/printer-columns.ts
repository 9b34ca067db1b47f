// docs/imagejob-status.md's table of the columns `kubectl get` prints for inv's kinds, read from the
// CRDs (crds/*.yaml: additionalPrinterColumns; priority 1 shows only with -o wide).
import fs from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';
import { packageRoot } from '../core/package-root.js';
import { table } from './regions.js';

interface Column {
  name: string;
  type: string;
  jsonPath: string;
  priority?: number;
  description?: string;
}

interface Crd {
  spec: {
    names: { kind: string; plural: string };
    versions: { name: string; served: boolean; storage?: boolean; additionalPrinterColumns?: Column[] }[];
  };
}

/** The CRDs in crds/, sorted by file name, with the columns of their storage version. */
export function crdColumns(): { plural: string; columns: Column[] }[] {
  const dir = path.join(packageRoot(), 'crds');
  return fs
    .readdirSync(dir)
    .filter((f) => f.endsWith('.yaml'))
    .sort()
    .map((f) => {
      const crd = parse(fs.readFileSync(path.join(dir, f), 'utf8')) as Crd;
      const v = crd.spec.versions.find((x) => x.storage) ?? crd.spec.versions[0]!;
      return { plural: crd.spec.names.plural, columns: v.additionalPrinterColumns ?? [] };
    });
}

export function printerColumnsTable(): string {
  const rows = crdColumns().flatMap(({ plural, columns }) =>
    columns.map((c) => [
      `\`kubectl get ${plural}\``,
      c.name.toUpperCase(),
      `\`${c.jsonPath}\``,
      c.priority ? '`-o wide`' : 'default',
      c.description ?? '',
    ]),
  );
  return table(['command', 'column', 'from', 'shown', 'what it is'], rows);
}
