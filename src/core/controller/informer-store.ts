// The informer's cache (./informer.ts): namespace -> name -> object, cluster-scoped objects
// under '', with its object count; the namespace string of every object is interned, one copy
// per namespace instead of one per object.
import { intern } from './intern.js';

export interface CachedObject {
  metadata: { name: string; namespace?: string };
}

export const keyOf = (obj: CachedObject): [string, string] => [
  obj.metadata.namespace ?? '',
  obj.metadata.name,
];

export class InformerStore<T extends CachedObject> {
  private map = new Map<string, Map<string, T>>();
  private count = 0;

  /** Starts empty and returns what it held (a relist diffs against it). */
  take(): Map<string, Map<string, T>> {
    const old = this.map;
    this.map = new Map();
    this.count = 0;
    return old;
  }

  /** Stores `obj`; returns the object it replaced. */
  put(obj: T): T | undefined {
    const [ns, name] = keyOf(obj);
    let m = this.map.get(ns);
    if (!m) this.map.set(ns, (m = new Map()));
    if (obj.metadata.namespace !== undefined) obj.metadata.namespace = intern(ns);
    const old = m.get(name);
    m.set(name, obj);
    if (!old) this.count++;
    return old;
  }

  remove(ns: string, name: string): T | undefined {
    const m = this.map.get(ns);
    const old = m?.get(name);
    if (m && old) {
      m.delete(name);
      this.count--;
      if (m.size === 0) this.map.delete(ns);
    }
    return old;
  }

  list(namespace: string): T[] {
    const m = this.map.get(namespace);
    return m ? [...m.values()] : [];
  }

  get(namespace: string, name: string): T | undefined {
    return this.map.get(namespace)?.get(name);
  }

  namespaces(): string[] {
    return [...this.map.keys()];
  }

  size(): number {
    return this.count;
  }
}
