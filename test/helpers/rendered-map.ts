// A map that has no raster tile of its own, only its vector data: the bundled sample's map as `tilemirror mirror
// --raster render` stores it (raster pyramids described, no tile in them, metadata tilemirror_raster=render), so
// the server renders every tile of it. And the oracle of the clients that read such a map: the server's own
// renders of a window of tiles, fetched over HTTP one by one and put side by side with sharp.
import Database from 'better-sqlite3';
import { cpSync, existsSync, readdirSync } from 'node:fs';
import { join, sep } from 'node:path';
import sharp from 'sharp';
import { fetchOk, withKey } from './fetch';
import { comparePixels, decodeRGBA, isUniform, type RGBA } from './pixels';
import { SAMPLE_DIR } from './server';
import { tileBounds3857 } from './stored-tiles';

/**
 * A copy of the sample data directory in `parent`/data; with `renderOnly`, its map maps/sample holds no raster
 * tile and says so (as `--raster render` stores it). Returns the data directory.
 */
export function sampleCopy(parent: string, renderOnly: boolean): string {
  const dir = join(parent, 'data');
  // Never another run's renders: a server over the sample itself may have kept some there.
  cpSync(SAMPLE_DIR, dir, { recursive: true, filter: (src) => !src.split(sep).includes('.renders') });
  if (renderOnly) {
    const db = new Database(join(dir, 'maps', 'sample.mbtiles'));
    db.exec("DELETE FROM tiles; DELETE FROM tilemirror_tiles; INSERT OR REPLACE INTO metadata (name, value) VALUES ('tilemirror_raster', 'render')");
    db.close();
  }
  return dir;
}

/**
 * The server's `render` settings for tests of clients on a busy machine: one browser (one render at a time, no core
 * left idle by a second one waiting on the first), and a deadline that a render of a whole metatile on two shared
 * cores stays under (the default, 30 s, is for a server that has its cores).
 */
export const PATIENT_RENDER = { render: { browsers: 1, deadlineSeconds: 180 } };

/** A block of whole tiles at one zoom: `cols` × `rows` tiles from tile x, y (XYZ, rows from the north). */
export interface TileWindow {
  z: number;
  x: number;
  y: number;
  cols: number;
  rows: number;
  /** 512 (the map's main pyramid, /maps/ID/z/x/y) or 256 (/maps/ID/256/z/x/y). */
  tileSize: 512 | 256;
}

/** EPSG:3857 bounds [minX, minY, maxX, maxY] of a window. */
export function windowBounds3857(w: TileWindow): [number, number, number, number] {
  const [minX, , , maxY] = tileBounds3857({ z: w.z, x: w.x, y: w.y });
  const [, minY, maxX] = tileBounds3857({ z: w.z, x: w.x + w.cols - 1, y: w.y + w.rows - 1 });
  return [minX, minY, maxX, maxY];
}

/** Pixel size of a window. */
export function windowSize(w: TileWindow): { width: number; height: number } {
  return { width: w.cols * w.tileSize, height: w.rows * w.tileSize };
}

/** The URL of one PNG tile of a map as the server serves it (the render of it, for a map with only renders). */
export function mapTileUrl(base: string, mapId: string, tileSize: 512 | 256, z: number, x: number, y: number): string {
  return withKey(`${base}/maps/${mapId}${tileSize === 256 ? '/256' : ''}/${z}/${x}/${y}.png`);
}

/**
 * The window's tiles fetched from the server (each answered 200 image/png) and laid side by side: what a client that
 * copies the map's tiles 1:1 into that window must show. Fetching them also leaves them kept, so a client asking
 * afterwards gets the kept renders, not a render of its own.
 */
export async function renderedWindow(base: string, mapId: string, w: TileWindow): Promise<RGBA & { png: Buffer }> {
  const tiles: sharp.OverlayOptions[] = [];
  for (let r = 0; r < w.rows; r++) {
    for (let c = 0; c < w.cols; c++) {
      const { body, contentType } = await fetchOk(mapTileUrl(base, mapId, w.tileSize, w.z, w.x + c, w.y + r));
      if (!/^image\/png/.test(contentType)) throw new Error(`tile ${w.z}/${w.x + c}/${w.y + r}: ${contentType}, not a PNG`);
      const size = await sharp(body).metadata();
      if (size.width !== w.tileSize || size.height !== w.tileSize) {
        throw new Error(`tile ${w.z}/${w.x + c}/${w.y + r} is ${size.width}x${size.height}, not ${w.tileSize} px`);
      }
      tiles.push({ input: body, left: c * w.tileSize, top: r * w.tileSize });
    }
  }
  const { width, height } = windowSize(w);
  const png = await sharp({ create: { width, height, channels: 4, background: { r: 0, g: 0, b: 0, alpha: 0 } } })
    .composite(tiles)
    .png()
    .toBuffer();
  return { ...(await decodeRGBA(png)), png };
}

/** Distinct RGBA colours of an image: a drawn map has many, a blank one or two. */
export function colourCount(img: RGBA): number {
  const seen = new Set<number>();
  for (let i = 0; i < img.data.length; i += 4) seen.add(img.data.readUInt32LE(i));
  return seen.size;
}

/**
 * Asserts that what a client showed is the renders, pixel for pixel (within `tolerance` per channel), and logs the
 * share of equal pixels. The renders must be a drawn map: a blank or one-colour window would prove nothing.
 */
export function expectRenders(actual: RGBA, renders: RGBA, label: string, tolerance = 0): void {
  if (isUniform(renders) || colourCount(renders) < 50) throw new Error(`${label}: the renders are not a drawn map (${colourCount(renders)} colours)`);
  const d = comparePixels(actual, renders, tolerance);
  if (!d.sameSize) throw new Error(`${label}: ${d.size}`);
  const total = renders.width * renders.height;
  // eslint-disable-next-line no-console
  console.log(`${label}: ${(100 * (1 - d.differing / total)).toFixed(3)} % of ${total} pixels equal the renders (max channel difference ${d.maxDelta})`);
  if (d.differing !== 0) {
    throw new Error(`${label}: ${d.differing} of ${total} pixels differ from the renders by more than ${tolerance}, by up to ${d.maxDelta}; first at ${d.firstDifference}`);
  }
}

/** The published render stores of a map (not staging files), each with its tiles and zooms, read with SQL. */
export function publishedRenders(dataDir: string, mapId: string): { file: string; tiles: number; zooms: number[] }[] {
  const dir = join(dataDir, '.renders', 'maps', mapId);
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((f) => f.endsWith('.mbtiles') && !f.startsWith('.'))
    .map((file) => {
      const db = new Database(join(dir, file), { readonly: true });
      try {
        const tiles = db.prepare('SELECT (SELECT count(*) FROM tiles) + (SELECT count(*) FROM tilemirror_tiles)').pluck().get() as number;
        const zooms = db.prepare('SELECT DISTINCT zoom_level FROM tiles UNION SELECT DISTINCT zoom_level FROM tilemirror_tiles ORDER BY 1').pluck().all() as number[];
        return { file, tiles, zooms };
      } finally {
        db.close();
      }
    });
}
