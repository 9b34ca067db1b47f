// The file lists of the rooms' README.md files (every folder of src/ that holds TypeScript),
// made from each file's own opening comment: its first sentence says what the file is for, so
// the catalogue cannot drift from the code. A room's README holds its purpose, written by hand
// above the generated region; `npm run gen:rooms` rewrites the region, and
// test/unit/repo/rooms.test.ts fails while one is stale or a room has no purpose written.
import fs from 'node:fs';
import path from 'node:path';

export const BEGIN = "<!-- BEGIN files (generated from each file's opening comment: npm run gen:rooms) -->";
export const END = '<!-- END files -->';

/** Every folder of src/ (relative, posix) that holds .ts files directly. */
export function roomDirs(root) {
  const out = [];
  const walk = (rel) => {
    const ents = fs.readdirSync(path.join(root, rel), { withFileTypes: true });
    if (ents.some((e) => e.isFile() && e.name.endsWith('.ts'))) out.push(rel);
    for (const e of ents) if (e.isDirectory()) walk(path.posix.join(rel, e.name));
  };
  walk('src');
  return out.sort();
}

/** The opening comment of a source file as one line of text ('' when it has none). */
export function openingComment(text) {
  const words = [];
  for (const line of text.split('\n')) {
    const m = /^\s*(?:\/\/+|\/\*+|\*(?!\/))\s?(.*?)\s*(\*\/)?\s*$/.exec(line);
    if (!m || /^\s*(import|export)\b/.test(line)) break;
    if (m[1]) words.push(m[1]);
    if (m[2]) break;
  }
  return words.join(' ').replace(/\s+/g, ' ').trim();
}

/**
 * The comment's first sentence: up to its first full stop (a colon or semicolon goes on). One
 * longer than `max` ends at its last colon or semicolon within it, marked with an ellipsis.
 */
export function firstSentence(comment, max = 420) {
  const re = /(?<!\.)[.:;](?=\s|$)/g; // not the last dot of an ellipsis (WORDS...)
  let m;
  let lastBreak = -1;
  while ((m = re.exec(comment))) {
    if (m.index >= max) break;
    if (m[0] === '.') return comment.slice(0, m.index + 1);
    lastBreak = m.index;
  }
  if (comment.length <= max) return comment;
  const cut = lastBreak > 0 ? lastBreak : comment.lastIndexOf(' ', max - 1);
  return `${comment.slice(0, cut).trimEnd()} …`;
}

/** The generated region of one room: a line per file. */
export function renderRoom(root, dir) {
  const files = fs
    .readdirSync(path.join(root, dir))
    .filter((f) => f.endsWith('.ts'))
    .sort();
  const subs = fs
    .readdirSync(path.join(root, dir), { withFileTypes: true })
    .filter((e) => e.isDirectory())
    .map((e) => e.name)
    .sort();
  const lines = [BEGIN, ''];
  for (const f of files) {
    const said = firstSentence(openingComment(fs.readFileSync(path.join(root, dir, f), 'utf8')));
    lines.push(`- [\`${f}\`](${f}): ${said || '(no opening comment)'}`);
  }
  if (subs.length) {
    lines.push('');
    lines.push(`Rooms inside: ${subs.map((s) => `[\`${s}/\`](${s}/README.md)`).join(', ')}.`);
  }
  lines.push('', END);
  return lines.join('\n');
}

/** Every room's README as it should be: the hand-written part kept, the region made fresh. */
export function renderRooms(root) {
  const out = new Map();
  for (const dir of roomDirs(root)) {
    const file = path.posix.join(dir, 'README.md');
    const abs = path.join(root, file);
    const old = fs.existsSync(abs) ? fs.readFileSync(abs, 'utf8') : `# \`${dir}/\`\n\n`;
    const region = renderRoom(root, dir);
    const a = old.indexOf(BEGIN);
    const b = old.indexOf(END);
    const head = a >= 0 && b > a ? old.slice(0, a) : `${old.trimEnd()}\n\n`;
    const tail = a >= 0 && b > a ? old.slice(b + END.length) : '\n';
    out.set(file, `${head}${region}${tail}`);
  }
  return out;
}
