/** Rough memory of one entry beyond its bytes (key string, Map slot, Buffer object): empty entries count too. */
const ENTRY_OVERHEAD = 96;

/**
 * A least-recently-used cache bounded by the summed cost of its entries (by default 1 each: a count). Map keeps
 * insertion order, so the first key is the oldest. An entry costing more than the bound is not kept.
 */
export class Lru<V> {
  private readonly items = new Map<string, V>();
  private cost = 0;
  /** Lookups answered from the cache, and lookups that missed, since it was made (read by /metrics). */
  hits = 0;
  misses = 0;

  constructor(
    private readonly maxCost: number,
    private readonly costOf: (value: V) => number = () => 1,
  ) {}

  get(key: string): V | undefined {
    const v = this.items.get(key);
    if (v !== undefined) {
      this.hits++;
      this.items.delete(key);
      this.items.set(key, v);
    } else this.misses++;
    return v;
  }

  set(key: string, value: V): void {
    const cost = this.costOf(value);
    if (cost > this.maxCost) return;
    const old = this.items.get(key);
    if (old !== undefined) {
      this.cost -= this.costOf(old);
      this.items.delete(key);
    }
    this.items.set(key, value);
    this.cost += cost;
    for (const [k, v] of this.items) {
      if (this.cost <= this.maxCost) break;
      this.items.delete(k);
      this.cost -= this.costOf(v);
    }
  }

  delete(key: string): void {
    const old = this.items.get(key);
    if (old === undefined) return;
    this.cost -= this.costOf(old);
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

/** A byte-bounded LRU of buffers (tiles, derived tiles, combined glyph ranges). */
export class ByteLru extends Lru<Buffer> {
  constructor(maxBytes: number) {
    super(maxBytes, (b) => b.length + ENTRY_OVERHEAD);
  }
}
