// Static map images rendered from a map's mirrored raster pyramids: the pixels of one stored level under the
// view are assembled from its tiles (decoded by sharp), resized with sharp when the zoom is fractional or the
// level's pixels differ, and the paths, markers (one SVG rendered by librsvg) and the attribution (a text badge)
// are blended over them. The layout (layout.ts) says what to draw; see chooseLevel (view.ts) for how the level
// is picked.

import { sharp } from '../sharp';
import { ByteLru, Lru } from '../../store/bytes/lru';
import type { BaseTiles, StaticMapLayout } from './layout';
import type { Level } from './view';
import { overlaySvg } from './overlay';
import { RenderAbandoned } from './queue';
import type { StaticMapRequest } from './request';

/** A render gives up (an error of sharp's, an internal error to the client) after this long; sharp stops the work. */
const RENDER_TIMEOUT_S = 30;

/** What renders keep between them (the static-map service owns them): attribution badges and decoded tiles. */
export interface RenderCaches {
  /** Keyed by the request's width and height too: bounded, or requests could grow it without end. */
  badges: Lru<Promise<Raw | undefined>>;
  /** Decoded tiles (raw RGBA), shared by all maps, keyed by store version. */
  decoded: ByteLru;
}

/** Empty caches: at most 64 badges, and 64 MB of decoded tiles (~64 tiles of 512 px). */
export function renderCaches(): RenderCaches {
  return { badges: new Lru(64), decoded: new ByteLru(64 * 1024 * 1024) };
}

// ---- attribution badge ----

function escapeMarkup(s: string): string {
  return s.replace(/[&<>]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;' })[c] as string);
}

/** The attribution as a small half-transparent white box with dark text, at most `maxWidth` wide (text wraps). */
function badge(badges: RenderCaches['badges'], text: string, scale: number, maxWidth: number, maxHeight: number): Promise<Raw | undefined> {
  const key = `${scale}|${maxWidth}|${maxHeight}|${text}`;
  let b = badges.get(key);
  if (b) return b;
  b = (async () => {
    const pad = 3 * scale;
    if (maxWidth - 2 * pad < 10 * scale || maxHeight < 10 * scale + 2 * pad) return undefined;
    const label = await rasterize(
      await sharp({
        text: { text: `<span foreground="#333333">${escapeMarkup(text)}</span>`, font: `sans ${10 * scale}`, dpi: 72, rgba: true, width: maxWidth - 2 * pad, wrap: 'word-char' },
      })
        .png()
        .toBuffer(),
    );
    const width = Math.min(maxWidth, label.width + 2 * pad);
    const height = Math.min(maxHeight, label.height + 2 * pad);
    const box: Raw = { data: Buffer.alloc(width * height * 4), width, height };
    for (let i = 0; i < width * height; i++) box.data.writeUInt32BE(0xffffffbf, i * 4); // white, alpha 0.75
    blend(box, label, pad, pad);
    return box;
  })();
  b.catch(() => badges.delete(key));
  badges.set(key, b);
  return b;
}

// ---- rendering ----
//
// Pixels are handled as raw RGBA buffers: tiles are decoded once (and kept in a bounded cache), the source
// region under the image is assembled by copying rows (tiles never overlap, so no blending is needed), resized
// in one sharp call when the level's scale differs, and the overlays are blended in place. libvips' composite is
// far slower than this for a few overlays on one image (measured: ~100 ms vs ~3 ms for 512 x 512).

export interface Raw {
  data: Buffer;
  width: number;
  height: number;
}

async function decodeTile(decoded: ByteLru, base: BaseTiles, level: Level, x: number, y: number): Promise<Buffer | undefined> {
  const key = `${base.version}/${level.pyramid.name}/${level.z}/${x}/${y}`;
  const hit = decoded.get(key);
  if (hit) return hit.length === 0 ? undefined : hit;
  const bytes = await base.tile(level.pyramid.name, level.z, x, y);
  let data: Buffer = Buffer.alloc(0);
  if (bytes) {
    const t = level.tilePx;
    const out = await sharp(bytes).ensureAlpha().resize(t, t, { fit: 'fill' }).raw().toBuffer({ resolveWithObject: true });
    if (out.info.channels !== 4) throw new Error(`tile ${key} decoded to ${out.info.channels} channels`);
    data = out.data;
  }
  decoded.set(key, data);
  return data.length === 0 ? undefined : data;
}

/**
 * The source pixels [x0, x0+width) x [y0, y0+height) of a level of `base` (x wraps around the world; rows beyond
 * the poles and missing tiles stay transparent), its tiles decoded through `decoded`, in a buffer from `allocate`
 * when given (a pool's). Static maps and WMS GetMap draw from it.
 */
export async function sourceRegion(
  decoded: ByteLru,
  base: BaseTiles,
  level: Level,
  x0: number,
  y0: number,
  width: number,
  height: number,
  allocate?: (bytes: number) => ArrayBuffer,
): Promise<Raw> {
  const t = level.tilePx;
  const n = 2 ** level.z;
  const bytes = width * height * 4;
  const out = allocate ? Buffer.from(allocate(bytes), 0, bytes).fill(0) : Buffer.alloc(bytes);
  const tx0 = Math.floor(x0 / t);
  const tx1 = Math.floor((x0 + width - 1) / t);
  const ty0 = Math.max(0, Math.floor(y0 / t));
  const ty1 = Math.min(n - 1, Math.floor((y0 + height - 1) / t));
  const jobs: Array<Promise<void>> = [];
  for (let ty = ty0; ty <= ty1; ty++) {
    for (let tx = tx0; tx <= tx1; tx++) {
      jobs.push(
        decodeTile(decoded, base, level, ((tx % n) + n) % n, ty).then((tile) => {
          if (!tile) return;
          // The part of this tile inside the region, in region coordinates.
          const left = Math.max(x0, tx * t);
          const right = Math.min(x0 + width, (tx + 1) * t);
          const top = Math.max(y0, ty * t);
          const bottom = Math.min(y0 + height, (ty + 1) * t);
          for (let y = top; y < bottom; y++) {
            const src = ((y - ty * t) * t + (left - tx * t)) * 4;
            tile.copy(out, ((y - y0) * width + (left - x0)) * 4, src, src + (right - left) * 4);
          }
        }),
      );
    }
  }
  await Promise.all(jobs);
  return { data: out, width, height };
}

/** Copies `src` into `dst` with its top-left corner at (atX, atY), clipped. */
function place(dst: Raw, src: Raw, atX: number, atY: number): void {
  const left = Math.max(0, atX);
  const right = Math.min(dst.width, atX + src.width);
  if (right <= left) return;
  for (let y = Math.max(0, atY); y < Math.min(dst.height, atY + src.height); y++) {
    const s = ((y - atY) * src.width + (left - atX)) * 4;
    src.data.copy(dst.data, (y * dst.width + left) * 4, s, s + (right - left) * 4);
  }
}

/** Blends `src` (straight alpha) over `dst` at (atX, atY), clipped: Porter-Duff "over". */
function blend(dst: Raw, src: Raw, atX: number, atY: number): void {
  const d = dst.data;
  const o = src.data;
  for (let y = Math.max(0, atY); y < Math.min(dst.height, atY + src.height); y++) {
    for (let x = Math.max(0, atX); x < Math.min(dst.width, atX + src.width); x++) {
      const i = ((y - atY) * src.width + (x - atX)) * 4;
      const a = o[i + 3];
      if (a === 0) continue;
      const j = (y * dst.width + x) * 4;
      if (a === 255) {
        d[j] = o[i];
        d[j + 1] = o[i + 1];
        d[j + 2] = o[i + 2];
        d[j + 3] = 255;
        continue;
      }
      const as = a / 255;
      const ad = d[j + 3] / 255;
      const ao = as + ad * (1 - as);
      const k = (ad * (1 - as)) / ao;
      const m = as / ao;
      d[j] = Math.round(o[i] * m + d[j] * k);
      d[j + 1] = Math.round(o[i + 1] * m + d[j + 1] * k);
      d[j + 2] = Math.round(o[i + 2] * m + d[j + 2] * k);
      d[j + 3] = Math.round(ao * 255);
    }
  }
}

async function rasterize(input: Buffer): Promise<Raw> {
  const { data, info } = await sharp(input).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
  return { data, width: info.width, height: info.height };
}

// ---- the cost of the overlay ----
//
// librsvg's cost grows with the segments drawn times the rows they cross (and their crossings, for a
// self-intersecting fill or a wide stroke): a 900-vertex self-intersecting filled path of width 100 took 15 s at
// 4096 px, 0.8 s at 1024 px. An overlay with many segments is drawn at most OVERLAY_CHEAP_PX across and scaled up
// to the image: its edges soften, its cost is bounded by the segment count alone.

/** Drawn segments beyond which the overlay is rasterized at a reduced size. */
const OVERLAY_MANY_SEGMENTS = 256;
const OVERLAY_CHEAP_PX = 1024;

/** Straight segments in the overlay's path data (our own SVG: every `L` of a `d` attribute is one). */
export function overlaySegments(svg: string): number {
  let n = 0;
  for (const m of svg.matchAll(/ d="([^"]*)"/g)) for (const c of m[1]) if (c === 'L') n++;
  return n;
}

/** The overlay's pixels at the image's size; drawn smaller and scaled up when it has many segments. */
async function rasterizeOverlay(svg: string, width: number, height: number): Promise<Raw> {
  const f = OVERLAY_CHEAP_PX / Math.max(width, height);
  if (f >= 1 || overlaySegments(svg) <= OVERLAY_MANY_SEGMENTS) return rasterize(Buffer.from(svg));
  const small = await sharp(Buffer.from(svg), { density: 72 * f }).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
  const data = await sharp(small.data, { raw: { width: small.info.width, height: small.info.height, channels: 4 } })
    .resize(width, height, { fit: 'fill', kernel: 'cubic' })
    .timeout({ seconds: RENDER_TIMEOUT_S })
    .raw()
    .toBuffer();
  return { data, width, height };
}

/** The map under the window: the level's pixels, resized when the level's scale is not the image's. */
async function baseMap(decoded: ByteLru, layout: StaticMapLayout, signal: AbortSignal | undefined): Promise<Raw> {
  const { window: w } = layout;
  const f = w.world / layout.level.worldPx; // device pixels per source pixel
  if (f === 1) return sourceRegion(decoded, layout.base, layout.level, w.x0, w.y0, w.width, w.height);
  // The source pixels under the window plus a few around it (the resampling kernel sees real neighbours).
  const m = 3;
  const sx = Math.floor(w.x0 / f) - m;
  const sy = Math.floor(w.y0 / f) - m;
  const sw = Math.ceil((w.x0 + w.width) / f) + m - sx;
  const sh = Math.ceil((w.y0 + w.height) / f) + m - sy;
  const region = await sourceRegion(decoded, layout.base, layout.level, sx, sy, sw, sh);
  checkpoint(signal);
  const rw = Math.max(1, Math.round(sw * f));
  const rh = Math.max(1, Math.round(sh * f));
  const resized = await sharp(region.data, { raw: { width: sw, height: sh, channels: 4 } })
    .resize(rw, rh, { fit: 'fill', kernel: f < 1 ? 'lanczos3' : 'cubic' })
    .timeout({ seconds: RENDER_TIMEOUT_S })
    .raw()
    .toBuffer();
  const out: Raw = { data: Buffer.alloc(w.width * w.height * 4), width: w.width, height: w.height };
  place(out, { data: resized, width: rw, height: rh }, Math.round(sx * f - w.x0), Math.round(sy * f - w.y0));
  return out;
}

function cornerOf(corner: StaticMapRequest['attribution'], w: number, h: number, bw: number, bh: number): { left: number; top: number } {
  const right = corner === 'bottomright' || corner === 'topright';
  const bottom = corner === 'bottomright' || corner === 'bottomleft';
  return { left: right ? w - bw : 0, top: bottom ? h - bh : 0 };
}

/** Pixels a render holds at once (source region, output, overlay), for the shared budget. */
export function renderWeight(layout: StaticMapLayout): number {
  const f = layout.window.world / layout.level.worldPx;
  const out = layout.window.width * layout.window.height;
  return Math.ceil(out / Math.min(1, f) ** 2) + 3 * out;
}

/** A checkpoint between the steps of a render: stops it when its client went away. */
function checkpoint(signal: AbortSignal | undefined): void {
  if (signal?.aborted) throw new RenderAbandoned();
}

/** Draws the laid-out image into its format's bytes; stops at a checkpoint when `signal` fires (RenderAbandoned). */
export async function drawStaticMap(layout: StaticMapLayout, caches: RenderCaches, signal: AbortSignal | undefined): Promise<Buffer> {
  const { window: w, request: req } = layout;
  const svg = overlaySvg(w, req.paths, req.markers, layout.icons);
  const wantBadge = layout.attribution !== '' && req.attribution !== false;
  // Settled, not raced: the budget is only given back once no step of this render is still working.
  const steps = await Promise.allSettled([
    baseMap(caches.decoded, layout, signal),
    svg ? rasterizeOverlay(svg, w.width, w.height) : undefined,
    wantBadge ? badge(caches.badges, layout.attribution, req.scale, w.width, Math.floor(w.height / 3)) : undefined,
  ]);
  checkpoint(signal);
  const [base, overlay, badgeRaw] = steps.map((s) => {
    if (s.status === 'rejected') throw s.reason;
    return s.value;
  }) as [Raw, Raw | undefined, Raw | undefined];
  if (overlay) blend(base, overlay, 0, 0);
  if (badgeRaw) {
    checkpoint(signal);
    const at = cornerOf(req.attribution, w.width, w.height, badgeRaw.width, badgeRaw.height);
    blend(base, badgeRaw, at.left, at.top);
  }
  checkpoint(signal);
  const img = sharp(base.data, { raw: { width: base.width, height: base.height, channels: 4 } }).timeout({ seconds: RENDER_TIMEOUT_S });
  if (req.format === 'jpg') return img.flatten({ background: '#ffffff' }).jpeg({ quality: 90 }).toBuffer();
  if (req.format === 'webp') return img.webp({ quality: 90 }).toBuffer();
  return img.png().toBuffer();
}
