import { TileCacheKeys } from '../../src/store/bytes/tile-cache-key';

test('every tile of zooms 0-6 of two pyramids and two stores gets its own number key', () => {
  const a = new TileCacheKeys(1, ['512', '256']);
  const b = new TileCacheKeys(2, ['512']);
  const seen = new Map<number | string, string>();
  for (const [keys, store] of [[a, 'a'], [b, 'b']] as const) {
    for (const pyramid of store === 'a' ? ['512', '256'] : ['512']) {
      for (let z = 0; z <= 6; z++) {
        for (let x = 0; x < 2 ** z; x++) {
          for (let y = 0; y < 2 ** z; y++) {
            const key = keys.key(pyramid, z, x, y);
            expect(typeof key).toBe('number');
            const name = `${store}/${pyramid}/${z}/${x}/${y}`;
            expect(seen.get(key)).toBeUndefined();
            seen.set(key, name);
          }
        }
      }
    }
  }
  // 2 pyramids of store a + 1 of store b, (4^7 - 1) / 3 tiles each.
  expect(seen.size).toBe(3 * 5461);
});

test('the last tile of zoom 16 is still a distinct integer key, exact in a double', () => {
  const keys = new TileCacheKeys(3, ['main']);
  const last = keys.key('main', 16, 65535, 65535);
  const first17 = keys.key('main', 16, 65535, 65534);
  expect(Number.isSafeInteger(last)).toBe(true);
  expect(last).not.toBe(first17);
  expect(keys.key('main', 0, 0, 0)).not.toBe(last);
});

test('addresses outside the numbered range get the string key, never a number that another tile has', () => {
  const keys = new TileCacheKeys(7, ['512']);
  expect(keys.key('512', 17, 0, 0)).toBe('7/512/17/0/0');
  expect(keys.key('512', 2, 4, 0)).toBe('7/512/2/4/0'); // x beyond the zoom's last column (would be row 1's index)
  expect(keys.key('512', 2, 0, -1)).toBe('7/512/2/0/-1');
  expect(keys.key('512', 2, 1.5, 0)).toBe('7/512/2/1.5/0');
  expect(keys.key('512', 1.5, 0, 0)).toBe('7/512/1.5/0/0');
  expect(keys.key('512', Number.NaN, 0, 0)).toBe('7/512/NaN/0/0');
  expect(keys.key('other', 0, 0, 0)).toBe('7/other/0/0/0'); // a pyramid the store did not name
});
