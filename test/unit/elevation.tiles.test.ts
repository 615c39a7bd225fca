import sharp from 'sharp';
import { decodeTerrainTile } from '../../src/services/elevation';

// Tiles in every form a mirror may hold them, made here with sharp from known colours: the decoded heights are
// those colours read by the encodings' formulas (written out below, not taken from the service).

const W = 8;
/** Raw pixels: pixel i has colour `rgba(i)`. */
function raw(channels: 3 | 4, rgba: (i: number) => number[]): Buffer {
  const out = Buffer.alloc(W * W * channels);
  for (let i = 0; i < W * W; i++) out.set(rgba(i).slice(0, channels), i * channels);
  return out;
}
const colour = (i: number): number[] => [1, 134 + (i % 3), (i * 7) % 256, i % 5 === 0 ? 0 : 255];
const mapbox = ([r, g, b]: number[]): number => -10000 + (r * 65536 + g * 256 + b) / 10;

test('RGB PNG, and lossless WebP of the same pixels, decode alike', async () => {
  const pixels = raw(3, colour);
  const png = await sharp(pixels, { raw: { width: W, height: W, channels: 3 } }).png().toBuffer();
  const webp = await sharp(pixels, { raw: { width: W, height: W, channels: 3 } }).webp({ lossless: true }).toBuffer();
  for (const file of [png, webp]) {
    const g = await decodeTerrainTile(file, 'mapbox');
    expect(g.width).toBe(W);
    for (let i = 0; i < W * W; i++) expect(g.heights[i]).toBeCloseTo(mapbox(colour(i)), 2);
  }
});

test('RGBA PNG: transparent pixels have no height (NaN), the others theirs', async () => {
  const png = await sharp(raw(4, colour), { raw: { width: W, height: W, channels: 4 } }).png().toBuffer();
  const g = await decodeTerrainTile(png, 'mapbox');
  for (let i = 0; i < W * W; i++) {
    if (i % 5 === 0) expect(g.heights[i]).toBeNaN();
    else expect(g.heights[i]).toBeCloseTo(mapbox(colour(i)), 2);
  }
});

test('a grey PNG is read as RGB with three equal bytes (Terrarium here)', async () => {
  const grey = Buffer.alloc(W * W);
  for (let i = 0; i < W * W; i++) grey[i] = 128 + (i % 4);
  const png = await sharp(grey, { raw: { width: W, height: W, channels: 1 } }).png().toBuffer();
  const g = await decodeTerrainTile(png, 'terrarium');
  for (let i = 0; i < W * W; i++) {
    const v = 128 + (i % 4);
    expect(g.heights[i]).toBeCloseTo(v * 256 + v + v / 256 - 32768, 3);
  }
});

test('a tile that is not a square image is refused', async () => {
  const png = await sharp(Buffer.alloc(8 * 4 * 3), { raw: { width: 8, height: 4, channels: 3 } }).png().toBuffer();
  await expect(decodeTerrainTile(png, 'mapbox')).rejects.toThrow('not a square tile (8x4)');
  await expect(decodeTerrainTile(Buffer.from('not an image'), 'mapbox')).rejects.toThrow();
});
