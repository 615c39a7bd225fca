// Keys of the shared tile cache (a ByteLru, catalog/catalog.ts). A served tile looks its key up on every request: a
// string key (`${tag}/${pyramid}/${z}/${x}/${y}`) is built, flattened and hashed each time (~0.7 µs of a
// ~50 µs tile request in the serve benchmark's profile); a number is a little arithmetic and hashes at once.
// Tiles of zooms 0-16 of a pyramid with a number prefix get a number, every other tile the string as before.
// Numbers and strings never equal each other as Map keys, so the two kinds cannot collide.

/** Deepest zoom numbered: its tiles' indices stay below 2^33 ((4^17 - 1) / 3 tiles in zooms 0-16). */
const NUMBERED_MAX_ZOOM = 16;
const INDEX_SPAN = 2 ** 33;
/** Prefixes handed out below 2^20: prefix * 2^33 + index stays below 2^53, exact in a double. */
const MAX_PREFIXES = 2 ** 20;

/** The index of the first tile of each zoom when zooms 0, 1, 2… are numbered one after the other. */
const ZOOM_START: readonly number[] = Array.from({ length: NUMBERED_MAX_ZOOM + 1 }, (_, z) => (4 ** z - 1) / 3);

/** Prefixes handed out in this process: each opened pyramid gets its own, never reused. */
let prefixesHandedOut = 0;

/**
 * The cache keys of one opened store's pyramids. `tag` is unique to the opened file (a replaced store is a new
 * object, a new tag, new prefixes: it never answers from the old file's entries).
 */
export class TileCacheKeys {
  private readonly prefixes = new Map<string, number>();

  constructor(
    private readonly tag: number,
    pyramids: readonly string[],
  ) {
    for (const name of pyramids) {
      // After 2^20 opened pyramids (republished stores included), string keys only: still correct, a little slower.
      if (prefixesHandedOut < MAX_PREFIXES) this.prefixes.set(name, prefixesHandedOut++ * INDEX_SPAN);
    }
  }

  /** The key of tile z/x/y of `pyramid`: a number for valid addresses of zooms 0-16, else a string. */
  key(pyramid: string, z: number, x: number, y: number): number | string {
    const prefix = this.prefixes.get(pyramid);
    // `(v & m) === v` holds only for integers 0..m: anything else (negative, fractional, NaN, too large) takes the string.
    if (prefix !== undefined && (z & 31) === z && z <= NUMBERED_MAX_ZOOM) {
      const last = (1 << z) - 1;
      if ((x & last) === x && (y & last) === y) return prefix + ZOOM_START[z] + y * (last + 1) + x;
    }
    return `${this.tag}/${pyramid}/${z}/${x}/${y}`;
  }
}
