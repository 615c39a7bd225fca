import sharp from 'sharp';
import { RasterTiles } from '../../src/services/raster-tiles';

// The blank tiles a WMTS GetTile answers for an absent tile: the requested format, the matrix's size, nothing drawn.

const tiles = new RasterTiles();

test.each([
  ['png', 256, 'png'],
  ['webp', 512, 'webp'],
] as const)('%s, %i px: transparent everywhere', async (format, pixels, decoded) => {
  const data = await tiles.blank(format, pixels);
  const { data: raw, info } = await sharp(data).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
  expect([info.format, info.width, info.height, info.channels]).toEqual(['raw', pixels, pixels, 4]);
  expect((await sharp(data).metadata()).format).toBe(decoded);
  expect(raw.every((v, i) => i % 4 !== 3 || v === 0)).toBe(true);
});

test('jpg has no alpha: white everywhere', async () => {
  const data = await tiles.blank('jpg', 256);
  expect(data.subarray(0, 3)).toEqual(Buffer.from([0xff, 0xd8, 0xff]));
  const { data: raw, info } = await sharp(data).raw().toBuffer({ resolveWithObject: true });
  expect([info.width, info.height]).toEqual([256, 256]);
  expect(raw.every((v) => v >= 250)).toBe(true);
});

test('made once per format and size', async () => {
  expect(await tiles.blank('png', 256)).toBe(await tiles.blank('png', 256));
});
