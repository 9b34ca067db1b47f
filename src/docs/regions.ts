// The generated regions of the docs: text between `<!-- BEGIN name (generated: npm run gen:docs) -->`
// and `<!-- END name -->` that a generator writes and a test compares. Pure.

export const GEN_COMMAND = 'npm run gen:docs';

export const beginMarker = (name: string) => `<!-- BEGIN ${name} (generated: ${GEN_COMMAND}) -->`;
export const endMarker = (name: string) => `<!-- END ${name} -->`;

/** The lines between a region's markers; throws when the page has no such region. */
export function regionOf(text: string, name: string): string {
  const lines = text.split('\n');
  const b = lines.findIndex((l) => l.includes(beginMarker(name)));
  const e = lines.findIndex((l, i) => i > b && l.includes(endMarker(name)));
  if (b < 0 || e < 0)
    throw new Error(
      `no generated region "${name}" (markers: "${beginMarker(name)}" ... "${endMarker(name)}")`,
    );
  return lines.slice(b + 1, e).join('\n') + '\n';
}

/** `text` with the region named `name` holding `body`; throws when the markers are missing. */
export function replaceRegion(text: string, name: string, body: string): string {
  const lines = text.split('\n');
  const b = lines.findIndex((l) => l.includes(beginMarker(name)));
  const e = lines.findIndex((l, i) => i > b && l.includes(endMarker(name)));
  if (b < 0 || e < 0)
    throw new Error(
      `no generated region "${name}" (markers: "${beginMarker(name)}" ... "${endMarker(name)}")`,
    );
  return [...lines.slice(0, b + 1), body.replace(/\n$/, ''), ...lines.slice(e)].join('\n');
}

/** A Markdown table cell: pipes escaped, one line. */
export const cell = (s: string) => s.replace(/\|/g, '\\|').replace(/\s*\n\s*/g, ' ');

export function table(head: string[], rows: string[][]): string {
  return (
    [
      `| ${head.join(' | ')} |`,
      `|${head.map(() => '---').join('|')}|`,
      ...rows.map((r) => `| ${r.map(cell).join(' | ')} |`),
    ].join('\n') + '\n'
  );
}
