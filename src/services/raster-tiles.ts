import type { Sharp } from 'sharp';
import { encodeRaster as encode, sharp } from './sharp';
import type { Pyramid, TileFormat } from '../store/types';
import { ByteLru } from '../store/bytes/lru';
import type { TileReader } from '../store/tile-reader';

export interface RasterRequest {
  /** The pyramid asked for by URL: 512 (maps' default), 256 (`/256/`), or a tile set's own size. */
  tileSize: number;
  /** 1, or 2 for `@2x`. */
  scale: number;
  z: number;
  x: number;
  y: number;
  format: TileFormat;
}

export interface RasterTile {
  data: Buffer;
  format: TileFormat;
}

const pixels = (p: Pyramid): number => p.tileSize * p.scale;
const covers = (p: Pyramid, z: number): boolean => z >= p.minzoom && z <= p.maxzoom;

/**
 * Answers raster tiles of any stored pyramid in the size, scale and format asked for. Stored bytes are returned
 * as they are whenever a pyramid matches; otherwise the tile is derived with sharp (another pyramid of the same
 * pixel size, a resize of a larger one, or a 2x2 mosaic of the next zoom) and the result is cached.
 * Every pyramid of a store addresses the same area by z/x/y; they differ only in pixels.
 */
export class RasterTiles {
  private readonly cache: ByteLru;
  /** Blank tiles by format and pixel size: a handful, each a few hundred bytes. */
  private readonly blanks = new Map<string, Promise<Buffer>>();

  constructor(cacheBytes = 64 * 1024 * 1024) {
    this.cache = new ByteLru(cacheBytes);
  }

  /** The pyramid whose stored bytes answer the request unchanged, if any (the fast, synchronous case). */
  exactPyramid(store: TileReader, req: Omit<RasterRequest, 'x' | 'y'>): Pyramid | undefined {
    // The first pyramid of that tile size and scale, else the first of that many pixels, among those that cover the
    // zoom in that format. One loop, no array or closure: every stored tile request asks.
    let samePixels: Pyramid | undefined;
    for (const p of store.info.pyramids) {
      if (!covers(p, req.z) || p.format !== req.format) continue;
      if (p.tileSize === req.tileSize && p.scale === req.scale) return p;
      if (samePixels === undefined && pixels(p) === req.tileSize * req.scale) samePixels = p;
    }
    return samePixels;
  }

  async get(store: TileReader, req: RasterRequest): Promise<RasterTile | undefined> {
    const exact = this.exactPyramid(store, req);
    if (exact) {
      const data = store.tile(exact.name, req.z, req.x, req.y);
      return data && { data, format: req.format };
    }
    const cacheKey = `${store.info.version}/${store.info.kind}/${store.info.id}/${req.tileSize}@${req.scale}/${req.z}/${req.x}/${req.y}.${req.format}`;
    const cached = this.cache.get(cacheKey);
    if (cached) return { data: cached, format: req.format };
    const image = await this.derive(store, req);
    if (!image) return undefined;
    const data = await encode(image, req.format);
    this.cache.set(cacheKey, data);
    return { data, format: req.format };
  }

  /** A tile with nothing on it, `pixels` square: transparent (png, webp), or white where there is no alpha (jpg). */
  blank(format: 'png' | 'jpg' | 'webp', pixels: number): Promise<Buffer> {
    const key = `${format}/${pixels}`;
    let made = this.blanks.get(key);
    if (!made) {
      made = encode(sharp({ create: { width: pixels, height: pixels, channels: 4, background: { r: 0, g: 0, b: 0, alpha: 0 } } }), format);
      this.blanks.set(key, made);
    }
    return made;
  }

  /** Builds the requested tile as a sharp pipeline from whichever stored pyramid serves best. */
  private async derive(store: TileReader, req: RasterRequest): Promise<Sharp | undefined> {
    const want = req.tileSize * req.scale;
    const raster = store.info.pyramids.filter((p) => p.format !== 'pbf' && p.format !== 'basis');
    const atZoom = raster.filter((p) => covers(p, req.z));
    // Same pixel size or larger at this zoom: convert or downscale (prefer the same tile size: same cartography).
    const candidates = atZoom
      .filter((p) => pixels(p) >= want)
      .sort((a, b) => Number(b.tileSize === req.tileSize) - Number(a.tileSize === req.tileSize) || pixels(a) - pixels(b));
    for (const p of candidates) {
      const data = store.tile(p.name, req.z, req.x, req.y);
      if (!data) return undefined;
      return sharp(data).resize(want, want);
    }
    // Smaller pyramids only: a 2x2 mosaic of the next zoom keeps full detail; else upscale.
    const finer = raster.find((p) => covers(p, req.z + 1) && pixels(p) * 2 >= want);
    if (finer) {
      const parts = [0, 1, 2, 3].map((i) => ({
        data: store.tile(finer.name, req.z + 1, req.x * 2 + (i % 2), req.y * 2 + (i >> 1)),
        left: (i % 2) * pixels(finer),
        top: (i >> 1) * pixels(finer),
      }));
      if (parts.every((p) => !p.data)) return undefined;
      const size = pixels(finer) * 2;
      const mosaic = sharp({ create: { width: size, height: size, channels: 4, background: { r: 0, g: 0, b: 0, alpha: 0 } } })
        .composite(parts.filter((p) => p.data).map((p) => ({ input: p.data as Buffer, left: p.left, top: p.top })));
      const flat = await mosaic.png().toBuffer();
      return sharp(flat).resize(want, want);
    }
    const largest = atZoom.sort((a, b) => pixels(b) - pixels(a))[0];
    if (!largest) return undefined;
    const data = store.tile(largest.name, req.z, req.x, req.y);
    return data && sharp(data).resize(want, want);
  }
}
