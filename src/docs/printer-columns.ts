// docs/imagejob-status.md's table of the columns `kubectl get` prints for inv's kinds, read from the
// CRDs (crds/*.yaml: additionalPrinterColumns; priority 1 shows only with -o wide), each said by
// the column's description or else the schema's description of its field.
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

interface Schema {
  description?: string;
  properties?: Record<string, Schema>;
}

/** The schema's description of the field at a simple JSONPath (`.status.phase`), if any. */
function fieldDescription(schema: Schema | undefined, jsonPath: string): string | undefined {
  let s = schema;
  for (const part of jsonPath.replace(/^\./, '').split('.')) s = s?.properties?.[part];
  return s?.description;
}

interface Crd {
  spec: {
    names: { kind: string; plural: string };
    versions: {
      name: string;
      served: boolean;
      storage?: boolean;
      additionalPrinterColumns?: Column[];
      schema?: { openAPIV3Schema?: Schema };
    }[];
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
      const columns = (v.additionalPrinterColumns ?? []).map((c) => ({
        ...c,
        description: c.description ?? fieldDescription(v.schema?.openAPIV3Schema, c.jsonPath),
      }));
      return { plural: crd.spec.names.plural, columns };
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
