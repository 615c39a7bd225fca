import { ByteLru, Lru } from '../../src/store/bytes/lru';

test('a count-bounded LRU keeps the most recently used entries', () => {
  const lru = new Lru<string>(2);
  lru.set('a', 'A');
  lru.set('b', 'B');
  expect(lru.get('a')).toBe('A'); // a is now the most recent
  lru.set('c', 'C'); // evicts b
  expect(lru.get('b')).toBeUndefined();
  expect(lru.get('a')).toBe('A');
  expect(lru.get('c')).toBe('C');
  expect(lru.size).toBe(2);
  lru.delete('a');
  expect(lru.get('a')).toBeUndefined();
  expect(lru.size).toBe(1);
});

test('a byte-bounded LRU counts bytes plus a per-entry overhead and refuses entries larger than the bound', () => {
  const lru = new ByteLru(1000);
  lru.set('big', Buffer.alloc(1000)); // 1000 + overhead > bound: not kept
  expect(lru.get('big')).toBeUndefined();
  expect(lru.size).toBe(0);
  lru.set('x', Buffer.alloc(400));
  lru.set('y', Buffer.alloc(400)); // 2 x (400 + 96) = 992
  expect(lru.size).toBe(992);
  lru.set('x', Buffer.alloc(10)); // replacing an entry gives back its cost: 106 + 496
  expect(lru.size).toBe(602);
  lru.set('z', Buffer.alloc(400)); // 1098 > 1000: the oldest (y) goes
  expect(lru.get('y')).toBeUndefined();
  expect(lru.size).toBe(602);
  // An empty buffer (a cached absence) is an entry like any other.
  lru.set('absent', Buffer.alloc(0));
  expect(lru.get('absent')).toEqual(Buffer.alloc(0));
});

test('a large LRU moves a hit entry only when it is not among the newest quarter, and still evicts the least recent first', () => {
  const lru = new Lru<number>(100);
  for (let i = 0; i < 100; i++) lru.set(`k${i}`, i);
  expect(lru.get('k0')).toBe(0); // the oldest: moved to the newest end
  lru.set('new1', -1); // evicts k1, not k0
  expect(lru.get('k1')).toBeUndefined();
  expect(lru.get('k0')).toBe(0);
  expect(lru.get('k99')).toBe(99); // among the newest quarter: left where it is
  for (let i = 0; i < 80; i++) lru.set(`more${i}`, i); // 80 more: the 80 oldest (k2…k81) go; k0, moved after k99, stays
  expect(lru.get('k81')).toBeUndefined();
  expect(lru.get('k82')).toBe(82);
  expect(lru.get('k0')).toBe(0);
  expect(lru.size).toBe(100);
});

test('after many evictions, moves and deletions the LRU still holds exactly the most recently used entries', () => {
  // Three entries: the newest quarter is empty, so every hit moves its entry and the order is exact LRU, which a
  // list kept by hand in the test follows.
  const lru = new Lru<number>(3);
  let order: string[] = []; // least recent first
  let seed = 7;
  const next = (n: number) => (seed = (seed * 1103515245 + 12345) % 2147483648) % n;
  const wrong: string[] = [];
  for (let i = 0; i < 5_000; i++) {
    const key = `k${next(8)}`;
    const op = next(10);
    if (op < 5) {
      const held = order.includes(key);
      if ((lru.get(key) !== undefined) !== held) wrong.push(`step ${i}: get ${key}`);
      if (held) order = [...order.filter((k) => k !== key), key];
    } else if (op < 9) {
      lru.set(key, i);
      order = [...order.filter((k) => k !== key), key];
      if (order.length > 3) order.shift();
    } else {
      lru.delete(key);
      order = order.filter((k) => k !== key);
    }
    if (lru.size !== order.length) wrong.push(`step ${i}: size ${lru.size}, want ${order.length}`);
  }
  expect(wrong.slice(0, 5)).toEqual([]);
  for (const key of order) expect(lru.get(key)).toBeDefined();
});
