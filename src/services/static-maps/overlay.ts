// The SVG drawn over the map: paths, markers (the default pin, or icons) and their labels, in device pixels of
// the output image. Geometry is clipped to the image (plus a margin) before it is written, so a path that runs
// millions of pixels off-image at a deep zoom stays within what the SVG renderer handles exactly.

import type { Rgba } from './color';
import { svgPaint } from './color';
import type { Icon } from './icons';
import type { Anchor, StaticMarker, StaticPath } from './request';
import { worldX, worldY, type Extents } from './view';

/** The window of the world the image shows: device pixel (0, 0) is world pixel (x0, y0). */
export interface Window {
  x0: number;
  y0: number;
  /** Device pixels across the world. */
  world: number;
  /** Output size in device pixels. */
  width: number;
  height: number;
  /** Device pixels per CSS pixel (1, or 2 for @2x). */
  scale: number;
}

/** The default pin, in its own box of CSS pixels: a round head and a point whose flat 4 px tip is the anchor. */
export const PIN = {
  width: 24,
  height: 36,
  body: 'M10,36C10,30 1,22 1,12A11,11 0 1 1 23,12C23,22 14,30 14,36Z',
} as const;

type Point = [number, number];

/** World fractions of a path's vertices; `shortest` joins vertices more than half the world apart across the dateline. */
export function pathWorld(path: StaticPath): Point[] {
  const out: Point[] = [];
  let prev: number | undefined;
  for (const [lon, lat] of path.coordinates) {
    let x = worldX(lon);
    if (path.shortest && prev !== undefined) x += Math.round(prev - x);
    out.push([x, worldY(lat)]);
    prev = x;
  }
  return out;
}

/** Offsets (in whole worlds) at which a shape spanning device x a..b is visible in the window; at most `max`. */
function copies(a: number, b: number, w: Window, margin: number, max = 4): number[] {
  const first = Math.ceil((-margin - b) / w.world);
  const last = Math.floor((w.width + margin - a) / w.world);
  const out: number[] = [];
  // The copy nearest the window first, so the cap drops the far ones.
  const centre = Math.round((w.width / 2 - (a + b) / 2) / w.world);
  for (let k = first; k <= last; k++) out.push(k);
  return out.sort((p, q) => Math.abs(p - centre) - Math.abs(q - centre)).slice(0, max);
}

const fmt = (v: number): string => (Math.round(v * 100) / 100).toString();

/** Liang-Barsky: the part of segment p-q inside the rectangle, or undefined. */
function clipSegment(p: Point, q: Point, r: [number, number, number, number]): [Point, Point] | undefined {
  let t0 = 0;
  let t1 = 1;
  const dx = q[0] - p[0];
  const dy = q[1] - p[1];
  const edges: Array<[number, number]> = [
    [-dx, p[0] - r[0]],
    [dx, r[2] - p[0]],
    [-dy, p[1] - r[1]],
    [dy, r[3] - p[1]],
  ];
  for (const [pp, qq] of edges) {
    if (pp === 0) {
      if (qq < 0) return undefined;
    } else {
      const t = qq / pp;
      if (pp < 0) {
        if (t > t1) return undefined;
        if (t > t0) t0 = t;
      } else {
        if (t < t0) return undefined;
        if (t < t1) t1 = t;
      }
    }
  }
  // Unclipped ends are the vertices themselves, exactly, so runs of whole segments join up.
  return [t0 === 0 ? p : [p[0] + t0 * dx, p[1] + t0 * dy], t1 === 1 ? q : [p[0] + t1 * dx, p[1] + t1 * dy]];
}

/** A polyline clipped to the rectangle, as SVG path data (one subpath per visible run). */
export function clippedLine(points: Point[], r: [number, number, number, number]): string {
  let d = '';
  let last: Point | undefined;
  for (let i = 1; i < points.length; i++) {
    const s = clipSegment(points[i - 1], points[i], r);
    if (!s) {
      last = undefined;
      continue;
    }
    const [a, b] = s;
    if (last !== a) d += `M${fmt(a[0])},${fmt(a[1])}`;
    d += `L${fmt(b[0])},${fmt(b[1])}`;
    // A segment cut at its end starts a new run at the next visible part.
    last = b === points[i] ? b : undefined;
  }
  return d;
}

/** Sutherland-Hodgman: a polygon clipped to the rectangle, as SVG path data. */
export function clippedPolygon(points: Point[], r: [number, number, number, number]): string {
  let poly = points;
  const inside = [(p: Point) => p[0] >= r[0], (p: Point) => p[0] <= r[2], (p: Point) => p[1] >= r[1], (p: Point) => p[1] <= r[3]];
  const cut = [
    (p: Point, q: Point): Point => [r[0], p[1] + ((q[1] - p[1]) * (r[0] - p[0])) / (q[0] - p[0])],
    (p: Point, q: Point): Point => [r[2], p[1] + ((q[1] - p[1]) * (r[2] - p[0])) / (q[0] - p[0])],
    (p: Point, q: Point): Point => [p[0] + ((q[0] - p[0]) * (r[1] - p[1])) / (q[1] - p[1]), r[1]],
    (p: Point, q: Point): Point => [p[0] + ((q[0] - p[0]) * (r[3] - p[1])) / (q[1] - p[1]), r[3]],
  ];
  for (let e = 0; e < 4 && poly.length > 0; e++) {
    const next: Point[] = [];
    for (let i = 0; i < poly.length; i++) {
      const cur = poly[i];
      const prev = poly[(i + poly.length - 1) % poly.length];
      const ci = inside[e](cur);
      const pi = inside[e](prev);
      if (ci) {
        if (!pi) next.push(cut[e](prev, cur));
        next.push(cur);
      } else if (pi) next.push(cut[e](prev, cur));
    }
    poly = next;
  }
  if (poly.length < 3) return '';
  return `M${poly.map((p) => `${fmt(p[0])},${fmt(p[1])}`).join('L')}Z`;
}

const escapeXml = (s: string): string =>
  s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;' })[c] as string);

function pathSvg(path: StaticPath, w: Window): string {
  const pts = pathWorld(path).map(([x, y]): Point => [x * w.world - w.x0, y * w.world - w.y0]);
  const strokeW = path.width * w.scale;
  const margin = strokeW + 4;
  let minX = Infinity;
  let maxX = -Infinity;
  for (const p of pts) {
    if (p[0] < minX) minX = p[0];
    if (p[0] > maxX) maxX = p[0];
  }
  const rect: [number, number, number, number] = [-margin, -margin, w.width + margin, w.height + margin];
  let out = '';
  for (const k of copies(minX, maxX, w, margin)) {
    const shifted = k === 0 ? pts : pts.map(([x, y]): Point => [x + k * w.world, y]);
    if (path.fill.a > 0) {
      const d = clippedPolygon(shifted, rect);
      if (d) out += `<path d="${d}" ${svgPaint('fill', path.fill)} stroke="none"/>`;
    }
    if (path.stroke.a > 0 && strokeW > 0) {
      const d = clippedLine(shifted, rect);
      if (d) out += `<path d="${d}" fill="none" ${svgPaint('stroke', path.stroke)} stroke-width="${fmt(strokeW)}" stroke-linejoin="round" stroke-linecap="round"/>`;
    }
  }
  return out;
}

/** Where an anchor sits in a box of w x h. */
export function anchorOffset(anchor: Anchor, w: number, h: number): Point {
  const ax = anchor.endsWith('left') ? 0 : anchor.endsWith('right') ? w : w / 2;
  const ay = anchor.startsWith('top') ? 0 : anchor.startsWith('bottom') ? h : h / 2;
  return [ax, ay];
}

/** Box of a marker's picture in CSS pixels (icons at their natural size times the marker scale). */
export function markerBox(m: StaticMarker, icon: Icon | undefined): { width: number; height: number } {
  const base = icon ?? PIN;
  return { width: base.width * m.scale, height: base.height * m.scale };
}

/** Room around its anchor a marker (and its label, roughly) needs, in CSS pixels. */
export function markerExtents(m: StaticMarker, icon: Icon | undefined): Extents {
  const { width, height } = markerBox(m, icon);
  const [ax, ay] = anchorOffset(m.anchor, width, height);
  const label = m.label ? Math.min(m.label.length, 40) * 7 + 4 : 0;
  return { left: ax, right: width - ax + label, top: ay, bottom: height - ay };
}

const LABEL_FONT = 12;

function colourAttr(c: Rgba): string {
  return `color="rgb(${c.r},${c.g},${c.b})"${c.a < 1 ? ` fill-opacity="${c.a}" stroke-opacity="${Math.min(c.a, 0.35)}"` : ''}`;
}

/**
 * The whole overlay as one SVG document of the output's device size. `icons` holds the resolved icon of each
 * marker (undefined: the drawn pin).
 */
export function overlaySvg(w: Window, paths: StaticPath[], markers: StaticMarker[], icons: Array<Icon | undefined>): string | undefined {
  if (paths.length === 0 && markers.length === 0) return undefined;
  const parts: string[] = [];
  const defs: string[] = [];
  const iconIds = new Map<Icon, string>();
  for (const p of paths) parts.push(pathSvg(p, w));
  markers.forEach((m, i) => {
    const icon = icons[i];
    const box = markerBox(m, icon);
    const bw = box.width * w.scale;
    const bh = box.height * w.scale;
    const [ax, ay] = anchorOffset(m.anchor, bw, bh);
    const px = worldX(m.lon) * w.world - w.x0 - ax;
    const py = worldY(m.lat) * w.world - w.y0 - ay;
    const labelW = m.label ? m.label.length * LABEL_FONT * w.scale : 0;
    if (py > w.height || py + bh < 0) return;
    for (const k of copies(px, px + bw + labelW, w, 0)) {
      const x = px + k * w.world;
      const s = m.scale * w.scale;
      if (icon) {
        let id = iconIds.get(icon);
        if (!id) {
          id = `i${iconIds.size}`;
          iconIds.set(icon, id);
          defs.push(`<image id="${id}" width="${fmt(icon.width)}" height="${fmt(icon.height)}" preserveAspectRatio="none" href="data:image/png;base64,${icon.png.toString('base64')}"/>`);
        }
        parts.push(`<use href="#${id}" transform="translate(${fmt(x)},${fmt(py)}) scale(${fmt(s)})"/>`);
      } else {
        parts.push(`<use href="#pin" transform="translate(${fmt(x)},${fmt(py)}) scale(${fmt(s)})" ${colourAttr(m.color)}/>`);
      }
      if (m.label) {
        const fs = LABEL_FONT * w.scale;
        parts.push(
          `<text x="${fmt(x + bw + 3 * w.scale)}" y="${fmt(py + bh / 2 + fs * 0.35)}" font-family="sans-serif" font-size="${fmt(fs)}" fill="#222" ` +
            `stroke="#fff" stroke-width="${fmt(3 * w.scale)}" stroke-linejoin="round" paint-order="stroke">${escapeXml(m.label)}</text>`,
        );
      }
    }
  });
  if (markers.some((_, i) => !icons[i])) {
    defs.push(
      `<g id="pin"><path d="${PIN.body}" fill="currentColor" stroke="#000" stroke-opacity="0.35" stroke-width="1"/>` +
        `<circle cx="12" cy="12" r="4" fill="#fff" fill-opacity="0.9"/></g>`,
    );
  }
  return (
    `<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" width="${w.width}" height="${w.height}" viewBox="0 0 ${w.width} ${w.height}">` +
    (defs.length ? `<defs>${defs.join('')}</defs>` : '') +
    parts.join('') +
    '</svg>'
  );
}

/** Attribution as plain text: HTML tags dropped, entities decoded, whitespace collapsed. */
export function attributionText(html: string): string {
  const named: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: ' ', copy: '©', reg: '®', trade: '™', mdash: '—', ndash: '–' };
  return html
    .replace(/<[^>]*>/g, ' ')
    .replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (all, e: string) => {
      if (e[0] === '#') {
        const cp = e[1].toLowerCase() === 'x' ? parseInt(e.slice(2), 16) : parseInt(e.slice(1), 10);
        return cp > 0 && cp <= 0x10ffff ? String.fromCodePoint(cp) : '';
      }
      return named[e.toLowerCase()] ?? all;
    })
    .replace(/[\x00-\x1f\x7f]/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
}
