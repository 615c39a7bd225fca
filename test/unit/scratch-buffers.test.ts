// The pool of working buffers image work borrows: a lease's buffers come back together, a size class serves the
// sizes below it, buffers held at once are distinct, and what is kept idle is bounded.
import { ScratchBuffers } from '../../src/services/scratch-buffers';

const MB = 1024 * 1024;

describe('ScratchBuffers', () => {
  test('a released buffer is lent again to the next lease of a size in its class', () => {
    const pool = new ScratchBuffers(64 * MB);
    const a = pool.lease();
    const first = a.take(3 * MB);
    expect(first.byteLength).toBe(4 * MB); // rounded up to a power of two
    a.release();
    expect(pool.idleBytes).toBe(4 * MB);
    const b = pool.lease();
    expect(b.take(3.5 * MB)).toBe(first);
    expect(pool.idleBytes).toBe(0);
    expect({ made: pool.made, reused: pool.reused }).toEqual({ made: 1, reused: 1 });
    // Another class is another buffer.
    expect(b.take(5 * MB).byteLength).toBe(8 * MB);
    b.release();
    expect(pool.idleBytes).toBe(12 * MB);
  });

  test('buffers held at once are distinct, within a lease and across leases', () => {
    const pool = new ScratchBuffers(64 * MB);
    const a = pool.lease();
    const b = pool.lease();
    const held = [a.take(MB), a.take(MB), b.take(MB)];
    expect(new Set(held).size).toBe(3);
    a.release();
    // b's buffer is not among those a gave back.
    const c = pool.lease();
    const again = [c.take(MB), c.take(MB), c.take(MB)];
    expect(again).toContain(held[0]);
    expect(again).toContain(held[1]);
    expect(again).not.toContain(held[2]);
  });

  test('idle bytes stay within the bound; a release twice gives nothing back twice', () => {
    const pool = new ScratchBuffers(5 * MB);
    const a = pool.lease();
    a.take(4 * MB);
    a.take(4 * MB);
    a.take(MB);
    a.release();
    expect(pool.idleBytes).toBe(5 * MB); // one 4 MB buffer and the 1 MB one; the second 4 MB is left to the GC
    a.release();
    expect(pool.idleBytes).toBe(5 * MB);
  });

  test('beyond 16 MB a buffer is made to measure and not kept', () => {
    const pool = new ScratchBuffers(256 * MB);
    const a = pool.lease();
    const big = a.take(16 * MB + 1);
    expect(big.byteLength).toBe(16 * MB + 1);
    expect(a.take(16 * MB).byteLength).toBe(16 * MB);
    a.release();
    expect(pool.idleBytes).toBe(16 * MB);
    expect(pool.lease().take(16 * MB + 1)).not.toBe(big);
  });

  test('small sizes share the smallest class; a size that is no byte count is refused', () => {
    const pool = new ScratchBuffers(MB);
    const a = pool.lease();
    expect(a.take(0).byteLength).toBe(64 * 1024);
    expect(a.take(100).byteLength).toBe(64 * 1024);
    expect(() => a.take(-1)).toThrow(RangeError);
    expect(() => a.take(1.5)).toThrow(RangeError);
    expect(() => a.take(NaN)).toThrow(RangeError);
  });
});
