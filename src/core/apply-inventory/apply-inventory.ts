// The inventory's own API for a controller, in the shape of component-operator-runtime's
// Reconciler.Apply and Reconciler.Delete: the caller records what it wants (plan), then calls
// apply() and delete() once per reconcile, and persists encode() in its status. Which wave is
// next, what counts as settled and the phase transitions stay here (inventory.ts, pure;
// objects.ts, the API calls); the caller never walks the waves itself.
//
// One ApplyInventory is one reconcile's working copy: the methods replace its items (the
// transitions are pure and return new arrays), so the caller reads `items` after each step.
import type { KubeRest } from '../kube/rest.js';
import {
  dropItem,
  isApplyPending,
  isDeletionPhase,
  itemKey,
  markCompleted,
  nextApplyWave,
  nextDeleteWave,
  scheduleApply,
  scheduleDeletion,
  type DesiredItem,
  type InventoryItem,
  type ObjectRef,
} from './items.js';
import { decodeInventory, encodeInventory } from './item-lines.js';
import {
  applyWave,
  deleteWave,
  type ApplyOptions,
  type ApplyResult,
  type DeleteResult,
  type KubeObject,
  type Owner,
} from './objects.js';

export type { DesiredItem, InventoryItem, ObjectRef };
export { isApplyPending, itemKey };

export class ApplyInventory {
  private constructor(private current: InventoryItem[]) {}

  /** From the owner's status (the compact lines of inventory.ts). */
  static decode(lines: readonly string[] | undefined): ApplyInventory {
    return new ApplyInventory(decodeInventory(lines));
  }

  /** For the owner's status. */
  encode(): string[] {
    return encodeInventory(this.current);
  }

  /** The items, in canonical delete order. */
  get items(): readonly InventoryItem[] {
    return this.current;
  }

  get size(): number {
    return this.current.length;
  }

  /** Records the desired objects, write-ahead (scheduleApply): persist before apply(). */
  plan(desired: readonly DesiredItem[]): void {
    this.current = scheduleApply(this.current, desired);
  }

  /**
   * Records new digests (from `desired`, by item key) for items not created yet and for those
   * `updatable` says may be updated in place, plus the `added` objects; everything else stays as
   * recorded, and items being deleted are left alone.
   */
  revise(
    desired: ReadonlyMap<string, DesiredItem>,
    updatable: (item: InventoryItem) => boolean,
    added: readonly DesiredItem[],
  ): void {
    const want: DesiredItem[] = this.current
      .filter((i) => !isDeletionPhase(i.phase))
      .map((i) => {
        const d = desired.get(itemKey(i));
        return d && (isApplyPending(i.phase) || updatable(i)) ? { ...i, digest: d.digest } : i;
      });
    this.current = scheduleApply(this.current, [...want, ...added]);
  }

  /** Something is still to be created or updated (an apply wave is pending). */
  get applying(): boolean {
    return nextApplyWave(this.current) !== undefined;
  }

  /** Something is still to be deleted (a delete wave is pending). */
  get deleting(): boolean {
    return nextDeleteWave(this.current) !== undefined;
  }

  /** The items of the pending apply wave (none when nothing is to be applied). */
  applyWaveItems(): readonly InventoryItem[] {
    return nextApplyWave(this.current)?.items ?? [];
  }

  /** The items of the pending delete wave (none when nothing is to be deleted). */
  deleteWaveItems(): readonly InventoryItem[] {
    return nextDeleteWave(this.current)?.items ?? [];
  }

  /** Keys of the items still doing their work: neither finished (Completed) nor being deleted. */
  activeKeys(kind?: string): string[] {
    return this.current
      .filter((i) => !isDeletionPhase(i.phase) && i.phase !== 'Completed' && (!kind || i.kind === kind))
      .map(itemKey);
  }

  /** Whether the item is neither finished (Completed) nor being deleted. */
  static active(item: InventoryItem): boolean {
    return !isDeletionPhase(item.phase) && item.phase !== 'Completed';
  }

  /** Some item is not scheduled for deletion yet. */
  get hasUndeleted(): boolean {
    return this.current.some((i) => !isDeletionPhase(i.phase));
  }

  /** Schedules the given items (every item when keys is undefined) for deletion. */
  scheduleDeletion(keys?: Iterable<string>): void {
    this.current = scheduleDeletion(this.current, keys);
  }

  /** One-shot objects (worker Pods) that finished their work; the records stay. */
  complete(keys: Iterable<string>): void {
    this.current = markCompleted(this.current, keys);
  }

  /** Objects gone by themselves: forgotten. */
  drop(keys: Iterable<string>): void {
    this.current = dropItem(this.current, keys);
  }

  /** Applies (a chunk of) the pending apply wave (objects.ts applyWave). */
  async apply(rest: KubeRest, opts: ApplyOptions): Promise<ApplyResult> {
    const r = await applyWave(rest, this.current, opts);
    this.current = r.inventory;
    return r;
  }

  /** Works on the pending delete wave (objects.ts deleteWave). */
  async delete(
    rest: KubeRest,
    opts: { owner: Owner; live?: ReadonlyMap<string, KubeObject>; concurrency?: number },
  ): Promise<DeleteResult> {
    const r = await deleteWave(rest, this.current, opts);
    this.current = r.inventory;
    return r;
  }
}
