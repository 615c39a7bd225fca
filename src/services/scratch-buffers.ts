// Large working buffers of image work (a WMS image's warp grid, source region and canvas) lent out and taken back,
// instead of new ones per image. Each new ArrayBuffer of megabytes counts as V8's external memory, and its growth
// starts a full mark-compact of the whole heap: with ~12 MB new per 1024 x 768 GetMap, V8 ran one per image, ~40 %
// of the CPU an image cost (four marking threads and the main thread). Reused buffers add nothing to it.

/** Sizes are rounded up to a power of two from this (a region's size varies with the request; classes let the
 *  buffers of one request serve the next). */
const MIN_CLASS = 64 * 1024;
/** Larger buffers (an image over ~2048 x 2048) are made to measure and not kept: rounding them up could nearly
 *  double the memory of the largest images, and those are few and slow enough that their collection is no matter. */
const MAX_CLASS = 16 * 1024 * 1024;

const sizeClass = (bytes: number): number => {
  let c = MIN_CLASS;
  while (c < bytes) c *= 2;
  return c;
};

/** The buffers one piece of work holds; all go back to the pool with `release`. */
export interface ScratchLease {
  /** A buffer of at least `bytes` bytes, contents undefined (the last user's). */
  take(bytes: number): ArrayBuffer;
  /** Gives every buffer taken back. Nothing taken through this lease may be used after it. */
  release(): void;
}

export class ScratchBuffers {
  private readonly free = new Map<number, ArrayBuffer[]>();
  /** Bytes held by free buffers. */
  private idle = 0;
  /** Buffers made and buffers lent again, since the pool was made (read by tests and the bench). */
  made = 0;
  reused = 0;

  /** `maxIdle`: bytes of free buffers kept at most; what would go beyond is left to the garbage collector. */
  constructor(private readonly maxIdle: number) {}

  lease(): ScratchLease {
    let taken: ArrayBuffer[] = [];
    return {
      take: (bytes) => {
        const buffer = this.take(bytes);
        taken.push(buffer);
        return buffer;
      },
      release: () => {
        for (const b of taken) this.give(b);
        taken = [];
      },
    };
  }

  /** Bytes held by free buffers now. */
  get idleBytes(): number {
    return this.idle;
  }

  private take(bytes: number): ArrayBuffer {
    if (!(bytes >= 0) || !Number.isSafeInteger(bytes)) throw new RangeError(`scratch size must be a byte count, got ${bytes}`);
    if (bytes > MAX_CLASS) {
      this.made++;
      return new ArrayBuffer(bytes);
    }
    const c = sizeClass(bytes);
    const list = this.free.get(c);
    const hit = list?.pop();
    if (hit) {
      this.idle -= c;
      this.reused++;
      return hit;
    }
    this.made++;
    return new ArrayBuffer(c);
  }

  private give(buffer: ArrayBuffer): void {
    const c = buffer.byteLength;
    if (c > MAX_CLASS || this.idle + c > this.maxIdle) return;
    let list = this.free.get(c);
    if (!list) this.free.set(c, (list = []));
    list.push(buffer);
    this.idle += c;
  }
}
