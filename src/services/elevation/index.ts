// Elevation from mirrored terrain tiles: the height at any lon/lat, read bilinearly from the deepest zoom of the
// terrain pyramid that has a tile there (a world z0-8 plus a region at z12 answers everywhere: z12 inside the
// region, z8 elsewhere). Used by the `/elevation` endpoint and, in-process, by the geolocation service.
//
// Which tileset: `elevation.tileset` in the configuration (a `tiles` store id), else the catalog's choice
// (select.ts: `terrain-rgb-v2`, else a PNG/WebP tile set whose metadata names an encoding or whose id names
// terrain). How its pixels encode heights: encoding.ts. Interpolation: bilinear.ts. Tiles are decoded with sharp
// into heights once and kept in an LRU bounded by `elevation.cacheMb`; decodes of one tile by concurrent
// requests are shared.

import { sharp } from '../sharp';
import { MAX_LAT } from '../../geo/mercator';
import { ServiceError } from '../../errors';
import type { Catalog } from '../../store/catalog/catalog';
import { Lru } from '../../store/bytes/lru';
import type { TileStore } from '../../store/tile-reader';
import { coveringTile, interpolate, taps, type HeightGrid, type Tap } from './bilinear';
import { decoder, encodingOf, type TerrainEncoding } from './encoding';
import { chooseTerrain, isTerrain } from './select';

export { decodeMapbox, decodeTerrarium, encodingOf, METRES_PER_FOOT, type TerrainEncoding } from './encoding';
export { chooseTerrain, isTerrain, CLOUD_TERRAIN_ID } from './select';
export { coveringTile, interpolate, taps, type HeightGrid, type Tap } from './bilinear';

/**
 * No terrain tileset to read from: none mirrored, the configured one is missing or not terrain, or the one being
 * read was closed under the request (replaced by a newer version) or cannot be read.
 */
export class NoTerrainError extends ServiceError {
  constructor(message: string) {
    super('unavailable', message);
  }
}

export interface ElevationOptions {
  /** Id of the `tiles` store to read; absent: chosen from the catalog. */
  tileset?: string;
  /** Memory for decoded tiles, in MB (a 256 px tile takes 256 KB, a 512 px one 1 MB). */
  cacheMb: number;
  /** Told once per tile version that cannot be decoded (it is then treated as absent). */
  onBadTile?: (tile: string, error: Error) => void;
}

/**
 * The in-process height lookup the geolocation service takes as its `elevationAt` option (LOCATION.md/GEOCODE.md):
 * pass `elevationService.elevationAt` (a bound arrow property, safe to hand over detached).
 */
export type ElevationAt = (lon: number, lat: number) => Promise<number | undefined>;

export interface Heights {
  /** The tile set read. */
  tileset: string;
  /** Metres per position, unrounded; undefined where the tile set has no tile (or no data) at any zoom. */
  heights: (number | undefined)[];
}

/** Rounds metres (or feet) to the centimetre: below the 0.1 m step of Terrain-RGB, above float noise. */
export function roundHeight(value: number): number {
  return Math.round(value * 100) / 100;
}

const ENTRY_OVERHEAD = 96;
/** Marker of a tile that could not be decoded (kept so it is not decoded, nor reported, again). */
const UNDECODABLE: HeightGrid = { width: 0, heights: new Float32Array(0) };

/** Heights of every pixel of a PNG or WebP terrain tile; NaN where the pixel is transparent. */
export async function decodeTerrainTile(data: Buffer, encoding: TerrainEncoding): Promise<HeightGrid> {
  // Terrain tiles are 8-bit RGB or RGBA: read as they are (one byte per sample); anything else (grey, 16 bit,
  // a palette libvips expands otherwise) converted to 8-bit RGBA.
  let { data: px, info } = await sharp(data).raw().toBuffer({ resolveWithObject: true });
  if (info.size !== info.width * info.height * info.channels || (info.channels !== 3 && info.channels !== 4)) {
    ({ data: px, info } = await sharp(data).toColourspace('srgb').ensureAlpha().raw({ depth: 'uchar' }).toBuffer({ resolveWithObject: true }));
  }
  if (info.width !== info.height) throw new Error(`not a square tile (${info.width}x${info.height})`);
  const decode = decoder(encoding);
  const channels = info.channels;
  const heights = new Float32Array(info.width * info.height);
  for (let i = 0, o = 0; i < heights.length; i++, o += channels) {
    heights[i] = channels === 4 && px[o + 3] === 0 ? NaN : decode(px[o], px[o + 1], px[o + 2]);
  }
  return { width: info.width, heights };
}

export class ElevationService {
  private readonly grids: Lru<HeightGrid>;
  private readonly pending = new Map<string, Promise<HeightGrid | undefined>>();

  constructor(private readonly catalog: Catalog, private readonly options: ElevationOptions) {
    this.grids = new Lru<HeightGrid>(Math.max(0, options.cacheMb) * 1024 * 1024, (g) => g.heights.byteLength + ENTRY_OVERHEAD);
  }

  /** The terrain store read now; throws NoTerrainError when there is none. */
  terrain(): TileStore {
    const configured = this.options.tileset;
    if (configured !== undefined) {
      const store = this.catalog.get('tiles', configured);
      if (!store) throw new NoTerrainError(`The configured elevation tileset tiles/${configured} is not in the data directory`);
      if (store.info.format !== 'png' && store.info.format !== 'webp') {
        throw new NoTerrainError(`The configured elevation tileset tiles/${configured} holds ${store.info.format} tiles, not PNG or WebP terrain`);
      }
      return store;
    }
    const chosen = chooseTerrain(this.catalog.list('tiles'));
    const store = chosen && this.catalog.get('tiles', chosen.id);
    if (!store || !isTerrain(store.info)) {
      throw new NoTerrainError('No terrain tileset is mirrored (mirror tiles/terrain-rgb-v2, or set elevation.tileset)');
    }
    return store;
  }

  /** Heights in metres at [lon, lat] positions (longitude in -180..180, latitude within ±85.05); throws NoTerrainError. */
  async heights(positions: readonly (readonly [number, number])[]): Promise<Heights> {
    const store = this.terrain();
    const encoding = encodingOf(store.info);
    const heights = await Promise.all(positions.map(([lon, lat]) => this.sample(store, encoding, lon, lat)));
    return { tileset: store.info.id, heights };
  }

  /**
   * The height in metres (rounded to the centimetre) at lon/lat, for other services (geolocation): undefined when
   * no terrain is mirrored or none covers the point, or the point is not on the Web Mercator map (non-finite, or
   * beyond ±85.0511° of latitude). Longitudes are taken modulo 360.
   */
  elevationAt: ElevationAt = async (lon, lat) => {
    if (!Number.isFinite(lon) || !Number.isFinite(lat) || Math.abs(lat) > MAX_LAT) return undefined;
    const wrapped = ((((lon + 180) % 360) + 360) % 360) - 180;
    try {
      const h = (await this.heights([[wrapped, lat]])).heights[0];
      return h === undefined ? undefined : roundHeight(h);
    } catch (err) {
      if (err instanceof NoTerrainError) return undefined;
      throw err;
    }
  };

  /** Bilinear at the deepest zoom with a tile under the point; undefined when no zoom has one (with data). */
  private async sample(store: TileStore, encoding: TerrainEncoding, lon: number, lat: number): Promise<number | undefined> {
    const { minzoom, maxzoom, tileSize, scale } = store.info.pyramids[0];
    const expected = tileSize * scale;
    for (let z = maxzoom; z >= minzoom; z--) {
      const [cx, cy] = coveringTile(lon, lat, z);
      // The neighbours the point needs are asked for at once, with the pyramid's tile size, so their decodes run
      // beside the covering tile's instead of after it; asked again when the tile turns out another size.
      const early = this.neighbours(store, encoding, z, cx, cy, taps(lon, lat, z, cx, cy, expected));
      const cover = await this.grid(store, encoding, z, cx, cy);
      if (!cover) continue;
      const points = taps(lon, lat, z, cx, cy, cover.width);
      const pending = cover.width === expected ? early : this.neighbours(store, encoding, z, cx, cy, points);
      const around = new Map<string, HeightGrid | undefined>();
      for (const [k, grid] of pending) around.set(k, await grid);
      const h = interpolate(points, cover, (dx, dy) => around.get(`${dx},${dy}`));
      if (h !== undefined) return h;
    }
    return undefined;
  }

  /** The adjacent tiles (across the antimeridian too) that taps with weight read, by `dx,dy`. */
  private neighbours(store: TileStore, encoding: TerrainEncoding, z: number, cx: number, cy: number, points: readonly Tap[]): Map<string, Promise<HeightGrid | undefined>> {
    const n = 2 ** z;
    const out = new Map<string, Promise<HeightGrid | undefined>>();
    for (const t of points) {
      const k = `${t.dx},${t.dy}`;
      if (t.weight === 0 || (t.dx === 0 && t.dy === 0) || cy + t.dy < 0 || cy + t.dy >= n || out.has(k)) continue;
      const grid = this.grid(store, encoding, z, (cx + t.dx + n) % n, cy + t.dy);
      // Not awaited when the covering tile turns out absent: its failure must not go unhandled (it still rejects
      // for whoever awaits it).
      grid.catch(() => undefined);
      out.set(k, grid);
    }
    return out;
  }

  /** The decoded tile z/x/y of the store's main pyramid; undefined when absent or undecodable. */
  private async grid(store: TileStore, encoding: TerrainEncoding, z: number, x: number, y: number): Promise<HeightGrid | undefined> {
    const key = `${store.info.version}/${encoding}/${z}/${x}/${y}`;
    const cached = this.grids.get(key);
    if (cached) return cached === UNDECODABLE ? undefined : cached;
    let data: Buffer | undefined;
    try {
      data = store.tile(store.info.pyramids[0].name, z, x, y);
    } catch (err) {
      // The store was closed under this request (a newer version was published) or its file cannot be read.
      throw new NoTerrainError(`The terrain tileset tiles/${store.info.id} cannot be read now (${(err as Error).message}); retry`);
    }
    if (!data) return undefined;
    let decoding = this.pending.get(key);
    if (!decoding) {
      decoding = decodeTerrainTile(data, encoding).then(
        (g) => {
          this.grids.set(key, g);
          return g;
        },
        (err: unknown) => {
          this.grids.set(key, UNDECODABLE);
          this.options.onBadTile?.(`tiles/${store.info.id}/${z}/${x}/${y}`, err as Error);
          return undefined;
        },
      );
      this.pending.set(key, decoding);
      void decoding.finally(() => this.pending.delete(key));
    }
    return decoding;
  }
}
