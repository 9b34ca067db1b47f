// Stopping `inv scan` between namespaces: once stopped, no namespace starts writing its Images,
// and the ones already writing are waited for, so a stop (^C) never leaves a namespace's
// inventory half rebuilt. Reads may be abandoned at any point: nothing was written yet.

export class ScanStop {
  private stopped = false;
  private writing = 0;
  private idle: (() => void)[] = [];
  /** Namespaces whose write phase ran to its end without throwing. */
  written = 0;

  get isStopped(): boolean {
    return this.stopped;
  }

  /** Enters a namespace's write phase; false once stopped (the namespace is left untouched). */
  enter(): boolean {
    if (this.stopped) return false;
    this.writing++;
    return true;
  }

  /** Leaves the write phase entered with enter(); `completed`: it ran to its end. */
  leave(completed: boolean): void {
    if (completed) this.written++;
    if (--this.writing === 0) for (const r of this.idle.splice(0)) r();
  }

  /** Stops starting namespaces; resolves once no namespace is being written. */
  stop(): Promise<void> {
    this.stopped = true;
    if (this.writing === 0) return Promise.resolve();
    return new Promise((r) => this.idle.push(r));
  }
}
