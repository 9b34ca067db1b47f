// Text to documents, one at a time, so that a 50 MB dump never becomes 50 MB of syntax trees.
// JSON (what `kubectl get -o json` prints) is read one object at a time with JSON.parse
// (manifests/json.ts). YAML is cut at its document markers and each document is parsed alone
// with js-yaml, which is several times faster than building a full AST; a document too large
// to build at once is read item by item (manifests/yaml-split.ts). Both enforce one nesting
// limit, so a hostile file gets an error that names the limit instead of a stack overflow, and
// no unit parsed at once holds more than MAX_VALUES values, so memory follows the largest
// object, not the input.
import jsyaml from 'js-yaml';
import { ManifestError } from './input.js';
import { jsonUnits, MAX_VALUES } from './json.js';
import { splitLargeYaml, yamlValuesBound } from './yaml-split.js';

/** Kubernetes objects nest about 20 levels; anything past this is not a manifest. */
export const MAX_NESTING = 100;
// js-yaml (4.3+) enforces maxDepth; its published types predate the option.
const YAML_OPTIONS = { maxDepth: MAX_NESTING } as jsyaml.LoadOptions;

/** `---`, `--- {}`, `--- ~` or `--- null` and nothing else (the value, if any, is group 1). */
const EMPTY_DOCUMENT = /^(?:---)?[ \t]*(\{\}|~|null)?[ \t]*\r?\n?$/;

export interface ParsedDocument {
  value: unknown;
  /** Where the document starts, for messages: "document 3, line 120". */
  where: string;
}

export function* parseDocuments(text: string, name: string): Generator<ParsedDocument> {
  const first = /\S/.exec(text)?.[0];
  if (first === '{' || first === '[') {
    if (jsonNesting(text) > MAX_NESTING) throw nestingError(name);
    const units = jsonUnits(text, name);
    if (units) {
      yield* units;
      return;
    }
  }
  let n = 0;
  const load = (t: string, line: number) => loadYaml(t, name, line);
  for (const chunk of yamlDocuments(text)) {
    n++;
    const where = `document ${n}, line ${chunk.line}`;
    // Empty documents need no parser: a million of them must cost what the marker lines cost.
    const empty = EMPTY_DOCUMENT.exec(chunk.text);
    if (empty) {
      yield { value: empty[1] === '{}' ? {} : null, where };
      continue;
    }
    // A document too large to build at once is read item by item (manifests/yaml-split.ts).
    if (chunk.text.length > MAX_VALUES && yamlValuesBound(chunk.text) > MAX_VALUES) {
      yield* splitLargeYaml(chunk.text, n, chunk.line, name, load);
      continue;
    }
    for (const value of loadYaml(chunk.text, name, chunk.line)) {
      if (Array.isArray(value)) {
        for (let i = 0; i < value.length; i++)
          yield { value: value[i], where: `document ${n}[${i}], line ${chunk.line}` };
      } else {
        yield { value, where };
      }
    }
  }
}

/** The deepest bracket nesting outside strings, stopping as soon as it passes the limit. */
function jsonNesting(text: string): number {
  let depth = 0;
  let max = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 92 /* \ */) i++;
      else if (c === 34 /* " */) inString = false;
    } else if (c === 34) {
      inString = true;
    } else if (c === 123 /* { */ || c === 91 /* [ */) {
      if (++depth > max && (max = depth) > MAX_NESTING) return max;
    } else if (c === 125 /* } */ || c === 93 /* ] */) {
      depth--;
    }
  }
  return max;
}

function nestingError(name: string, line?: number): ManifestError {
  return new ManifestError(
    `${name}${line ? `: line ${line}` : ''}: nested more than ${MAX_NESTING} levels deep, the limit for a manifest`,
  );
}

/**
 * Cuts YAML text at its document markers ("---" at the start of a line). The YAML spec forbids
 * that marker inside any scalar, so every such line starts a new document.
 */
export function* yamlDocuments(text: string): Generator<{ text: string; line: number }> {
  const marker = /^---(?=[ \t]|\r?$)/gm;
  let start = 0;
  let line = 1;
  let m: RegExpExecArray | null;
  while ((m = marker.exec(text))) {
    if (m.index === start) continue;
    const chunk = text.slice(start, m.index);
    if (chunk.trim()) yield { text: chunk, line };
    line += countLines(text, start, m.index);
    start = m.index;
  }
  const rest = text.slice(start);
  if (rest.trim()) yield { text: rest, line };
}

function countLines(text: string, from: number, to: number): number {
  let n = 0;
  for (let i = text.indexOf('\n', from); i !== -1 && i < to; i = text.indexOf('\n', i + 1)) n++;
  return n;
}

function loadYaml(chunk: string, name: string, line: number): unknown[] {
  let err: jsyaml.YAMLException;
  try {
    return [jsyaml.load(chunk, YAML_OPTIONS)];
  } catch (e) {
    if (!(e instanceof jsyaml.YAMLException)) throw e;
    err = e;
  }
  // A "..." end marker followed by a bare document: more than one document in the chunk.
  if (/expected a single document/.test(err.reason)) {
    try {
      return jsyaml.loadAll(chunk, undefined, YAML_OPTIONS);
    } catch (e) {
      if (!(e instanceof jsyaml.YAMLException)) throw e;
      err = e;
    }
  }
  const at = line + (err.mark?.line ?? 0);
  if (/maxDepth/.test(err.reason)) throw nestingError(name, at);
  throw new ManifestError(`${name}: line ${at}: not valid YAML or JSON: ${err.reason}`);
}
