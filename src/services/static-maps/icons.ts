// Marker icons, all from local stores (never fetched): an icon of the map's sprite (the style's `sprite`,
// `tilemirror://sprites/{id}/sprite`, or a list of {id, url} where `id:name` picks one), or a mirrored image
// (an `images` store) drawn at its image.json size from its pyramid.

import type { OverlayOptions } from 'sharp';
import { sharp } from '../sharp';
import type { Catalog } from '../../store/catalog/catalog';
import type { DocumentStore } from '../../store/mbtiles/document-store';
import { Lru } from '../../store/bytes/lru';
import type { TileReader } from '../../store/tile-reader';
import { StaticMapError, type IconRef } from './request';

/** A picture to draw as a marker: PNG bytes and its size in CSS pixels at marker scale 1. */
export interface Icon {
  png: Buffer;
  /** CSS pixels. */
  width: number;
  height: number;
  /** Identifies the bytes (store version and name): part of the image's ETag. */
  version: string;
}

interface SpriteEntry {
  x: number;
  y: number;
  width: number;
  height: number;
  pixelRatio?: number;
}

interface SpriteSheet {
  index: Record<string, SpriteEntry>;
  png: Buffer;
  ratio: number;
}

const LOCAL_SPRITE = /^tilemirror:\/\/sprites\/([^/?#]+)\/sprite$/;

/** Longest side, in pixels, of an image icon as decoded (it is scaled in the SVG from there). */
const MAX_IMAGE_ICON_PX = 2048;

/**
 * The marker icons of static maps, with what they keep between requests: the sprite sheets and style sprites read
 * per store (forgotten with the store), and the decoded icons (a bounded count: names are chosen by requests).
 */
export class MarkerIcons {
  private readonly sheets = new WeakMap<DocumentStore, Map<number, SpriteSheet | null>>();
  private readonly icons = new Lru<Promise<Icon>>(256);
  private readonly styleSprites = new WeakMap<TileReader, Array<{ prefix: string; id: string }>>();

  constructor(private readonly catalog: Catalog) {}

  /** The sprites the map's stored style.json names (mirrored ones only), the default one first. */
  mapSprites(map: TileReader): Array<{ prefix: string; id: string }> {
    let out = this.styleSprites.get(map);
    if (out) return out;
    out = [];
    const doc = map.document('style.json');
    if (doc) {
      try {
        const sprite = (JSON.parse(doc.data.toString('utf8')) as { sprite?: unknown }).sprite;
        const entries: Array<{ id: string; url: unknown }> =
          typeof sprite === 'string' ? [{ id: '', url: sprite }] : Array.isArray(sprite) ? (sprite as Array<{ id: string; url: unknown }>) : [];
        for (const e of entries) {
          const m = typeof e?.url === 'string' ? LOCAL_SPRITE.exec(e.url) : null;
          if (!m) continue;
          try {
            out.push({ prefix: e.id === 'default' ? '' : String(e.id ?? ''), id: decodeURIComponent(m[1]) });
          } catch {
            // A badly encoded id names no store.
          }
        }
      } catch {
        // A broken style has no sprite.
      }
    }
    out.sort((a, b) => Number(a.prefix !== '') - Number(b.prefix !== ''));
    this.styleSprites.set(map, out);
    return out;
  }

  private sheet(store: DocumentStore, ratio: 1 | 2): SpriteSheet | null {
    let byRatio = this.sheets.get(store);
    if (!byRatio) this.sheets.set(store, (byRatio = new Map()));
    const cached = byRatio.get(ratio);
    if (cached !== undefined) return cached;
    const suffix = ratio === 2 ? '@2x' : '';
    const json = store.document(`sprite${suffix}.json`);
    const png = store.document(`sprite${suffix}.png`);
    let result: SpriteSheet | null = null;
    if (json && png) {
      try {
        result = { index: JSON.parse(json.data.toString('utf8')) as Record<string, SpriteEntry>, png: png.data, ratio };
      } catch {
        result = null;
      }
    }
    byRatio.set(ratio, result);
    return result;
  }

  private spriteIcon(store: DocumentStore, name: string, deviceScale: number): Promise<Icon> | undefined {
    // The sheet of the image's pixel ratio when there is one, else the other.
    const order: Array<1 | 2> = deviceScale >= 2 ? [2, 1] : [1, 2];
    for (const ratio of order) {
      const s = this.sheet(store, ratio);
      const e = s && Object.prototype.hasOwnProperty.call(s.index, name) ? s.index[name] : undefined;
      if (!s || !e) continue;
      const key = `sprite/${store.id}/${store.version}/${ratio}/${name}`;
      let icon = this.icons.get(key);
      if (!icon) {
        const pr = e.pixelRatio ?? ratio;
        icon = sharp(s.png)
          .extract({ left: e.x, top: e.y, width: e.width, height: e.height })
          .png()
          .toBuffer()
          .then((png) => ({ png, width: e.width / pr, height: e.height / pr, version: key }));
        icon.catch(() => undefined);
        this.icons.set(key, icon);
      }
      return icon;
    }
    return undefined;
  }

  private imageIcon(store: TileReader, devicePx: number): Promise<Icon> {
    const { info } = store;
    const p = info.pyramids[0];
    const tilePx = p.tileSize * p.scale;
    const full = info.image ?? { width: tilePx * 2 ** p.maxzoom, height: tilePx * 2 ** p.maxzoom };
    // The coarsest zoom that still has the pixels the marker needs (at most MAX_IMAGE_ICON_PX across).
    const need = Math.min(devicePx, MAX_IMAGE_ICON_PX);
    let z = p.maxzoom;
    while (z > p.minzoom && Math.max(full.width, full.height) / 2 ** (p.maxzoom - z + 1) >= need) z--;
    while (z > p.minzoom && Math.max(full.width, full.height) / 2 ** (p.maxzoom - z) > MAX_IMAGE_ICON_PX) z--;
    const key = `image/${info.id}/${info.version}/${z}`;
    let icon = this.icons.get(key);
    if (!icon) {
      icon = (async () => {
        const f = 2 ** (p.maxzoom - z);
        const w = Math.max(1, Math.round(full.width / f));
        const h = Math.max(1, Math.round(full.height / f));
        const cols = Math.ceil(w / tilePx);
        const rows = Math.ceil(h / tilePx);
        const parts: OverlayOptions[] = [];
        for (let y = 0; y < rows; y++) {
          for (let x = 0; x < cols; x++) {
            const data = store.tile(p.name, z, x, y);
            if (data) parts.push({ input: data, left: x * tilePx, top: y * tilePx });
          }
        }
        const mosaic = await sharp({ create: { width: cols * tilePx, height: rows * tilePx, channels: 4, background: { r: 0, g: 0, b: 0, alpha: 0 } } })
          .composite(parts)
          .raw()
          .toBuffer();
        const png = await sharp(mosaic, { raw: { width: cols * tilePx, height: rows * tilePx, channels: 4 } })
          .extract({ left: 0, top: 0, width: w, height: h })
          .png()
          .toBuffer();
        return { png, width: full.width, height: full.height, version: key };
      })();
      icon.catch(() => undefined);
      this.icons.set(key, icon);
    }
    return icon;
  }

  /**
   * The icon a marker names, or a StaticMapError naming it. `deviceScale` is the pixel ratio times the marker
   * scale: it picks the sprite sheet (1x or @2x) and the zoom an image is decoded from.
   */
  resolve(map: TileReader, ref: IconRef, deviceScale: number): Promise<Icon> {
    const { catalog } = this;
    if (ref.kind === 'named') {
      const sprites = this.mapSprites(map);
      const colon = ref.name.indexOf(':');
      const wanted = colon > 0 ? { prefix: ref.name.slice(0, colon), name: ref.name.slice(colon + 1) } : undefined;
      for (const s of sprites) {
        const store = catalog.documents('sprites', s.id);
        if (!store) continue;
        const name = wanted ? (wanted.prefix === s.prefix ? wanted.name : undefined) : s.prefix === '' ? ref.name : undefined;
        const icon = name !== undefined && this.spriteIcon(store, name, deviceScale);
        if (icon) return icon;
      }
      // Not a sprite icon: a mirrored image of that id.
      const image = catalog.get('images', ref.name);
      if (image) return this.imageIcon(image, deviceScale * Math.max(image.info.image?.width ?? 0, image.info.image?.height ?? 0));
      throw new StaticMapError(
        `Invalid markers icon "${ref.name}": ${sprites.length ? "no such icon in the map's sprite" : 'the map has no mirrored sprite'} and no mirrored image of that name`,
      );
    }
    if (ref.kind === 'image') {
      const image = catalog.get('images', ref.imageId);
      if (!image) throw new StaticMapError(`Invalid markers icon "images/${ref.imageId}": no mirrored image of that name`);
      return this.imageIcon(image, deviceScale * Math.max(image.info.image?.width ?? 0, image.info.image?.height ?? 0));
    }
    throw new Error('the default pin is drawn, not resolved');
  }
}
