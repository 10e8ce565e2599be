/**
 * A table keyed by ids (numbers or strings) for entries that come and go all the time: the
 * requests in flight, the streams under watch. It does what a `Map` does for them, without the
 * cost a `Map` has under that churn.
 *
 * Why not a `Map`: when V8 rebuilds a `Map`'s hash table (which steady inserts and deletes make it
 * do every few dozen entries), the old table keeps a link to the new one, for iterators still
 * walking it, and keeps the entries it held. Once one of those tables has been moved to the old
 * generation, the dead table holds the next, which holds the next, and every entry they held: the
 * young-generation collector treats them as live until the next full collection. With 64 calls in
 * flight, every call's objects then outlived two scavenges and were promoted, about 800 bytes per
 * call; the old generation filled and full collections followed. `bench/gc-regime.mjs` shows it.
 *
 * This table is open addressing over two plain arrays: a rebuild copies the live entries into new
 * arrays and nothing links the old arrays to them; a deleted entry's value is dropped at once.
 * Keys compare as `===` does (the number 1 and the string "1" are different ids, as in a `Map`).
 * What it saves on `npm run bench`: bench/RESULTS.md, "Speed tricks, measured".
 */
export type TableId = string | number;

/** A slot never used since the last rebuild: a lookup stops here. */
const FREE = undefined;
/** A slot whose entry was deleted: a lookup goes on past it; an insert may reuse it. */
const GONE: unique symbol = Symbol("gone");

const MIN_CAPACITY = 16;

export class IdTable<V> {
  private ids: (TableId | typeof FREE | typeof GONE)[] = [];
  private values: (V | undefined)[] = [];
  private mask = 0;
  private live = 0;
  /** Live entries and deleted ones (GONE slots): what lookups walk over. */
  private taken = 0;

  constructor() {
    // Set a second time here, not only by the initializers above: V8 treats a field stored once as
    // a constant, and the first rebuild (when 64 calls are in flight after one at a time, say)
    // would then throw away the optimized code of every caller.
    this.allocate(MIN_CAPACITY);
  }

  /** Entries in the table. */
  get size(): number {
    return this.live;
  }

  get(id: TableId): V | undefined {
    const slot = this.find(id);
    return slot < 0 ? undefined : this.values[slot];
  }

  has(id: TableId): boolean {
    return this.find(id) >= 0;
  }

  /** Adds the entry, or replaces the value of the one with this id. */
  set(id: TableId, value: V): void {
    if (typeof id === "number" && Number.isNaN(id)) throw new RangeError("an id cannot be NaN");
    const found = this.find(id);
    if (found >= 0) {
      this.values[found] = value;
      return;
    }
    // At most half the slots taken, so that lookups stay short.
    if ((this.taken + 1) * 2 > this.ids.length) this.rebuild(this.live + 1);
    let slot = hashOf(id) & this.mask;
    let reuse = -1;
    // `undefined` and `typeof` here, not FREE and GONE: V8 compiles these tests without watching
    // what they compare. One call at a time, a free or deleted slot is all this loop meets; once
    // calls overlap it meets live ids too, and a comparison V8 had only seen made with a symbol
    // would throw away the optimized code of every caller (the session's `dispatch`) to compile it
    // again. GONE is the one symbol a slot can hold: ids are strings and numbers.
    for (let key = this.ids[slot]; key !== undefined; key = this.ids[slot]) {
      if (reuse < 0 && typeof key === "symbol") reuse = slot;
      slot = (slot + 1) & this.mask;
    }
    if (reuse >= 0) slot = reuse;
    else this.taken++;
    this.ids[slot] = id;
    this.values[slot] = value;
    this.live++;
  }

  /** Removes the entry with this id; returns whether there was one. */
  delete(id: TableId): boolean {
    const slot = this.find(id);
    if (slot < 0) return false;
    this.ids[slot] = GONE;
    this.values[slot] = undefined;
    this.live--;
    return true;
  }

  clear(): void {
    // New arrays when the old ones grew: an emptied table goes back to its small size.
    if (this.ids.length > MIN_CAPACITY) {
      this.allocate(MIN_CAPACITY);
    } else {
      this.ids.fill(FREE);
      this.values.fill(undefined);
    }
    this.live = 0;
    this.taken = 0;
  }

  /** The ids, as a new array (the table may change while the caller walks it). */
  idList(): TableId[] {
    const ids: TableId[] = [];
    for (const id of this.ids) if (id !== FREE && id !== GONE) ids.push(id);
    return ids;
  }

  /** The values, as a new array (the table may change while the caller walks it). */
  valueList(): V[] {
    const values: V[] = [];
    for (let slot = 0; slot < this.ids.length; slot++) {
      const id = this.ids[slot];
      if (id !== FREE && id !== GONE) values.push(this.values[slot]!);
    }
    return values;
  }

  /** Empty arrays of `capacity` slots (a power of two). */
  private allocate(capacity: number): void {
    this.ids = new Array<undefined>(capacity).fill(FREE);
    this.values = new Array<undefined>(capacity).fill(undefined);
    this.mask = capacity - 1;
  }

  /** The slot holding `id`, or -1. */
  private find(id: TableId): number {
    let slot = hashOf(id) & this.mask;
    for (let key = this.ids[slot]; key !== FREE; key = this.ids[slot]) {
      if (key === id) return slot;
      slot = (slot + 1) & this.mask;
    }
    return -1;
  }

  /** New arrays sized for `entries` (a quarter full at most), holding only the live entries. */
  private rebuild(entries: number): void {
    let capacity = MIN_CAPACITY;
    while (capacity < entries * 4) capacity *= 2;
    if (this.live === 0 && capacity === this.ids.length) {
      // Only deleted entries: the arrays are wiped in place (one request at a time does this).
      this.ids.fill(FREE);
      this.taken = 0;
      return;
    }
    const ids = this.ids;
    const values = this.values;
    this.allocate(capacity);
    this.taken = this.live;
    for (let from = 0; from < ids.length; from++) {
      const id = ids[from];
      if (id === FREE || id === GONE) continue;
      let slot = hashOf(id) & this.mask;
      while (this.ids[slot] !== FREE) slot = (slot + 1) & this.mask;
      this.ids[slot] = id;
      this.values[slot] = values[from];
    }
  }
}

/** A well-spread 32-bit hash: Fibonacci hashing for small integers (the usual ids), FNV-1a otherwise. */
function hashOf(id: TableId): number {
  if (typeof id === "number" && (id | 0) === id) {
    const hash = Math.imul(id, 0x9e3779b1);
    return (hash ^ (hash >>> 16)) >>> 0;
  }
  const text = typeof id === "number" ? String(id) : id;
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) hash = Math.imul(hash ^ text.charCodeAt(i), 0x01000193);
  return hash >>> 0;
}
