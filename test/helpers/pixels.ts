// Images compared pixel by pixel: what a client or the server drew against a stored tile.
import sharp from 'sharp';

export interface RGBA {
  width: number;
  height: number;
  data: Buffer;
}

/** Decodes any image sharp reads into raw 8-bit RGBA (alpha 255 added where the image has none). */
export async function decodeRGBA(input: Buffer | string): Promise<RGBA> {
  const { data, info } = await sharp(input).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
  if (info.channels !== 4) throw new Error(`expected 4 channels after ensureAlpha, got ${info.channels}`);
  return { width: info.width, height: info.height, data };
}

export interface PixelDiff {
  sameSize: boolean;
  size: string;
  /** Number of pixels whose RGBA differs by more than the tolerance in some channel. */
  differing: number;
  /** Largest channel difference found. */
  maxDelta: number;
  firstDifference?: string;
}

export function comparePixels(actual: RGBA, expected: RGBA, tolerance = 0): PixelDiff {
  const size = `${actual.width}x${actual.height} vs expected ${expected.width}x${expected.height}`;
  if (actual.width !== expected.width || actual.height !== expected.height) {
    return { sameSize: false, size, differing: -1, maxDelta: -1 };
  }
  let differing = 0;
  let maxDelta = 0;
  let firstDifference: string | undefined;
  // Math read once: under jest each read of a global goes through the test context's interceptor (per channel,
  // that was most of the time of a comparison).
  const { max, abs } = Math;
  const a = actual.data;
  const e = expected.data;
  for (let i = 0; i < e.length; i += 4) {
    let worst = 0;
    for (let c = 0; c < 4; c++) worst = max(worst, abs(a[i + c] - e[i + c]));
    if (worst > maxDelta) maxDelta = worst;
    if (worst > tolerance) {
      differing++;
      if (!firstDifference) {
        const p = i / 4;
        firstDifference =
          `pixel (${p % expected.width}, ${Math.floor(p / expected.width)}): ` +
          `got [${[...actual.data.subarray(i, i + 4)].join(',')}] expected [${[...expected.data.subarray(i, i + 4)].join(',')}]`;
      }
    }
  }
  return { sameSize: true, size, differing, maxDelta, firstDifference };
}

/** Asserts that an image a client produced has exactly the stored tile's pixels (within `tolerance` per channel). */
export async function expectSamePixels(actual: Buffer | string, expected: Buffer, label: string, tolerance = 0): Promise<void> {
  const [a, e] = await Promise.all([decodeRGBA(actual), decodeRGBA(expected)]);
  if (isUniform(e)) throw new Error(`${label}: the stored tile is a single colour, a useless reference (pick another tile)`);
  const d = comparePixels(a, e, tolerance);
  if (!d.sameSize || d.differing !== 0) {
    throw new Error(
      `${label}: pixels differ from the stored tile: size ${d.size}` +
        (d.sameSize ? `, ${d.differing} pixel(s) off by up to ${d.maxDelta}; first at ${d.firstDifference}` : ''),
    );
  }
}

export function isUniform(img: RGBA): boolean {
  const first = img.data.readUInt32LE(0);
  for (let i = 4; i < img.data.length; i += 4) if (img.data.readUInt32LE(i) !== first) return false;
  return true;
}

/** A 256 px PNG tile with a gradient that differs per address (never uniform, never like another tile). */
export function gradientTile(z: number, x: number, y: number): Promise<Buffer> {
  const raw = Buffer.alloc(256 * 256 * 3);
  for (let py = 0; py < 256; py++) {
    for (let px = 0; px < 256; px++) {
      const i = (py * 256 + px) * 3;
      raw[i] = (px + x * 37) & 255;
      raw[i + 1] = (py + y * 53) & 255;
      raw[i + 2] = (z * 60 + ((px ^ py) & 15)) & 255;
    }
  }
  return sharp(raw, { raw: { width: 256, height: 256, channels: 3 } }).png().toBuffer();
}
