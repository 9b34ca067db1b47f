// The waiting keys of the work queue (./workqueue.ts): first in, first out within a priority,
// higher priorities first, each key at most once. Pure, no I/O.
//
// Why priorities: a level-triggered controller enqueues every key at once when it starts and on
// each resync. Those passes only confirm what is already right; behind a FIFO, a real change that
// arrives meanwhile waits for all of them (3,000 namespaces at start-up). As controller-runtime's
// priority queue does, such bulk adds go in at a low priority and events at the normal one, so a
// change is served next while the bulk pass goes on behind it. Nothing is dropped: a key waiting at
// a low priority that is added again at a higher one moves up (to the back of that level), once.
//
// Each entry carries the sequence number of its push; a raised key leaves a stale entry behind in
// its old level, which shift() skips (no O(n) removal from the middle of an array).

/** The priority of events (the default). */
export const PRIORITY_NORMAL = 0;
/** The priority of bulk passes: a new term's first build, periodic resyncs (controller-runtime's LowPriority). */
export const PRIORITY_LOW = -100;

interface Level {
  keys: string[];
  seqs: number[];
  head: number;
}

export class PriorityFifo {
  private readonly levels = new Map<number, Level>();
  // Priorities present, highest first.
  private order: number[] = [];
  // Each waiting key's priority and the sequence number of its live entry.
  private readonly waiting = new Map<string, { priority: number; seq: number }>();
  private seq = 0;

  /** Keys waiting. */
  get size(): number {
    return this.waiting.size;
  }

  has(key: string): boolean {
    return this.waiting.has(key);
  }

  /** The priority `key` waits at, if it waits. */
  priorityOf(key: string): number | undefined {
    return this.waiting.get(key)?.priority;
  }

  /**
   * Adds `key` at `priority`; a key already waiting at that priority or a higher one keeps its
   * place, one waiting at a lower priority moves to the back of `priority`. Returns whether the
   * key was added or moved.
   */
  push(key: string, priority = PRIORITY_NORMAL): boolean {
    if (!Number.isFinite(priority)) throw new Error(`invalid priority ${priority}`);
    const cur = this.waiting.get(key);
    if (cur && cur.priority >= priority) return false;
    const seq = ++this.seq;
    this.waiting.set(key, { priority, seq });
    let level = this.levels.get(priority);
    if (!level) {
      level = { keys: [], seqs: [], head: 0 };
      this.levels.set(priority, level);
      this.order = [...this.levels.keys()].sort((a, b) => b - a);
    }
    level.keys.push(key);
    level.seqs.push(seq);
    return true;
  }

  /** Removes and returns the first key of the highest priority, or undefined when none waits. */
  shift(): string | undefined {
    for (const p of this.order) {
      const level = this.levels.get(p)!;
      while (level.head < level.keys.length) {
        const key = level.keys[level.head]!;
        const seq = level.seqs[level.head]!;
        level.head++;
        if (this.waiting.get(key)?.seq !== seq) continue; // moved up, or handed out already
        this.waiting.delete(key);
        compact(level);
        return key;
      }
      compact(level);
    }
    return undefined;
  }

  clear(): void {
    this.levels.clear();
    this.order = [];
    this.waiting.clear();
  }
}

// Drops the consumed front of a level once it is most of the array (amortized O(1) per shift).
function compact(level: Level): void {
  if (level.head === level.keys.length) {
    level.keys = [];
    level.seqs = [];
    level.head = 0;
  } else if (level.head > 1024 && level.head * 2 > level.keys.length) {
    level.keys = level.keys.slice(level.head);
    level.seqs = level.seqs.slice(level.head);
    level.head = 0;
  }
}
