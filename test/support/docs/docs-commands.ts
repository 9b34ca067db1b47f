// The `inv ...` command lines the docs show (in code blocks: `inv ...`, `$ inv ...`, `kubectl inv
// ...`), cut into the words a shell would pass: quotes, backslash continuations, and a trailing
// comment, redirect or pipe are handled; synopsis lines with placeholders (`[JOB]`, `[--nodes]`,
// `…`) are left out, since no one runs them as written. No shell-words library is in the tree,
// and this small one covers what the pages write (a page using more syntax fails the test loudly).
import { codeBlocks, docsPages } from './docs-pages.js';

export interface DocCommand {
  where: string;
  /** The line as the page shows it (continuations joined). */
  line: string;
  /** The words after `inv`. */
  argv: string[];
  /** What follows `>` on the line, if it redirects its output. */
  redirect?: string;
}

/** Shell words of `text` up to a comment, `|`, `;`, `&&` or `>` (returned as `rest`). */
export function shellWords(text: string): { words: string[]; stop?: string; rest: string } {
  const words: string[] = [];
  let cur: string | undefined;
  let i = 0;
  const push = () => {
    if (cur !== undefined) words.push(cur);
    cur = undefined;
  };
  for (; i < text.length; i++) {
    const c = text[i]!;
    if (c === "'" || c === '"') {
      const end = text.indexOf(c, i + 1);
      if (end < 0) throw new Error(`unbalanced ${c} in: ${text}`);
      cur = (cur ?? '') + text.slice(i + 1, end).replace(c === '"' ? /\\(["\\$`])/g : /$^/, '$1');
      i = end;
    } else if (c === '\\' && i + 1 < text.length) {
      cur = (cur ?? '') + text[++i];
    } else if (/\s/.test(c)) push();
    else if (c === '#' && cur === undefined) break;
    else if (c === '|' || c === ';' || c === '>' || (c === '&' && text[i + 1] === '&')) {
      push();
      return { words, stop: c, rest: text.slice(i + 1).trim() };
    } else cur = (cur ?? '') + c;
  }
  push();
  return { words, rest: '' };
}

const PLACEHOLDER = /\[[A-Z-]|\[--|…|<[a-z]/;

export function docsCommands(): DocCommand[] {
  const out: DocCommand[] = [];
  for (const page of docsPages())
    for (const b of codeBlocks(page)) {
      if (['yaml', 'yml', 'json'].includes(b.lang)) continue;
      const lines = b.body.split('\n');
      for (let i = 0; i < lines.length; i++) {
        const at = i;
        let line = lines[i]!.trim();
        while (line.endsWith('\\') && i + 1 < lines.length)
          line = `${line.slice(0, -1)} ${lines[++i]!.trim()}`;
        const m = /^(?:\$ )?(?:kubectl )?inv (.*)$/.exec(line);
        if (!m || PLACEHOLDER.test(line.replace(/#.*$/, ''))) continue;
        const { words, stop, rest } = shellWords(m[1]!);
        out.push({
          where: `${b.file}:${b.line + 1 + at}`,
          line,
          argv: words,
          ...(stop === '>' ? { redirect: shellWords(rest).words[0] } : {}),
        });
      }
    }
  return out;
}
