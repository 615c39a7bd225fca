// The raster tiles of the sample map, drawn with sharp (librsvg) from Natural Earth.
//
// A 512 px tile at zoom z covers the area of a 256 px tile at zoom z, so both pyramids sample the
// same pixel grids: the world of 256·2^k pixels gives the 256 px tiles of zoom k and the 512 px
// tiles of zoom k-1. Each grid is rendered once, as SVG in blocks of at most 2048 px, and cut.

import crypto from 'node:crypto';
import sharp from 'sharp';
import type { Position } from 'geojson';
import { latToPixelY, lonToPixelX } from '../geo/mercator';

// Polygons reaching the poles are drawn past the world's edge (89.9°) so no seam shows along it.
const DRAW_MAX_LAT = 89.9;
import { naturalEarth, rings, wrapOffsets } from './natural-earth';
import { COLORS } from './style';
import { mapLimit, type TileEntry } from './store-file';

const BLOCK = 2048;

/** A projected ring or line: flat [x0, y0, x1, y1, ...] in world pixels, with its bounding box. */
interface Shape {
  pts: number[];
  /** minx, miny, maxx, maxy */
  box: [number, number, number, number];
}

interface Layers {
  land: Shape[];
  coasts: Shape[];
  borders: Shape[];
  graticule: Shape[];
}

type Rect = [number, number, number, number];

/** Projects a line (once per wrap offset), dropping points closer than 0.35 px to the last kept one. */
function project(line: Position[], size: number): Shape[] {
  return wrapOffsets(line).map((off) => {
    const pts: number[] = [];
    const box: Rect = [Infinity, Infinity, -Infinity, -Infinity];
    for (let i = 0; i < line.length; i++) {
      const x = lonToPixelX(line[i][0] + off, size);
      const y = latToPixelY(line[i][1], size, DRAW_MAX_LAT);
      const n = pts.length;
      if (n > 0 && i < line.length - 1 && Math.abs(x - pts[n - 2]) < 0.35 && Math.abs(y - pts[n - 1]) < 0.35) continue;
      pts.push(x, y);
      if (x < box[0]) box[0] = x;
      if (y < box[1]) box[1] = y;
      if (x > box[2]) box[2] = x;
      if (y > box[3]) box[3] = y;
    }
    return { pts, box };
  });
}

function graticule(size: number, step: number): Shape[] {
  const lines: Position[][] = [];
  for (let lon = -180 + step; lon < 180; lon += step) lines.push([[lon, -85.06], [lon, 85.06]]);
  for (let lat = -90 + step; lat < 90; lat += step) lines.push([[-180, lat], [180, lat]]);
  return lines.flatMap((l) => project(l, size));
}

function layersFor(k: number): Layers {
  const size = 256 * 2 ** k;
  const ne = naturalEarth(k <= 2 ? '110m' : '50m');
  return {
    land: ne.countries.flatMap((c) => rings(c.geometry).flatMap((r) => project(r, size))),
    coasts: ne.coasts.flatMap((l) => project(l, size)),
    borders: ne.borders.flatMap((l) => project(l, size)),
    graticule: graticule(size, k <= 2 ? 30 : 10),
  };
}

function fmt(v: number): string {
  return (Math.round(v * 10) / 10).toString();
}

function pathData(pts: number[], close: boolean): string {
  let d = '';
  for (let i = 0; i < pts.length; i += 2) d += (i ? 'L' : 'M') + fmt(pts[i]) + ' ' + fmt(pts[i + 1]);
  return close ? d + 'Z' : d;
}

const overlaps = (b: Rect, r: Rect) => b[2] >= r[0] && b[0] <= r[2] && b[3] >= r[1] && b[1] <= r[3];
const inside = (b: Rect, r: Rect) => b[0] >= r[0] && b[2] <= r[2] && b[1] >= r[1] && b[3] <= r[3];

/**
 * Sutherland–Hodgman clip of a ring to a rectangle. The result may have degenerate edges along the
 * rectangle's sides; the rectangle lies outside the drawn area, so they never show.
 */
function clipRing(pts: number[], r: Rect): number[] {
  let cur = pts;
  for (let edge = 0; edge < 4; edge++) {
    const axis = edge & 1; // 0: x, 1: y
    const lim = r[edge];
    const keep = edge < 2 ? (v: number) => v >= lim : (v: number) => v <= lim;
    const out: number[] = [];
    const n = cur.length / 2;
    if (n === 0) return out;
    for (let i = 0; i < n; i++) {
      const j = (i + n - 1) % n;
      const ax = cur[2 * j], ay = cur[2 * j + 1], bx = cur[2 * i], by = cur[2 * i + 1];
      const a = axis ? ay : ax;
      const b = axis ? by : bx;
      const ain = keep(a), bin = keep(b);
      if (ain !== bin) {
        const t = (lim - a) / (b - a);
        out.push(ax + (bx - ax) * t, ay + (by - ay) * t);
      }
      if (bin) out.push(bx, by);
    }
    cur = out;
  }
  return cur;
}

/** Path data of the rings of `shapes` clipped to `r`. */
function polygonsIn(shapes: Shape[], r: Rect): string {
  let d = '';
  for (const s of shapes) {
    if (!overlaps(s.box, r)) continue;
    const pts = inside(s.box, r) ? s.pts : clipRing(s.pts, r);
    if (pts.length >= 6) d += pathData(pts, true);
  }
  return d;
}

/** Path data of the parts of the lines of `shapes` whose segments touch `r`. */
function linesIn(shapes: Shape[], r: Rect): string {
  let d = '';
  for (const s of shapes) {
    if (!overlaps(s.box, r)) continue;
    if (inside(s.box, r)) {
      d += pathData(s.pts, false);
      continue;
    }
    let run: number[] = [];
    const flush = () => {
      if (run.length >= 4) d += pathData(run, false);
      run = [];
    };
    for (let i = 2; i < s.pts.length; i += 2) {
      const ax = s.pts[i - 2], ay = s.pts[i - 1], bx = s.pts[i], by = s.pts[i + 1];
      const seg: Rect = [Math.min(ax, bx), Math.min(ay, by), Math.max(ax, bx), Math.max(ay, by)];
      if (overlaps(seg, r)) {
        if (run.length === 0) run.push(ax, ay);
        run.push(bx, by);
      } else flush();
    }
    flush();
  }
  return d;
}

function blockSvg(L: Layers, k: number, x0: number, y0: number, w: number): string {
  const lineW = k <= 2 ? 0.7 : 1;
  const m = 8; // clip margin: wider than any stroke, so clipped ends never show
  const r: Rect = [x0 - m, y0 - m, x0 + w + m, y0 + w + m];
  const parts = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${w}" height="${w}" viewBox="${x0} ${y0} ${w} ${w}">`,
    `<rect x="${x0}" y="${y0}" width="${w}" height="${w}" fill="${COLORS.ocean}"/>`,
  ];
  const grat = linesIn(L.graticule, r);
  if (grat) parts.push(`<path d="${grat}" fill="none" stroke="${COLORS.graticule}" stroke-width="1"/>`);
  const land = polygonsIn(L.land, r);
  if (land) parts.push(`<path d="${land}" fill="${COLORS.land}" fill-rule="evenodd" stroke="none"/>`);
  const coasts = linesIn(L.coasts, r);
  if (coasts) {
    parts.push(
      `<path d="${coasts}" fill="none" stroke="${COLORS.coast}" stroke-width="${lineW}" stroke-linejoin="round" stroke-linecap="round"/>`,
    );
  }
  const borders = linesIn(L.borders, r);
  if (borders) {
    parts.push(
      `<path d="${borders}" fill="none" stroke="${COLORS.border}" stroke-width="${lineW}" stroke-linejoin="round" stroke-linecap="round"/>`,
    );
  }
  parts.push('</svg>');
  return parts.join('');
}

/** Copies the square tile at (px, py) of edge `t` out of an RGB block of width `w`. */
function cut(block: Buffer, w: number, px: number, py: number, t: number): Buffer {
  const out = Buffer.allocUnsafe(t * t * 3);
  for (let row = 0; row < t; row++) {
    const src = ((py + row) * w + px) * 3;
    block.copy(out, row * t * 3, src, src + t * 3);
  }
  return out;
}

export interface MapRasterOptions {
  maxzoom: number;
  log?: (msg: string) => void;
}

/**
 * Renders the '512' and '256' pyramids of the sample map for zooms 0..maxzoom.
 * Identical tiles (open ocean, inland) are encoded once.
 */
export async function renderMapTiles(opts: MapRasterOptions): Promise<TileEntry[]> {
  const entries: TileEntry[] = [];
  const cache = new Map<string, Promise<Buffer>>();
  const encode = (raw: Buffer, t: number): Promise<Buffer> => {
    const key = `${t}:` + crypto.createHash('sha1').update(raw).digest('hex');
    let hit = cache.get(key);
    if (!hit) {
      hit = sharp(raw, { raw: { width: t, height: t, channels: 3 } })
        .png({ compressionLevel: 6, adaptiveFiltering: false })
        .toBuffer();
      cache.set(key, hit);
    }
    return hit;
  };
  for (let k = 0; k <= opts.maxzoom + 1; k++) {
    const size = 256 * 2 ** k;
    const L = layersFor(k);
    const w = Math.min(size, BLOCK);
    const n = size / w;
    const blocks: [number, number][] = [];
    for (let by = 0; by < n; by++) for (let bx = 0; bx < n; bx++) blocks.push([bx, by]);
    const t0 = Date.now();
    await mapLimit(blocks, 2, async ([bx, by]) => {
      const svg = blockSvg(L, k, bx * w, by * w, w);
      const { data, info } = await sharp(Buffer.from(svg), { density: 72 })
        .removeAlpha()
        .raw()
        .toBuffer({ resolveWithObject: true });
      if (info.width !== w || info.height !== w || info.channels !== 3) {
        throw new Error(`unexpected render ${info.width}x${info.height}x${info.channels}`);
      }
      const jobs: Promise<void>[] = [];
      const add = (pyramid: string, z: number, t: number) => {
        for (let ty = 0; ty < w / t; ty++) {
          for (let tx = 0; tx < w / t; tx++) {
            const x = (bx * w) / t + tx;
            const y = (by * w) / t + ty;
            jobs.push(encode(cut(data, w, tx * t, ty * t, t), t).then((png) => void entries.push({ pyramid, z, x, y, data: png })));
          }
        }
      };
      if (k <= opts.maxzoom) add('256', k, 256);
      if (k >= 1) add('512', k - 1, 512);
      await Promise.all(jobs);
    });
    opts.log?.(`sample map: world ${size} px rendered and cut in ${Date.now() - t0} ms`);
  }
  const order = (p: string) => (p === '512' ? 0 : 1);
  entries.sort((a, b) => order(a.pyramid) - order(b.pyramid) || a.z - b.z || a.x - b.x || a.y - b.y);
  return entries;
}
