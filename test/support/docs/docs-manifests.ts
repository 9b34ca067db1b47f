// The YAML a user copies from the docs: every ```yaml block of the pages and every file of
// docs/examples/, as parsed documents, sorted into what inv reads (ImageLists, exclusion-list
// ConfigMaps, SourceKinds, fragments of inv-erase-config) and the rest; and the checks inv's own
// code runs on an ImageList before it starts a job, so a test can hold each example to them.
import fs from 'node:fs';
import path from 'node:path';
import { parseAllDocuments } from 'yaml';
import { listLimitProblems } from '../../../src/core/erase/api/list-limits.js';
import { validateImages } from '../../../src/core/erase/spec/images.js';
import { rolloutProblems, type RolloutSpec } from '../../../src/core/erase/spec/rollout.js';
import { parseSelector } from '../../../src/core/erase/spec/selector.js';
import { scheduleProblems } from '../../../src/core/erase/spec/schedule.js';
import { DEFAULT_CONFIG } from '../../../src/core/erase/config/config.js';
import { policyProblem } from '../../../src/core/erase/config/policy.js';
import { limitsOf, requesterLimitProblem } from '../../../src/core/erase/config/requester-limits.js';
import { parseDurationMs } from '../../../src/core/duration.js';
import { codeBlocks, docsPages, where } from './docs-pages.js';
import { repoRoot } from '../paths.js';

export interface DocYaml {
  /** `docs/erase.md:12` or `docs/examples/x.yaml`. */
  where: string;
  /** Parse errors, as the library words them. */
  errors: string[];
  docs: Record<string, unknown>[];
}

export const EXAMPLES_DIR = path.join(repoRoot, 'docs', 'examples');

function parsed(where: string, text: string): DocYaml {
  const all = parseAllDocuments(text);
  const list = Array.isArray(all) ? all : [all];
  return {
    where,
    errors: list.flatMap((d) => d.errors.map((e) => e.message.split('\n')[0]!)),
    docs: list.map((d) => d.toJS() as Record<string, unknown>).filter((d) => d && typeof d === 'object'),
  };
}

/** Every YAML block of the docs and every example file. */
export function docsYaml(): DocYaml[] {
  const blocks = docsPages()
    .flatMap(codeBlocks)
    .filter((b) => b.lang === 'yaml' || b.lang === 'yml')
    .map((b) => parsed(where(b), b.body));
  const files = fs
    .readdirSync(EXAMPLES_DIR)
    .filter((f) => /\.ya?ml$/.test(f))
    .sort()
    .map((f) => parsed(`docs/examples/${f}`, fs.readFileSync(path.join(EXAMPLES_DIR, f), 'utf8')));
  return [...blocks, ...files];
}

export type Manifest = Record<string, unknown> & {
  apiVersion?: string;
  kind?: string;
  metadata?: { name?: string; namespace?: string; labels?: Record<string, string> };
  spec?: Record<string, unknown>;
  data?: Record<string, string>;
};

export const isImageList = (d: Manifest) =>
  d.kind === 'ImageList' && d.apiVersion === 'erase.imageinventory.dev/v1alpha1';
export const isExclusionList = (d: Manifest) =>
  d.kind === 'ConfigMap' && d.metadata?.labels?.['imageinventory.dev/exclusion-list'] === 'true';
export const isSourceKinds = (d: Manifest) => d.kind === 'SourceKinds';

/** What inv's controllers would refuse in this ImageList, under the default configuration. */
export function imageListProblems(list: Manifest): string[] {
  const spec = (list.spec ?? {}) as {
    images?: string[];
    rollout?: RolloutSpec;
    schedule?: string;
    timeZone?: string;
    startingDeadlineSeconds?: number;
    nodeSelector?: string;
    jobTimeout?: string;
    minUnusedAge?: string;
    protectInventory?: boolean;
  };
  const images = spec.images ?? [];
  const out = [
    ...listLimitProblems(list.metadata?.name ?? '', images),
    ...validateImages(images),
    ...rolloutProblems(spec.rollout),
  ];
  if (spec.schedule) out.push(...scheduleProblems({ ...spec, schedule: spec.schedule }));
  const refused = policyProblem({ ...spec, images }, DEFAULT_CONFIG);
  if (refused) out.push(refused);
  const over = requesterLimitProblem(
    list.metadata?.name ?? '',
    { jobTimeout: spec.jobTimeout, pause: spec.rollout?.pause },
    limitsOf(DEFAULT_CONFIG),
  );
  if (over) out.push(over);
  for (const [key, value] of [
    ['spec.jobTimeout', spec.jobTimeout],
    ['spec.minUnusedAge', spec.minUnusedAge],
  ] as const)
    if (value !== undefined)
      try {
        parseDurationMs(value, key);
      } catch (e) {
        out.push((e as Error).message);
      }
  if (spec.nodeSelector)
    try {
      parseSelector(spec.nodeSelector);
    } catch (e) {
      out.push((e as Error).message);
    }
  return out;
}
