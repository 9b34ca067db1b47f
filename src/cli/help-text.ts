// Help text is written in source as wrapped paragraphs; oclif wraps again to the terminal's
// width, so single line breaks are joined here and only blank lines (paragraphs) survive.
export function paragraphs(text: string): string {
  return text
    .split(/\n\s*\n/)
    .map((p) => p.replace(/\s*\n\s*/g, ' ').trim())
    .join('\n\n');
}
