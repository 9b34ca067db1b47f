// Source kinds declared by the administrator (`--source-kinds FILE`, the daemon's ConfigMap):
// Argo Rollouts, OpenKruise CloneSets and the like. The file is validated with a JSON Schema
// (ajv) and then checked for what a schema cannot say (no built-in kind redeclared, no
// duplicates). Pure: text in, SourceKindSpecs out; discovery (is the kind served?) is
// ./discover-kinds.ts.
import { Ajv } from 'ajv';
import jsyaml from 'js-yaml';
import { BUILTIN, OWNER_KINDS, type SourceKindSpec } from './source-kinds.js';
import { IMAGE_FIELD_LIMITS, ImageFieldPathError, parseImageFieldPath } from './image-fields.js';

/** The daemon's declared source kinds: this ConfigMap in its namespace, this key (deploy/source-kinds.yaml). */
export const SOURCE_KINDS_CONFIGMAP = 'inv-source-kinds';
export const SOURCE_KINDS_KEY = 'source-kinds.yaml';

export const SOURCE_KINDS_API_VERSION = 'cli.imageinventory.dev/v1';
/** The file (or ConfigMap value) is at most this long: it is configuration, not data. */
export const SOURCE_KINDS_MAX_BYTES = 256 * 1024;

const FIELD_PATH = '^[A-Za-z_][A-Za-z0-9_]*(\\.[A-Za-z_][A-Za-z0-9_]*){0,15}$';
const paths = {
  type: 'array',
  maxItems: 16,
  uniqueItems: true,
  items: { type: 'string', maxLength: 256, pattern: FIELD_PATH },
};

/** The JSON Schema of the file (docs/inventory.md, "Declared source kinds"). */
export const SOURCE_KINDS_SCHEMA = {
  type: 'object',
  required: ['apiVersion', 'kind', 'kinds'],
  additionalProperties: false,
  properties: {
    apiVersion: { const: SOURCE_KINDS_API_VERSION },
    kind: { const: 'SourceKinds' },
    kinds: {
      type: 'array',
      maxItems: 64,
      items: {
        type: 'object',
        required: ['group', 'version', 'kind'],
        additionalProperties: false,
        properties: {
          group: {
            type: 'string',
            maxLength: 253,
            pattern: '^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*)?$',
          },
          version: { type: 'string', maxLength: 63, pattern: '^v[0-9]+((alpha|beta)[0-9]+)?$' },
          kind: { type: 'string', pattern: '^[A-Z][A-Za-z0-9]{0,62}$' },
          /** The resource name; found by discovery when absent. */
          plural: { type: 'string', maxLength: 63, pattern: '^[a-z0-9]([-a-z0-9]*[a-z0-9])?$' },
          /** Paths of pod templates (objects with metadata and spec), e.g. spec.template. */
          podTemplates: paths,
          /** Paths of references ({kind, name}) to a source object whose templates count too. */
          workloadRefs: paths,
          /** Paths of image strings (spec.image, spec.steps[*].image): grammar in ./image-fields.ts. */
          imageFields: {
            type: 'array',
            maxItems: 16,
            uniqueItems: true,
            items: { type: 'string', minLength: 1, maxLength: IMAGE_FIELD_LIMITS.maxLength },
          },
          /** Namespaced (the default) or Cluster: then its images are kept in `namespace`. */
          scope: { enum: ['Namespaced', 'Cluster'] },
          namespace: { type: 'string', maxLength: 63, pattern: '^[a-z0-9]([-a-z0-9]*[a-z0-9])?$' },
        },
        anyOf: [
          { required: ['podTemplates'] },
          { required: ['workloadRefs'] },
          { required: ['imageFields'] },
        ],
      },
    },
  },
} as const;

export class SourceKindsError extends Error {}

let validate: ReturnType<Ajv['compile']> | undefined;

interface DeclaredKind {
  group: string;
  version: string;
  kind: string;
  plural?: string;
  podTemplates?: string[];
  workloadRefs?: string[];
  imageFields?: string[];
  scope?: 'Namespaced' | 'Cluster';
  namespace?: string;
}

// Path segments that would reach an object's prototype when the stripper builds the path.
const FORBIDDEN_SEGMENTS = new Set(['__proto__', 'prototype', 'constructor']);

/** Parses and validates a SourceKinds file; `name` is used in messages. Throws SourceKindsError. */
export function parseSourceKinds(text: string, name: string): SourceKindSpec[] {
  if (Buffer.byteLength(text) > SOURCE_KINDS_MAX_BYTES)
    throw new SourceKindsError(`${name}: larger than ${SOURCE_KINDS_MAX_BYTES} bytes`);
  let doc: unknown;
  try {
    doc = jsyaml.load(text, { json: true });
  } catch (e) {
    throw new SourceKindsError(`${name}: not valid YAML: ${(e as Error).message.split('\n')[0]}`);
  }
  validate ??= new Ajv({ allErrors: true, strict: true, strictRequired: false }).compile(SOURCE_KINDS_SCHEMA);
  if (!validate(doc)) {
    const errs = (validate.errors ?? [])
      .slice(0, 5)
      .map((e) => `${e.instancePath || '/'} ${e.message ?? 'is invalid'}`)
      .join('; ');
    throw new SourceKindsError(`${name}: not a valid SourceKinds file: ${errs}`);
  }
  const out: SourceKindSpec[] = [];
  const seen = new Set<string>();
  for (const [i, k] of (doc as { kinds: DeclaredKind[] }).kinds.entries()) {
    const where = `${name}: kinds[${i}] (${k.kind}${k.group ? `.${k.group}` : ''})`;
    const id = `${k.group}/${k.kind}`;
    if (BUILTIN.find(k.group, k.kind) || OWNER_KINDS.some((o) => o.group === k.group && o.kind === k.kind))
      throw new SourceKindsError(`${where}: a built-in kind; only other kinds can be declared`);
    if (seen.has(id)) throw new SourceKindsError(`${where}: declared twice`);
    seen.add(id);
    for (const p of [...(k.podTemplates ?? []), ...(k.workloadRefs ?? [])])
      if (p.split('.').some((s) => FORBIDDEN_SEGMENTS.has(s)))
        throw new SourceKindsError(`${where}: path ${p} is not a field path`);
    const imageFields = (k.imageFields ?? []).map((p) => {
      try {
        return parseImageFieldPath(p);
      } catch (e) {
        if (e instanceof ImageFieldPathError) throw new SourceKindsError(`${where}: ${e.message}`);
        throw e;
      }
    });
    const cluster = k.scope === 'Cluster';
    if (cluster && !k.namespace)
      throw new SourceKindsError(
        `${where}: a cluster-scoped kind needs namespace: the namespace that keeps its Images`,
      );
    if (!cluster && k.namespace !== undefined)
      throw new SourceKindsError(`${where}: namespace is only for a cluster-scoped kind (scope: Cluster)`);
    // A reference names an object in the same namespace: a cluster-scoped object has none.
    if (cluster && k.workloadRefs?.length)
      throw new SourceKindsError(`${where}: a cluster-scoped kind cannot have workloadRefs`);
    out.push({
      kind: k.kind,
      group: k.group,
      version: k.version,
      plural: k.plural ?? '',
      key: `${k.kind}.${k.group}`,
      podSpecs: (k.podTemplates ?? []).map((p) => `${p}.spec`),
      ...(k.workloadRefs?.length ? { workloadRefs: k.workloadRefs } : {}),
      ...(imageFields.length ? { imageFields } : {}),
      ...(cluster ? { namespace: k.namespace } : {}),
      declared: true,
    });
  }
  return out;
}
