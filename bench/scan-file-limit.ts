// `inv scan -f` at the default 256 MiB input limit with the shapes that cost the most memory
// per byte (test/support/manifest-shapes.ts), each streamed into stdin: time and peak RSS as
// V8 sizes its heap by itself, and whether the same input completes under a 512 MB heap (what
// the reading needs, as opposed to what V8 allows itself when memory is plentiful).
import { scanShape, WORST_SHAPES } from '../test/support/manifest-shapes.js';

const LIMIT = 256 * 1024 * 1024;
const SHAPES = [
  'empty YAML documents',
  'tiny documents without a kind',
  'a JSON array of {}',
  'a YAML sequence of {}',
];

export async function main(): Promise<Record<string, string | number>> {
  const out: Record<string, string | number> = {};
  for (const name of SHAPES) {
    const shape = WORST_SHAPES[name]!;
    const free = await scanShape(shape, LIMIT);
    const capped = await scanShape(shape, LIMIT, { heapMB: 512 });
    out[`${name}: time (s)`] = Math.round(free.ms / 100) / 10;
    out[`${name}: peak RSS (MB)`] = free.rssMB;
    out[`${name}: under a 512 MB heap`] =
      capped.status === shape.status ? `ok, peak RSS ${capped.rssMB} MB` : `exit ${capped.status}`;
  }
  return out;
}
