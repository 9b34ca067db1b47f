// kubectl's JSONPath templates (`-o jsonpath=`, custom-columns, --sort-by) over the documents
// the CLI prints. The path expressions themselves ({.rows[*].image}, filters, slices, unions,
// `..`) are evaluated by jsonpath-plus, the library @kubernetes/client-node already ships; this
// file adds only kubectl's template layer around them: literal text, {"\n"} strings,
// {range ...}{end}, @ as the current range item, missing keys printing nothing, and kubectl's
// printing rules (strings raw, objects and arrays as compact JSON, several results joined by a
// space).
import { JSONPath } from 'jsonpath-plus';

type Node =
  { t: 'text'; text: string } | { t: 'path'; expr: string } | { t: 'range'; expr: string; body: Node[] };

/** A parsed template; `execute` renders it over one document. */
export interface Template {
  source: string;
  nodes: Node[];
}

/** Bounds what a template can be: it comes from a flag, but a file can be given too. */
const MAX_TEMPLATE = 64 * 1024;

/** The body of one {...} action starting at `open`, honouring quotes and brackets. */
function actionEnd(src: string, open: number): number {
  let quote = '';
  let depth = 0;
  for (let i = open + 1; i < src.length; i++) {
    const ch = src[i]!;
    if (quote) {
      if (ch === '\\') i++;
      else if (ch === quote) quote = '';
    } else if (ch === '"' || ch === "'") quote = ch;
    else if (ch === '[' || ch === '(') depth++;
    else if (ch === ']' || ch === ')') depth--;
    else if (ch === '}' && depth <= 0) return i;
  }
  return -1;
}

/** A Go-style double-quoted string, as kubectl reads {"\n"} and {"\t"}. */
function unquote(body: string): string {
  try {
    return JSON.parse(body) as string;
  } catch {
    throw new Error(`invalid string literal ${body}`);
  }
}

/** Checks a path expression once, at parse time, so a typo fails before any API call. */
function checkPath(expr: string): void {
  if (!/^[.$@[]/.test(expr))
    throw new Error(`unrecognized identifier ${JSON.stringify(expr)} (a path starts with ".", "$" or "@")`);
  try {
    JSONPath({ path: toLibraryPath(expr), json: {}, wrap: true, eval: 'safe' });
  } catch (e) {
    throw new Error(`invalid path ${JSON.stringify(expr)}: ${(e as Error).message}`);
  }
}

/** Parses a template as kubectl does; throws "error parsing jsonpath ...: why". */
export function parseTemplate(source: string): Template {
  if (source.length > MAX_TEMPLATE) throw new Error(`template longer than ${MAX_TEMPLATE} characters`);
  const root: Node[] = [];
  const stack: Node[][] = [root];
  let i = 0;
  try {
    while (i < source.length) {
      const open = source.indexOf('{', i);
      const top = stack[stack.length - 1]!;
      if (open < 0) {
        top.push({ t: 'text', text: source.slice(i) });
        break;
      }
      if (open > i) top.push({ t: 'text', text: source.slice(i, open) });
      const close = actionEnd(source, open);
      if (close < 0) throw new Error('unclosed action');
      const body = source.slice(open + 1, close).trim();
      i = close + 1;
      if (body === '') continue;
      if (body === 'end') {
        if (stack.length === 1) throw new Error('not in range, nothing to end');
        stack.pop();
      } else if (/^range\s/.test(body)) {
        const expr = body.slice(5).trim();
        checkPath(expr);
        const node: Node = { t: 'range', expr, body: [] };
        top.push(node);
        stack.push(node.body);
      } else if (body.startsWith('"')) {
        top.push({ t: 'text', text: unquote(body) });
      } else {
        checkPath(body);
        top.push({ t: 'path', expr: body });
      }
    }
    if (stack.length > 1) throw new Error('range without end');
  } catch (e) {
    throw new Error(`error parsing jsonpath ${source}: ${(e as Error).message}`);
  }
  return { source, nodes: root };
}

/** kubectl's path (".a.b", "@.a", "$.a", "[0]") as jsonpath-plus's rooted path. */
function toLibraryPath(expr: string): string {
  if (expr.startsWith('$') || expr.startsWith('@')) return `$${expr.slice(1)}`;
  return `$${expr}`;
}

/** The values a path selects; `$...` reads the document, anything else the current item. */
export function findValues(expr: string, current: unknown, root: unknown = current): unknown[] {
  const json = (expr.startsWith('$') ? root : current) as object;
  if (json === null || json === undefined) return [];
  return JSONPath({ path: toLibraryPath(expr), json, wrap: true, eval: 'safe' }) as unknown[];
}

/** kubectl's rule: maps and lists print as compact JSON, everything else as its text. */
export function valueText(v: unknown): string {
  if (typeof v === 'string') return v;
  if (v !== null && typeof v === 'object') return JSON.stringify(v);
  return String(v);
}

function run(nodes: Node[], current: unknown, root: unknown, out: string[]): void {
  for (const n of nodes) {
    if (n.t === 'text') out.push(n.text);
    else if (n.t === 'path') out.push(findValues(n.expr, current, root).map(valueText).join(' '));
    else for (const item of findValues(n.expr, current, root)) run(n.body, item, root, out);
  }
}

/** Renders a template over a document (kubectl prints no newline of its own after it). */
export function execute(t: Template, doc: unknown): string {
  const out: string[] = [];
  run(t.nodes, doc, doc, out);
  return out.join('');
}

/**
 * kubectl's relaxed form for custom-columns and --sort-by: "metadata.name", ".metadata.name"
 * and "{.metadata.name}" all mean the path .metadata.name.
 */
export function relaxedPath(spec: string): string {
  let s = spec.trim();
  if (s.startsWith('{') && s.endsWith('}')) s = s.slice(1, -1).trim();
  if (s === '' || /[{}]/.test(s))
    throw new Error(
      `unexpected path string ${JSON.stringify(spec)}, expected a 'name1.name2' or '.name1.name2' or '{name1.name2}' or '{.name1.name2}'`,
    );
  if (!/^[.$@[]/.test(s)) s = `.${s}`;
  try {
    checkPath(s);
  } catch (e) {
    throw new Error(`error parsing jsonpath ${spec}: ${(e as Error).message}`);
  }
  return s;
}
