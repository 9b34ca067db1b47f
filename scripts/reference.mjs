// The command reference (docs/reference/inv-<command>.md), generated from the oclif manifest
// the build writes (oclif.manifest.json: every command's summary, description, arguments, flags
// and examples, as the commands define them). `npm run gen:reference` writes the pages;
// test/unit/repo/reference.test.ts fails when the checked-in pages differ from a fresh generation.
// Hidden commands and hidden flags are left out, as `--help` leaves them out.

const bin = 'inv';
const fill = (text) => String(text ?? '').replaceAll('<%= config.bin %>', bin);
const cell = (text) => fill(text).replaceAll('|', '\\|').replaceAll('\n', ' ');
const fileOf = (id) => `inv-${id.replaceAll(':', '-')}.md`;

function flagName(f) {
  const long = f.allowNo ? `--[no-]${f.name}` : `--${f.name}`;
  const value = f.type === 'option' ? `=${f.helpValue ?? (f.options ? f.options.join('|') : 'VALUE')}` : '';
  return `${f.char ? `-${f.char}, ` : ''}${long}${value}`;
}

/** A boolean's default, said in its help (src/cli/flags.ts showBooleanDefaults): the manifest drops it. */
const SAID_DEFAULT = /^\[default: ([^\]]+)\] /;

function flagDefault(f) {
  const said = SAID_DEFAULT.exec(f.description ?? '');
  if (said && f.type === 'boolean') return said[1] === 'false' ? '' : said[1];
  if (f.default === undefined || f.default === false) return '';
  return Array.isArray(f.default) ? f.default.join(',') : String(f.default);
}

/** One page per visible command, and the index: a Map of file name to text. */
export function renderReference(manifest) {
  const ids = Object.keys(manifest.commands)
    .filter((id) => !manifest.commands[id].hidden && id !== 'help')
    .sort();
  const pages = new Map();
  const index = [
    '# Command reference',
    '',
    "Generated from the commands' own definitions (`npm run gen:reference`); do not edit by hand.",
    'Every command also prints this with `--help`.',
    '',
    '| command | what it does |',
    '|---|---|',
  ];
  for (const id of ids) {
    const c = manifest.commands[id];
    const name = `${bin} ${id.replaceAll(':', ' ')}`;
    index.push(`| [\`${name}\`](${fileOf(id)}) | ${cell(c.summary)} |`);
    const args = Object.values(c.args ?? {});
    const flags = Object.values(c.flags ?? {})
      .filter((f) => !f.hidden)
      .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    const out = [`# \`${name}\``, '', fill(c.summary), ''];
    out.push(
      '```',
      // A command's own usage lines where it writes them (erase), else its arguments and [FLAGS].
      ...(c.usage
        ? [c.usage].flat().map((u) => `${bin} ${fill(u)}`)
        : [
            `${name}${args.map((a) => ` [${a.name.toUpperCase()}]`).join('')}${flags.length ? ' [FLAGS]' : ''}`,
          ]),
      '```',
      '',
    );
    if (c.description) out.push(fill(c.description).trim(), '');
    if (args.length) {
      out.push('## Arguments', '', '| argument | description |', '|---|---|');
      for (const a of args) out.push(`| \`${a.name.toUpperCase()}\` | ${cell(a.description)} |`);
      out.push('');
    }
    if (flags.length) {
      out.push('## Flags', '', '| flag | default | description |', '|---|---|---|');
      for (const f of flags) {
        const def = flagDefault(f);
        out.push(
          `| \`${cell(flagName(f))}\` | ${def ? `\`${cell(def)}\`` : ''} | ${cell((f.summary ?? f.description ?? '').replace(f.type === 'boolean' ? SAID_DEFAULT : /$^/, ''))} |`,
        );
      }
      out.push('');
    }
    const examples = (c.examples ?? []).map((e) =>
      typeof e === 'string' ? { description: '', command: e } : e,
    );
    if (examples.length) {
      out.push('## Examples', '');
      for (const e of examples) {
        if (e.description) out.push(`${fill(e.description)}:`, '');
        out.push('```sh', fill(e.command), '```', '');
      }
    }
    pages.set(fileOf(id), `${out.join('\n').trimEnd()}\n`);
  }
  pages.set('README.md', `${index.join('\n')}\n`);
  return pages;
}
