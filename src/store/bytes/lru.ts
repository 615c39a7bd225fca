/** Rough memory of one entry beyond its bytes (key string, Map slot, Buffer object): empty entries count too. */
const ENTRY_OVERHEAD = 96;

/**
 * A least-recently-used cache bounded by the summed cost of its entries (by default 1 each: a count). Map keeps
 * insertion order, so the first key is the oldest. An entry costing more than the bound is not kept.
 *
 * A hit moves its entry to the newest end (delete + set) only when it is not already among the newest quarter of
 * the entries: with thousands of hot tiles, moving on every hit cost ~5 µs a request in Map churn (a quarter of
 * the serve benchmark's JavaScript time) for no change in what gets evicted first. Small caches stay exact.
 *
 * Eviction takes the oldest entries from one iterator kept across calls. A Map iterator is live (it skips entries
 * deleted before it reaches them and goes on to entries added after it was made), and everything before its
 * position was evicted through it, so its next entry is always the oldest. A new iterator per eviction walked
 * again over the slots every earlier eviction and move had left empty at the front of the Map until V8 compacted
 * it: ~8 µs a miss on a random load over more tiles than the cache holds (15 KB tiles in 64 MB, ~4,300 of them),
 * against ~0.5 µs with the kept iterator.
 */
export class Lru<V, K = string> {
  private readonly items = new Map<K, { value: V; tick: number }>();
  /** Where eviction goes on from: every entry before it has been evicted (renewed once it has run off the end). */
  private oldest: Iterator<[K, { value: V; tick: number }]> = this.items.entries();
  private cost = 0;
  /** Entries (re)inserted so far: an entry's tick says how many came after it. */
  private tick = 0;
  /** Lookups answered from the cache, and lookups that missed, since it was made (read by /metrics). */
  hits = 0;
  misses = 0;

  constructor(
    private readonly maxCost: number,
    private readonly costOf: (value: V) => number = () => 1,
  ) {}

  get(key: K): V | undefined {
    const e = this.items.get(key);
    if (e === undefined) {
      this.misses++;
      return undefined;
    }
    this.hits++;
    if (this.tick - e.tick > this.items.size >> 2) {
      this.items.delete(key);
      e.tick = ++this.tick;
      this.items.set(key, e);
    }
    return e.value;
  }

  set(key: K, value: V): void {
    const cost = this.costOf(value);
    if (cost > this.maxCost) return;
    const old = this.items.get(key);
    if (old !== undefined) {
      this.cost -= this.costOf(old.value);
      this.items.delete(key);
    }
    this.items.set(key, { value, tick: ++this.tick });
    this.cost += cost;
    while (this.cost > this.maxCost) {
      let next = this.oldest.next();
      if (next.done === true) {
        // A finished iterator stays finished: entries added since need a new one.
        this.oldest = this.items.entries();
        next = this.oldest.next();
        if (next.done === true) return;
      }
      const [k, e] = next.value;
      this.items.delete(k);
      this.cost -= this.costOf(e.value);
    }
  }

  delete(key: K): void {
    const old = this.items.get(key);
    if (old === undefined) return;
    this.cost -= this.costOf(old.value);
    this.items.delete(key);
  }

  /** The summed cost of what is held (bytes for a ByteLru). */
  get size(): number {
    return this.cost;
  }

  /** The bound on the summed cost (bytes for a ByteLru). */
  get capacity(): number {
    return this.maxCost;
  }
}

/** A byte-bounded LRU of buffers (tiles, derived tiles, combined glyph ranges); tiles may be keyed by number (tile-cache-key.ts). */
export class ByteLru extends Lru<Buffer, string | number> {
  constructor(maxBytes: number) {
    super(maxBytes, (b) => b.length + ENTRY_OVERHEAD);
  }
}
