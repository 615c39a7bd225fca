/** Rough memory of one entry beyond its bytes (key string, Map slot, Buffer object): empty entries count too. */
const ENTRY_OVERHEAD = 96;

/** A byte-bounded least-recently-used cache (Map keeps insertion order, so the first key is the oldest). */
export class ByteLru {
  private readonly items = new Map<string, Buffer>();
  private bytes = 0;

  constructor(private readonly maxBytes: number) {}

  get(key: string): Buffer | undefined {
    const v = this.items.get(key);
    if (v) {
      this.items.delete(key);
      this.items.set(key, v);
    }
    return v;
  }

  set(key: string, value: Buffer): void {
    const cost = value.length + ENTRY_OVERHEAD;
    if (cost > this.maxBytes) return;
    const old = this.items.get(key);
    if (old) {
      this.bytes -= old.length + ENTRY_OVERHEAD;
      this.items.delete(key);
    }
    this.items.set(key, value);
    this.bytes += cost;
    for (const [k, v] of this.items) {
      if (this.bytes <= this.maxBytes) break;
      this.items.delete(k);
      this.bytes -= v.length + ENTRY_OVERHEAD;
    }
  }

  get size(): number {
    return this.bytes;
  }
}
