// Pure: the labels of one vector tile. Reads the label layers of the OpenMapTiles schema (the cloud's `v3` tiles)
// and of Mapbox Streets (v7/v8), at whatever zoom the caller passes (the index reads the tile set's deepest).
// Points, and the label points of polygons, are kept only inside the tile proper (not its buffer), so a feature
// repeated in a neighbour's buffer is counted once; road lines are returned whole (vertices in lon/lat) for the
// index to merge the pieces of one street across tiles.

import Pbf from 'pbf';
import { VectorTileLayer, type VectorTileFeature } from '@mapbox/vector-tile';
import type { LabelHit, LabelType } from './labels';

/** A label as read from a tile: a LabelHit before the index gives it an id and a score, plus a road's lines. */
export interface ExtractedLabel extends Omit<LabelHit, 'id' | 'tileset' | 'score' | 'matchedName'> {
  /** Roads: the line's vertices (lon, lat), one array per part. */
  lines?: [number, number][][];
}

interface LayerRule {
  type: LabelType;
  /** Carmen place_type from the feature's properties. */
  placeType: (p: Props) => string;
  categories: (p: Props) => string[];
}

type Props = Record<string, string | number | boolean>;

const str = (v: unknown): string | undefined => (typeof v === 'string' && v.trim() !== '' ? v.trim() : typeof v === 'number' ? String(v) : undefined);
const lower = (...vs: unknown[]): string[] => [...new Set(vs.map(str).filter((v): v is string => !!v).map((v) => v.toLowerCase().replace(/[\s-]+/g, '_')))];

/** OSM/OpenMapTiles place classes (and Mapbox Streets' `type`) → Carmen place types. */
export function placeTypeOf(cls: string | undefined): string {
  switch (cls) {
    case 'country':
      return 'country';
    case 'state':
    case 'province':
      return 'region';
    case 'county':
      return 'county';
    case 'suburb':
    case 'quarter':
    case 'borough':
    case 'city_district':
      return 'locality';
    case 'neighbourhood':
    case 'neighborhood':
      return 'neighbourhood';
    default:
      return 'place';
  }
}

const constant = (v: string) => () => v;
const classOf = (p: Props) => str(p.class) ?? str(p.type);

const RULES: Record<string, LayerRule> = {
  // OpenMapTiles
  place: { type: 'place', placeType: (p) => placeTypeOf(classOf(p)), categories: (p) => lower(p.class) },
  poi: { type: 'poi', placeType: constant('poi'), categories: (p) => lower(p.subclass, p.class) },
  housenumber: { type: 'address', placeType: constant('address'), categories: () => [] },
  transportation_name: { type: 'road', placeType: constant('road'), categories: (p) => lower(p.class) },
  water_name: { type: 'water', placeType: constant('poi'), categories: (p) => lower('water', p.class) },
  mountain_peak: { type: 'peak', placeType: constant('poi'), categories: (p) => lower(p.class ?? 'peak') },
  aerodrome_label: { type: 'aerodrome', placeType: constant('poi'), categories: (p) => lower('aerodrome', p.class) },
  park: { type: 'park', placeType: constant('poi'), categories: (p) => lower('park', p.class) },
  // Mapbox Streets v7 / v8
  place_label: { type: 'place', placeType: (p) => placeTypeOf(str(p.type)?.toLowerCase() ?? str(p.class)), categories: (p) => lower(p.type ?? p.class) },
  poi_label: { type: 'poi', placeType: constant('poi'), categories: (p) => lower(p.type, p.category_en, p.maki, p.class) },
  road_label: { type: 'road', placeType: constant('road'), categories: (p) => lower(p.class) },
  housenum_label: { type: 'address', placeType: constant('address'), categories: () => [] },
  mountain_peak_label: { type: 'peak', placeType: constant('poi'), categories: (p) => lower(p.maki === 'volcano' ? 'volcano' : 'peak') },
  airport_label: { type: 'aerodrome', placeType: constant('poi'), categories: (p) => lower('aerodrome', p.maki) },
  water_label: { type: 'water', placeType: constant('poi'), categories: () => ['water'] },
  waterway_label: { type: 'water', placeType: constant('poi'), categories: (p) => lower('water', p.class ?? p.type) },
};

/** The layers read, by name. */
export const LABEL_LAYERS: readonly string[] = Object.keys(RULES);

/**
 * Names by ISO 639-1 language from `name:xx` (OpenMapTiles, OSM), `name_xx` (OpenMapTiles' name_en/name_de,
 * Mapbox Streets' name_en, name_zh-Hans → zh). The first key seen for a language wins, `name:xx` before `name_xx`.
 */
export function languageNames(p: Props): Record<string, string> {
  const out: Record<string, string> = {};
  const keys = Object.keys(p).sort((a, b) => Number(a.startsWith('name_')) - Number(b.startsWith('name_')) || a.localeCompare(b));
  for (const k of keys) {
    const m = /^name[:_]([a-z]{2})(?:[-_][A-Za-z]+)?$/.exec(k);
    const v = str(p[k]);
    if (m && v && !(m[1] in out)) out[m[1]] = v;
  }
  return out;
}

/** Pixel in a tile → lon/lat (Web Mercator). */
export function tilePointToLonLat(z: number, x: number, y: number, extent: number, px: number, py: number): [number, number] {
  const n = 2 ** z;
  const gx = (x + px / extent) / n;
  const gy = (y + py / extent) / n;
  const lon = gx * 360 - 180;
  const lat = (Math.atan(Math.sinh(Math.PI * (1 - 2 * gy))) * 180) / Math.PI;
  return [lon, lat];
}

/** A label point for a feature: the point, the mean of a polygon's outer ring vertices, a line's middle vertex. */
function anchor(f: VectorTileFeature): { x: number; y: number } | undefined {
  const rings = f.loadGeometry();
  const ring = rings[0];
  if (!ring || ring.length === 0) return undefined;
  if (f.type === 1) return ring[0];
  if (f.type === 2) return ring[Math.floor(ring.length / 2)];
  const pts = ring.length > 1 ? ring.slice(0, -1) : ring;
  return { x: pts.reduce((s, p) => s + p.x, 0) / pts.length, y: pts.reduce((s, p) => s + p.y, 0) / pts.length };
}

/**
 * The label layers of a tile, by name; the others (buildings, land cover: most of a tile's bytes) are skipped
 * unread, where `new VectorTile` would read each one's keys, values and feature offsets. As VectorTile, a layer
 * without features is left out.
 */
function labelLayers(pbf: Pbf): Record<string, VectorTileLayer> {
  const layers: Record<string, VectorTileLayer> = {};
  while (pbf.pos < pbf.length) {
    const tag = pbf.readVarint();
    if (tag >> 3 !== 3 || (tag & 7) !== 2) {
      pbf.skip(tag);
      continue;
    }
    const end = pbf.readVarint() + pbf.pos;
    const start = pbf.pos;
    // The layer's name (field 1), looked for among its fields; most encoders write it first.
    let name: string | undefined;
    while (pbf.pos < end && name === undefined) {
      const field = pbf.readVarint();
      if (field >> 3 === 1 && (field & 7) === 2) name = pbf.readString();
      else pbf.skip(field);
    }
    pbf.pos = start;
    if (name !== undefined && Object.prototype.hasOwnProperty.call(RULES, name)) {
      // The typings give VectorTileLayer's constructor one argument; the library's takes the layer's end as second.
      const layer = new (VectorTileLayer as unknown as new (pbf: Pbf, end: number) => VectorTileLayer)(pbf, end);
      if (layer.length) layers[layer.name] = layer;
    }
    pbf.pos = end;
  }
  return layers;
}

/** Every label of one (uncompressed) vector tile at z/x/y (XYZ). */
export function extractLabels(data: Uint8Array, z: number, x: number, y: number): ExtractedLabel[] {
  const layers = labelLayers(new Pbf(data));
  const out: ExtractedLabel[] = [];
  for (const [layerName, rule] of Object.entries(RULES)) {
    const layer = layers[layerName];
    if (!layer) continue;
    const extent = layer.extent;
    const toLonLat = (px: number, py: number) => tilePointToLonLat(z, x, y, extent, px, py);
    for (let i = 0; i < layer.length; i++) {
      const f = layer.feature(i);
      const p = f.properties as Props;
      const housenumber = rule.type === 'address' ? str(p.housenumber) ?? str(p.house_num) ?? str(p['addr:housenumber']) : undefined;
      const names = languageNames(p);
      const name = rule.type === 'address' ? undefined : str(p.name) ?? names.en ?? str(p['name:latin']) ?? (rule.type === 'road' ? str(p.ref) : undefined);
      if (rule.type === 'address' ? !housenumber : !name) continue;
      const label: ExtractedLabel = {
        type: rule.type,
        placeType: rule.placeType(p),
        name: name ?? '',
        names,
        categories: rule.categories(p),
        lon: 0,
        lat: 0,
      };
      if (housenumber) label.housenumber = housenumber;
      const street = str(p['addr:street']) ?? str(p.street);
      if (street && rule.type === 'address') label.street = street;
      if (rule.type === 'road' && f.type === 2) {
        label.lines = f.loadGeometry().map((ring) => ring.map((pt) => toLonLat(pt.x, pt.y)));
        const mid = label.lines[0][Math.floor(label.lines[0].length / 2)];
        [label.lon, label.lat] = mid;
        out.push(label);
        continue;
      }
      const a = anchor(f);
      // Outside the tile proper: the neighbour tile owns it (or it is a buffer copy).
      if (!a || a.x < 0 || a.y < 0 || a.x >= extent || a.y >= extent) continue;
      [label.lon, label.lat] = toLonLat(a.x, a.y);
      out.push(label);
    }
  }
  return out;
}
