// The messages a render share queues in Redis: a drawn metatile's tiles travel as one binary message, read back
// byte for byte; a message whose header and body disagree is refused rather than stored.

import { decodeDrawn, encodeDrawn, runKeys } from '../../src/mirror/jobs/render-share';
import type { DrawnMetatile } from '../../src/services/prerender';

const tile = (x: number, y: number, format: 'png' | 'webp', bytes: number[]) => ({
  tile: { mapId: 'sample', styleVersion: 'v1', tileSize: 512 as const, scale: 2 as const, z: 3, x, y, format },
  data: Buffer.from(bytes),
});

test('a drawn metatile survives its message: band, place, every tile and its bytes', () => {
  const drawn: DrawnMetatile = { band: 7, index: 2, tiles: [tile(4, 2, 'png', [137, 80, 78, 71, 0, 255]), tile(5, 2, 'webp', []), tile(4, 3, 'png', [1])] };
  const message = encodeDrawn(drawn);
  expect(message.length).toBe(4 + message.readUInt32BE(0) + 7);
  expect(decodeDrawn(message)).toEqual(drawn);
});

test('a message cut short or padded is refused', () => {
  const message = encodeDrawn({ band: 0, index: 0, tiles: [tile(0, 0, 'png', [1, 2, 3])] });
  expect(() => decodeDrawn(message.subarray(0, message.length - 1))).toThrow(/has \d+ bytes, its header says/);
  expect(() => decodeDrawn(Buffer.concat([message, Buffer.from([0])]))).toThrow(/has \d+ bytes, its header says/);
});

test('a run\'s keys sit under the scheduler\'s prefix, one lock per band', () => {
  const k = runKeys('tm', 'abc');
  expect([k.run, k.done, k.drawn, k.band(12)]).toEqual(['tm:render:run:abc', 'tm:render:run:abc:done', 'tm:render:run:abc:drawn', 'tm:render:run:abc:band:12']);
});
