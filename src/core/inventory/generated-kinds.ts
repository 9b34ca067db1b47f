// The text that other files carry about the source kinds, generated from the registry
// (./source-kinds.ts): the ClusterRole's inventory rules (deploy/clusterrole.yaml) and the
// docs/inventory.md's table of built-in kinds. `npm run gen:kinds` writes them between their markers;
// test/unit/inventory/source-kinds.test.ts fails while a file differs from what this generates. Pure.
import { BUILTIN_SOURCE_KINDS, OWNER_KINDS, apiVersionOf } from './source-kinds.js';

/**
 * list + watch on every source and owner kind, one rule per API group, in registry order; and
 * list on namespaces, for the per-namespace fallback of those kinds' informers.
 */
export function clusterRoleRules(): string {
  const byGroup = new Map<string, string[]>();
  for (const k of [...BUILTIN_SOURCE_KINDS, ...OWNER_KINDS]) {
    let l = byGroup.get(k.group);
    if (!l) byGroup.set(k.group, (l = []));
    l.push(k.plural);
  }
  const lines = [
    '  # Inventory sources: list + watch feed the informers; nothing is ever read one by one.',
    '  # ReplicaSets are read as metadata only (PartialObjectMetadata), for their owners.',
  ];
  for (const [group, plurals] of byGroup)
    lines.push(
      `  - apiGroups: [${group ? group : "''"}]`,
      `    resources: [${plurals.join(', ')}]`,
      '    verbs: [list, watch]',
    );
  // The informers of these kinds list a kind one namespace at a time when its cluster-wide LIST
  // fails (controller/namespace-list.ts): that needs the namespaces' names.
  lines.push(
    "  # A kind whose cluster-wide LIST fails (one tenant's object) is listed one namespace at a",
    "  # time: that needs the namespaces' names.",
    "  - apiGroups: ['']",
    '    resources: [namespaces]',
    '    verbs: [list]',
  );
  return lines.join('\n') + '\n';
}

/** The docs/inventory.md's table of built-in kinds. */
export function docsKindsTable(): string {
  const rows = BUILTIN_SOURCE_KINDS.map(
    (k) => `| ${k.kind} | \`${apiVersionOf(k)}\` | ${k.podSpecs.map((p) => `\`${p}\``).join(', ')} |`,
  );
  const owners = OWNER_KINDS.map(
    (k) => `| ${k.kind} | \`${apiVersionOf(k)}\` | metadata only (its owners) |`,
  );
  return ['| Kind | apiVersion | PodSpecs read |', '|---|---|---|', ...rows, ...owners].join('\n') + '\n';
}

const BEGIN = (name: string) =>
  `BEGIN ${name} (generated from src/core/inventory/source-kinds.ts: npm run gen:kinds)`;
const END = (name: string) => `END ${name}`;

/**
 * `text` with the lines between the markers named `name` replaced by `body`. The markers are
 * comment lines (`# BEGIN ...` in YAML, `<!-- BEGIN ... -->` in Markdown); throws when missing.
 */
export function replaceRegion(text: string, name: string, body: string): string {
  const lines = text.split('\n');
  const b = lines.findIndex((l) => l.includes(BEGIN(name)));
  const e = lines.findIndex((l, i) => i > b && l.includes(END(name)));
  if (b < 0 || e < 0)
    throw new Error(`no generated region "${name}" (markers: "${BEGIN(name)}" ... "${END(name)}")`);
  return [...lines.slice(0, b + 1), body.replace(/\n$/, ''), ...lines.slice(e)].join('\n');
}

export const GENERATED: { file: string; region: string; body: () => string; begin: string; end: string }[] = [
  {
    file: 'deploy/clusterrole.yaml',
    region: 'source kinds',
    body: clusterRoleRules,
    begin: `  # ${BEGIN('source kinds')}`,
    end: `  # ${END('source kinds')}`,
  },
  {
    file: 'docs/inventory.md',
    region: 'source kinds',
    body: docsKindsTable,
    begin: `<!-- ${BEGIN('source kinds')} -->`,
    end: `<!-- ${END('source kinds')} -->`,
  },
];
