// docs/erase-config.md's table of `inv-erase-config` keys: key, type, default, who may set it, from
// config-keys.ts and the parser's own defaults (DEFAULT_CONFIG). The keys the parser accepts are
// read from its refusal of an unknown key, so a key it gains without a line in config-keys.ts, or
// a line for a key it no longer has, is an error here.
import { stringify } from 'yaml';
import { CONFIG_KEYS } from '../core/erase/config/config-keys.js';
import { ConfigError, DEFAULT_CONFIG, parseConfig } from '../core/erase/config/config.js';
import { formatDurationMs } from '../core/duration.js';
import { table } from './regions.js';

const PROBE = 'zzNoSuchKey';

/** The keys the parser knows at `prefix` (``, `worker.`, `requesterLimits.`), from its own error. */
function acceptedAt(prefix: string): string[] {
  const doc = prefix ? { [prefix.slice(0, -1)]: { [PROBE]: 1 } } : { [PROBE]: 1 };
  try {
    parseConfig(stringify(doc));
  } catch (e) {
    const m = e instanceof ConfigError && /unknown key \(known: ([^)]*)\)/.exec(e.message);
    if (m) return m[1]!.split(', ').map((k) => prefix + k);
  }
  throw new Error(`parseConfig did not refuse the unknown key ${prefix}${PROBE} naming the known ones`);
}

/** Every leaf key config.yaml accepts: the top level, with `worker`, `requesterLimits` and `record` opened. */
export function acceptedConfigKeys(): string[] {
  const nested = ['worker', 'requesterLimits', 'record'];
  return acceptedAt('').flatMap((k) => (nested.includes(k) ? acceptedAt(`${k}.`) : [k]));
}

function valueAt(path: string): unknown {
  let v: unknown = DEFAULT_CONFIG;
  for (const p of path.split('.')) v = (v as Record<string, unknown> | undefined)?.[p];
  return v;
}

function shown(v: unknown, seconds: boolean): string {
  if (v === undefined) return 'none';
  if (seconds) return `\`${formatDurationMs((v as number) * 1000)}\``;
  if (v === '') return "`''`";
  if (typeof v === 'object') return `\`${stringify(v, { collectionStyle: 'flow' }).trim()}\``;
  return `\`${String(v)}\``;
}

export function configTable(): string {
  const accepted = acceptedConfigKeys();
  const described = CONFIG_KEYS.map((k) => k.key);
  const missing = accepted.filter((k) => !described.includes(k));
  const extra = described.filter((k) => !accepted.includes(k));
  if (missing.length || extra.length)
    throw new Error(
      `src/core/erase/config/config-keys.ts is out of step with config.ts: ` +
        [
          missing.length && `not described: ${missing.join(', ')}`,
          extra.length && `not accepted: ${extra.join(', ')}`,
        ]
          .filter(Boolean)
          .join('; '),
    );
  return table(
    ['key', 'type', 'default', 'set by', 'what it does'],
    CONFIG_KEYS.map((k) => [
      `\`${k.key}\``,
      k.type,
      k.field ? shown(valueAt(k.field), k.seconds === true) : 'none',
      k.setBy,
      k.what,
    ]),
  );
}
