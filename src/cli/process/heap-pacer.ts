// Keeps a long read's heap near what it holds, not what it has thrown away. `inv scan -A` parses a
// page of a cluster-wide LIST (a megabyte or two of JSON text, one string in V8's large-object
// space) every few milliseconds and keeps only a stripped copy of its objects. V8 sizes its heap
// for throughput: it puts off the full collection that frees those strings while the heap may
// still grow, so a scan of 10,000 namespaces peaked at about twice its live heap (measured in
// bench/README.md). A CLI cannot pass V8 a heap flag after start, and a cap would fail large
// clusters; instead, while a scan runs, a full collection is asked for whenever the heap has
// grown by more than max(slack, the heap live after the last one) since that collection. Its cost
// grows with the live heap only, a few milliseconds here.
//
// The collection is reached as Jest's leak detector reaches it: `--expose-gc` set at run time
// makes `gc` a global of contexts created afterwards. Where that fails, pacing is off and the
// scan runs as before: only its peak memory differs.
import v8 from 'node:v8';
import vm from 'node:vm';

let gc: (() => void) | null | undefined;

/** V8's full collection, or undefined where it cannot be reached. */
export function fullCollection(): (() => void) | undefined {
  if (gc === undefined) {
    try {
      v8.setFlagsFromString('--expose-gc');
      const f: unknown = vm.runInNewContext('typeof gc === "function" ? gc : undefined');
      gc = typeof f === 'function' ? (f as () => void) : null;
    } catch {
      gc = null;
    }
  }
  return gc ?? undefined;
}

export interface HeapPacing {
  /** How often the heap is looked at (a timer, so a namespace that takes long is paced too). */
  everyMs: number;
  /** Growth below this never triggers a collection. */
  slackBytes: number;
  /** Growth below this share of the heap live after the last collection never triggers one. */
  liveShare: number;
}

export const HEAP_PACING: HeapPacing = { everyMs: 200, slackBytes: 32 * 1024 * 1024, liveShare: 1 };

export interface HeapPacer {
  /** How many full collections it asked for so far. */
  readonly collections: number;
  stop(): void;
}

/** Starts pacing until stop(). */
export function paceHeap(p: HeapPacing = HEAP_PACING): HeapPacer {
  const collect = fullCollection();
  const pacer = { collections: 0, stop: () => undefined as void };
  if (!collect) return pacer;
  let live = v8.getHeapStatistics().used_heap_size;
  const timer = setInterval(() => {
    const used = v8.getHeapStatistics().used_heap_size;
    if (used - live <= Math.max(p.slackBytes, p.liveShare * live)) return;
    collect();
    pacer.collections++;
    live = v8.getHeapStatistics().used_heap_size;
  }, p.everyMs);
  // Never what keeps the process alive.
  timer.unref();
  pacer.stop = () => clearInterval(timer);
  return pacer;
}
