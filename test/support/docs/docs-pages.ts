// The docs as tests read them: every Markdown page a user reads (docs/, README.md), and the fenced
// code blocks in them with their language and line, so a test can parse, run or apply what a page
// shows. The generated command reference (docs/reference/) is left out: it is checked whole.
import fs from 'node:fs';
import path from 'node:path';
import { repoRoot } from '../paths.js';

export interface Page {
  /** From the repository's root: `docs/erase.md`. */
  file: string;
  text: string;
}

export interface CodeBlock {
  file: string;
  /** 1-based line of the opening fence. */
  line: number;
  lang: string;
  body: string;
}

export function docsPages(): Page[] {
  const dir = path.join(repoRoot, 'docs');
  const files = fs
    .readdirSync(dir)
    .filter((f) => f.endsWith('.md'))
    .sort()
    .map((f) => `docs/${f}`);
  return ['README.md', ...files].map((file) => ({
    file,
    text: fs.readFileSync(path.join(repoRoot, file), 'utf8'),
  }));
}

export function codeBlocks(page: Page): CodeBlock[] {
  const out: CodeBlock[] = [];
  const lines = page.text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const open = /^(\s*)(```+)\s*([\w-]*)/.exec(lines[i]!);
    if (!open) continue;
    const fence = open[2]!;
    const start = i;
    const body: string[] = [];
    for (i++; i < lines.length && !lines[i]!.trimStart().startsWith(fence); i++)
      body.push(lines[i]!.slice(open[1]!.length));
    out.push({ file: page.file, line: start + 1, lang: open[3]!.toLowerCase(), body: body.join('\n') });
  }
  return out;
}

export const where = (b: CodeBlock) => `${b.file}:${b.line}`;
