// The static map request, parsed and validated from its path parameters and query string, exactly as the spec's
// grammar says. Every number is parsed strictly (plain decimals: no exponent, NaN or Infinity); every count is capped.
// Errors are StaticMapError of kind `invalid`, whose message names the bad part.

import { MAX_LAT } from '../../geo/mercator';
import { ServiceError } from '../../errors';
import { decodePolyline, PolylineError } from '../../geo/polyline';
import { parseColor, type Rgba } from './color';

/** A static map that cannot be drawn as asked: `invalid` (the message names the bad part), or `not-found`. */
export class StaticMapError extends ServiceError {
  constructor(message: string, kind: 'invalid' | 'not-found' = 'invalid') {
    super(kind, message);
  }
}
const fail = (message: string): never => {
  throw new StaticMapError(message);
};

export type StaticFormat = 'png' | 'jpg' | 'webp';
export type Corner = 'bottomright' | 'bottomleft' | 'topleft' | 'topright';
export type Anchor = 'center' | 'top' | 'bottom' | 'left' | 'right' | 'topleft' | 'topright' | 'bottomleft' | 'bottomright';

/** What the image shows, parsed from the spec's `{area}` segment: a centre and zoom, a bbox, or `auto` (fitted to its overlays). */
export type StaticMapView =
  | { kind: 'center'; lon: number; lat: number; zoom: number }
  | { kind: 'bounds'; bounds: [number, number, number, number] }
  | { kind: 'auto' };

export interface StaticPath {
  /** [lon, lat] vertices, as given (not yet unwrapped across the dateline). */
  coordinates: Array<[number, number]>;
  stroke: Rgba;
  fill: Rgba;
  /** Stroke width in CSS pixels (doubled at @2x). */
  width: number;
  /** Consecutive vertices more than 180° apart are joined across the dateline. */
  shortest: boolean;
}

/** `pin`: the drawn default marker; `sprite`: an icon of the map's sprite; `image`: a mirrored image (images store). */
export type IconRef = { kind: 'pin' } | { kind: 'named'; name: string } | { kind: 'image'; imageId: string };

export interface StaticMarker {
  lon: number;
  lat: number;
  icon: IconRef;
  anchor: Anchor;
  /** Icon size factor (1: natural size). */
  scale: number;
  /** Colour of the default pin: the entry's text when it is a colour, else the default. */
  color: Rgba;
  /** The entry's text when it is not a colour: drawn beside the marker. */
  label?: string;
}

/** The whole request, parsed. Its field names are part of the image's ETag (layout.ts): renaming one changes every ETag. */
export interface StaticMapRequest {
  /** The view, under the spec's name of the segment it is parsed from. */
  area: StaticMapView;
  /** CSS pixels. */
  width: number;
  height: number;
  /** 1, or 2 for @2x (device pixels = CSS pixels x scale). */
  scale: 1 | 2;
  format: StaticFormat;
  paths: StaticPath[];
  markers: StaticMarker[];
  /** Fraction of the size kept free on each side when fitting (bounds, auto). */
  padding: number;
  attribution: Corner | false;
  /** The `shortest` query flag (default of every path; also lets auto-fitting cross the dateline). */
  shortest: boolean;
}

export const LIMITS = {
  maxSize: 2048,
  /** `path` plus `markers` parameters (and `encodedpath`). */
  maxParams: 100,
  /** Path vertices plus marker entries over the whole request. */
  maxCoordinates: 10_000,
  maxLabelLength: 100,
  maxStrokeWidth: 100,
  maxMarkerScale: 10,
} as const;

export const DEFAULTS = {
  /** The spec's default path stroke; interop: client defaults are blue, width 1 (2 at @2x), fill none. */
  stroke: { r: 0, g: 64, b: 255, a: 0.7 } as Rgba,
  fill: { r: 0, g: 0, b: 0, a: 0 } as Rgba,
  width: 1,
  /** Fill of the deprecated `encodedpath` polygon. */
  polygonFill: { r: 255, g: 255, b: 255, a: 0.4 } as Rgba,
  /** Default pin colour. */
  marker: { r: 228, g: 48, b: 42, a: 1 } as Rgba,
  padding: 0.1,
} as const;

const DECIMAL = /^[+-]?(?:\d+(?:\.\d*)?|\.\d+)$/;

/** A plain decimal number (no exponent, no hex, no Infinity), finite. */
export function parseNumber(text: string | undefined, what: string): number {
  const t = (text ?? '').trim();
  if (t.length > 40 || !DECIMAL.test(t)) return fail(`Invalid ${what}: "${clip(text ?? '')}" is not a number`);
  const v = Number(t);
  return Number.isFinite(v) ? v : fail(`Invalid ${what}: "${clip(t)}" is not a number`);
}

function clip(s: string, n = 40): string {
  const flat = s.replace(/[\x00-\x1f\x7f]/g, '?');
  return flat.length > n ? `${flat.slice(0, n)}...` : flat;
}

function parseFlag(name: string, value: string | null): boolean | undefined {
  if (value === null || value === '') return undefined;
  const v = value.toLowerCase();
  if (v === 'true' || v === '1') return true;
  if (v === 'false' || v === '0') return false;
  return fail(`Invalid ${name}: expected true or false`);
}

function checkLonLat(lon: number, lat: number, what: string, maxLat = MAX_LAT): void {
  if (lon < -180 || lon > 180) fail(`Out of bounds: ${what} longitude ${lon} is outside -180..180`);
  if (lat < -maxLat || lat > maxLat) fail(`Out of bounds: ${what} latitude ${lat} is outside -${maxLat}..${maxLat}`);
}

function parseView(area: string): StaticMapView {
  if (area === 'auto') return { kind: 'auto' };
  const parts = area.split(',');
  if (parts.length === 3) {
    const [lon, lat, zoom] = [parseNumber(parts[0], 'longitude'), parseNumber(parts[1], 'latitude'), parseNumber(parts[2], 'zoom')];
    checkLonLat(lon, lat, 'center');
    if (zoom < 0) fail(`Out of bounds: zoom ${zoom} is below 0`);
    return { kind: 'center', lon, lat, zoom };
  }
  if (parts.length === 4) {
    const names = ['minx', 'miny', 'maxx', 'maxy'];
    const [w, s, e, n] = parts.map((p, i) => parseNumber(p, `bounds ${names[i]}`));
    checkLonLat(w, s, 'bounds south-west');
    checkLonLat(e, n, 'bounds north-east');
    if (w >= e) fail(`Invalid bounds: minx ${w} must be less than maxx ${e}`);
    if (s >= n) fail(`Invalid bounds: miny ${s} must be less than maxy ${n}`);
    return { kind: 'bounds', bounds: [w, s, e, n] };
  }
  return fail(`Invalid area "${clip(area)}": expected {lon},{lat},{zoom}, {minx},{miny},{maxx},{maxy} or auto`);
}

function parseSize(size: string): [number, number] {
  const m = /^(\d{1,5})x(\d{1,5})$/.exec(size);
  if (!m) return fail(`Invalid image size "${clip(size)}": expected {width}x{height} in whole pixels`);
  const [w, h] = [Number(m[1]), Number(m[2])];
  for (const [name, v] of [['width', w], ['height', h]] as const) {
    if (v < 1 || v > LIMITS.maxSize) fail(`Invalid image size: ${name} ${v} is outside 1..${LIMITS.maxSize}`);
  }
  return [w, h];
}

function parseFormat(format: string): StaticFormat {
  const f = format.toLowerCase();
  if (f === 'png' || f === 'webp' || f === 'jpg') return f;
  if (f === 'jpeg') return 'jpg';
  return fail(`Invalid format "${clip(format)}": use png, jpg or webp`);
}

function color(value: string, what: string): Rgba {
  return parseColor(value) ?? fail(`Invalid ${what} "${clip(value)}": not a colour`);
}

/** Splits leading `<name>:<value>` segments (prefixes) from the rest; a name outside `allowed` is an error. */
function splitPrefixes(segments: string[], allowed: readonly string[], param: string): [Map<string, string>, string[]] {
  const prefixes = new Map<string, string>();
  let i = 0;
  for (; i < segments.length; i++) {
    const m = /^([A-Za-z_][\w-]*):(.*)$/s.exec(segments[i]);
    if (!m) break;
    const name = m[1].toLowerCase();
    // `enc:` starts the path itself.
    if (param === 'path' && name === 'enc') break;
    if (!allowed.includes(name)) fail(`Invalid ${param} prefix "${clip(m[1])}" (use ${allowed.join(', ')})`);
    if (prefixes.has(name)) fail(`Invalid ${param}: prefix "${name}" given twice`);
    prefixes.set(name, m[2]);
  }
  return [prefixes, segments.slice(i)];
}

function pair(text: string, latlng: boolean, what: string): [number, number] {
  const parts = text.split(',');
  if (parts.length !== 2) return fail(`Invalid ${what}: "${clip(text)}" is not a coordinate pair x,y`);
  const a = parseNumber(parts[0], `${what} coordinate`);
  const b = parseNumber(parts[1], `${what} coordinate`);
  return latlng ? [b, a] : [a, b];
}

interface Budget {
  coordinates: number;
}
function spend(budget: Budget, n: number): void {
  budget.coordinates += n;
  if (budget.coordinates > LIMITS.maxCoordinates) fail(`Too many coordinates: at most ${LIMITS.maxCoordinates} path vertices and markers per image`);
}

interface PathDefaults {
  stroke: Rgba;
  fill: Rgba;
  width: number;
  shortest: boolean;
}

function parseWidth(value: string, what: string): number {
  const w = parseNumber(value, what);
  if (w < 0 || w > LIMITS.maxStrokeWidth) fail(`Invalid ${what} ${w}: expected 0..${LIMITS.maxStrokeWidth}`);
  return w;
}

function decode(encoded: string, what: string): Array<[number, number]> {
  try {
    return decodePolyline(encoded);
  } catch (err) {
    if (err instanceof PolylineError) return fail(`Invalid ${what}: not an encoded polyline (${err.message})`);
    throw err;
  }
}

function checkPath(coordinates: Array<[number, number]>, what: string, budget: Budget): Array<[number, number]> {
  if (coordinates.length < 2) fail(`Invalid ${what}: expected at least two coordinate pairs`);
  spend(budget, coordinates.length);
  // Path vertices may reach the poles (a polygon around Antarctica); they are drawn clamped to the Mercator square.
  for (const [lon, lat] of coordinates) checkLonLat(lon, lat, `${what} vertex`, 90);
  return coordinates;
}

/** One `path` value: style prefixes, then `enc:<polyline>` or two or more `x,y` pairs joined by `|`. */
export function parsePath(value: string, latlng: boolean, defaults: PathDefaults, budget: Budget = { coordinates: 0 }): StaticPath {
  const [prefixes, rest] = splitPrefixes(value.split('|'), ['fill', 'stroke', 'width', 'shortest'], 'path');
  const style = {
    stroke: prefixes.has('stroke') ? color(prefixes.get('stroke') as string, 'path stroke') : defaults.stroke,
    fill: prefixes.has('fill') ? color(prefixes.get('fill') as string, 'path fill') : defaults.fill,
    width: prefixes.has('width') ? parseWidth(prefixes.get('width') as string, 'path width') : defaults.width,
    shortest: prefixes.has('shortest') ? (parseFlag('path shortest', prefixes.get('shortest') as string) ?? defaults.shortest) : defaults.shortest,
  };
  let coordinates: Array<[number, number]>;
  if (rest.length > 0 && rest[0].startsWith('enc:')) {
    // The polyline alphabet includes `|`: everything after `enc:` is the polyline.
    coordinates = decode(rest.join('|').slice(4), 'path');
  } else {
    if (rest.length === 1 && rest[0] === '') rest.length = 0;
    // Spend before parsing, so an oversized path is refused without parsing it all.
    if (rest.length > LIMITS.maxCoordinates) spend(budget, rest.length);
    coordinates = rest.map((p) => pair(p, latlng, 'path'));
  }
  return { coordinates: checkPath(coordinates, 'path', budget), ...style };
}

const ANCHORS: readonly Anchor[] = ['center', 'top', 'bottom', 'left', 'right', 'topleft', 'topright', 'bottomleft', 'bottomright'];

function parseIcon(value: string): IconRef {
  const v = value.trim();
  if (v === '') return fail('Invalid markers icon: empty');
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(v) || v.startsWith('//')) {
    return fail(`Invalid markers icon "${clip(v)}": icons are never fetched from URLs (offline server); name an icon of the map's sprite or a mirrored image as images/{imageId}`);
  }
  if (v.startsWith('images/')) return { kind: 'image', imageId: v.slice('images/'.length) };
  return { kind: 'named', name: v };
}

/** One `markers` value: prefixes (icon, anchor, scale), then one or more `x,y[,text]` entries joined by `|`. */
export function parseMarkers(value: string, latlng: boolean, budget: Budget = { coordinates: 0 }): StaticMarker[] {
  const [prefixes, entries] = splitPrefixes(value.split('|'), ['icon', 'anchor', 'scale'], 'markers');
  if (entries.length === 0 || (entries.length === 1 && entries[0] === '')) fail('Invalid markers: expected at least one marker entry x,y[,text]');
  spend(budget, entries.length);
  const icon: IconRef = prefixes.has('icon') ? parseIcon(prefixes.get('icon') as string) : { kind: 'pin' };
  let anchor: Anchor = 'bottom';
  if (prefixes.has('anchor')) {
    const a = (prefixes.get('anchor') as string).toLowerCase().replace('-', '');
    if (!(ANCHORS as readonly string[]).includes(a)) fail(`Invalid markers anchor "${clip(prefixes.get('anchor') as string)}" (use ${ANCHORS.join(', ')})`);
    anchor = a as Anchor;
  }
  let scale = 1;
  if (prefixes.has('scale')) {
    scale = parseNumber(prefixes.get('scale'), 'markers scale');
    if (scale <= 0 || scale > LIMITS.maxMarkerScale) fail(`Invalid markers scale ${scale}: expected above 0 and at most ${LIMITS.maxMarkerScale}`);
  }
  return entries.map((entry) => {
    const parts = entry.split(',');
    if (parts.length < 2) fail(`Invalid markers entry "${clip(entry)}": expected x,y[,text]`);
    const [lon, lat] = pair(`${parts[0]},${parts[1]}`, latlng, 'markers');
    checkLonLat(lon, lat, 'marker');
    const text = parts.slice(2).join(',');
    const marker: StaticMarker = { lon, lat, icon, anchor, scale, color: DEFAULTS.marker };
    if (text !== '') {
      const c = parseColor(text);
      if (c) marker.color = c;
      else {
        if (text.length > LIMITS.maxLabelLength) fail(`Invalid markers text: longer than ${LIMITS.maxLabelLength} characters`);
        marker.label = text.replace(/[\x00-\x1f\x7f]/g, ' ');
      }
    }
    return marker;
  });
}

export interface StaticPathParams {
  area?: string;
  size?: string;
  scale?: string;
  format?: string;
}

/** The whole request, from the route's path parameters and the query string. */
export function parseStaticMapRequest(p: StaticPathParams, query: URLSearchParams): StaticMapRequest {
  // A size with a decimal point ("10.5x100.png") splits at its dot: the route sees size "10", format "5x100.png".
  const dot = (p.format ?? '').lastIndexOf('.');
  if (dot >= 0 && p.scale === undefined) parseSize(`${p.size ?? ''}.${(p.format ?? '').slice(0, dot)}`);
  const format = parseFormat(p.format ?? '');
  const [width, height] = parseSize(p.size ?? '');
  if (p.scale !== undefined && p.scale !== '' && p.scale !== '@2x') fail(`Invalid scale "${clip(p.scale)}": only @2x`);
  const area = parseView(p.area ?? '');

  const latlng = parseFlag('latlng', query.get('latlng')) ?? false;
  const shortest = parseFlag('shortest', query.get('shortest')) ?? false;
  let padding: number = DEFAULTS.padding;
  const pad = query.get('padding');
  if (pad !== null) {
    padding = parseNumber(pad, 'padding');
    if (padding < 0 || padding >= 0.5) fail(`Invalid padding ${padding}: expected 0 or more and below 0.5`);
  }
  let attribution: Corner | false = 'bottomright';
  const attr = query.get('attribution');
  if (attr !== null && attr !== '') {
    const a = attr.toLowerCase();
    if (a === 'false' || a === '0') attribution = false;
    else if (a === 'true' || a === '1') attribution = 'bottomright';
    else if (a === 'bottomright' || a === 'bottomleft' || a === 'topleft' || a === 'topright') attribution = a;
    else fail(`Invalid attribution "${clip(attr)}" (use bottomright, bottomleft, topleft, topright or false)`);
  }

  // The deprecated fill/stroke/width style the deprecated `encodedpath` polygon; when given they are also the
  // defaults of every `path` (older clients styled paths with them); a path's own prefixes win.
  const depStroke = query.get('stroke');
  const depFill = query.get('fill');
  const depWidth = query.get('width');
  const stroke = depStroke !== null ? color(depStroke, 'stroke') : DEFAULTS.stroke;
  const strokeWidth = depWidth !== null ? parseWidth(depWidth, 'width') : DEFAULTS.width;
  const fill = depFill !== null ? color(depFill, 'fill') : undefined;

  const pathValues = query.getAll('path');
  const markerValues = query.getAll('markers');
  const encodedpath = query.get('encodedpath');
  const params = pathValues.length + markerValues.length + (encodedpath !== null ? 1 : 0);
  if (params > LIMITS.maxParams) fail(`Too many path and markers parameters: ${params} (at most ${LIMITS.maxParams})`);

  const budget: Budget = { coordinates: 0 };
  const paths = pathValues.map((v) => parsePath(v, latlng, { stroke, width: strokeWidth, fill: fill ?? DEFAULTS.fill, shortest }, budget));
  if (encodedpath !== null) {
    const coordinates = checkPath(decode(encodedpath, 'encodedpath'), 'encodedpath', budget);
    paths.push({ coordinates, stroke, width: strokeWidth, fill: fill ?? DEFAULTS.polygonFill, shortest });
  }
  const markers = markerValues.flatMap((v) => parseMarkers(v, latlng, budget));
  if (area.kind === 'auto' && paths.length === 0 && markers.length === 0) {
    fail('Invalid auto area: give at least one path or marker to fit');
  }
  return { area, width, height, scale: p.scale === '@2x' ? 2 : 1, format, paths, markers, padding, attribution, shortest };
}
