// The sample's small real area: Astana (Kazakhstan) as a vector tile set in the OpenMapTiles label schema (the
// layers of the cloud's `v3` tiles that the geocoder reads: place, poi, housenumber, transportation_name,
// water_name, park), converted from the OSM QA tiles shipped by @mapbox/mvt-fixtures (real OpenStreetMap data,
// ODbL). The QA tiles carry raw OSM tags at z12 (extent 2^20); each becomes one z12 tile of extent 4096 holding
// only the label layers, so the geocoder finds streets, house numbers and points of interest out of the box.
//
// As in OpenMapTiles, the `housenumber` layer holds the number only (not `addr:street`): the label index derives
// the street from the nearest named road, and the tests check it against the raw `addr:street` tag.

import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import Pbf from 'pbf';
import { VectorTile, type VectorTileFeature } from '@mapbox/vector-tile';
import type { Bounds } from '../geo/bounds';
import type { VectorLayer } from '../store/types';
import type { TileEntry } from './store-file';

interface VtPbf {
  fromGeojsonVt(layers: Record<string, { features: OutFeature[] }>, options: { version: number; extent: number }): Uint8Array;
}
// vt-pbf ships no types: the one function used is typed above.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const vtpbf: VtPbf = require('vt-pbf');

/** Where the OSM QA tiles of Astana are, in the installed @mapbox/mvt-fixtures. */
export function cityFixtureDir(): string {
  return path.join(path.dirname(require.resolve('@mapbox/mvt-fixtures/package.json')), 'real-world', 'osm-qa-astana');
}

export const CITY_ID = 'sample-city';
export const CITY_ZOOM = 12;
export const CITY_EXTENT = 4096;
export const CITY_ATTRIBUTION =
  '<a href="https://www.openstreetmap.org/copyright">© OpenStreetMap contributors</a> (ODbL), OSM QA tiles of Astana from @mapbox/mvt-fixtures';

/** A feature as vt-pbf's geojson-vt wrapper takes it: points are [[x, y]...], lines and polygons rings of [x, y]. */
interface OutFeature {
  type: 1 | 2 | 3;
  geometry: number[][] | number[][][];
  tags: Record<string, string | number>;
}

/** The z/x/y of every QA tile in the fixture folder, sorted (deterministic builds). */
export function cityTileAddresses(dir = cityFixtureDir()): { z: number; x: number; y: number; file: string }[] {
  return fs
    .readdirSync(dir)
    .map((name) => /^(\d+)-(\d+)-(\d+)\.mvt$/.exec(name))
    .filter((m): m is RegExpExecArray => m !== null)
    .map((m) => ({ z: Number(m[1]), x: Number(m[2]), y: Number(m[3]), file: path.join(dir, m[0]) }))
    .sort((a, b) => a.x - b.x || a.y - b.y);
}

const ROAD_CLASS: Record<string, string> = {
  motorway: 'motorway',
  trunk: 'trunk',
  primary: 'primary',
  secondary: 'secondary',
  tertiary: 'tertiary',
  residential: 'minor',
  unclassified: 'minor',
  living_street: 'minor',
  road: 'minor',
  service: 'service',
  pedestrian: 'path',
  footway: 'path',
  path: 'path',
  cycleway: 'path',
  track: 'track',
};
const POI_KEYS = ['amenity', 'shop', 'tourism', 'leisure', 'office', 'craft', 'historic', 'healthcare', 'sport'] as const;

/** Names in languages: `name` and every `name:xx` (two letters), plus OpenMapTiles' `name_en` / `name_de`. */
function nameTags(p: Record<string, unknown>): Record<string, string> {
  const out: Record<string, string> = { name: String(p.name) };
  for (const [k, v] of Object.entries(p)) {
    if (/^name:[a-z]{2}$/.test(k) && typeof v === 'string') out[k] = v;
  }
  if (out['name:en']) out.name_en = out['name:en'];
  if (out['name:de']) out.name_de = out['name:de'];
  return out;
}

/** Scales QA coordinates (extent 2^20) to the output extent; rings of at least 2 points (lines) or 4 (polygons). */
function scaleRings(rings: { x: number; y: number }[][], from: number, min: number): number[][][] {
  const k = CITY_EXTENT / from;
  const out: number[][][] = [];
  for (const ring of rings) {
    const r: number[][] = [];
    for (const p of ring) {
      const q = [Math.round(p.x * k), Math.round(p.y * k)];
      const last = r[r.length - 1];
      if (!last || last[0] !== q[0] || last[1] !== q[1]) r.push(q);
    }
    if (r.length >= min) out.push(r);
  }
  return out;
}

/** A label point for any geometry: the point itself, or the mean of the outer ring's (or line's) vertices. */
function labelPoint(f: VectorTileFeature, from: number): number[] | undefined {
  const rings = f.loadGeometry();
  const ring = rings[0];
  if (!ring || ring.length === 0) return undefined;
  const pts = f.type === 3 && ring.length > 1 ? ring.slice(0, -1) : ring;
  const k = CITY_EXTENT / from;
  const x = pts.reduce((s, p) => s + p.x, 0) / pts.length;
  const y = pts.reduce((s, p) => s + p.y, 0) / pts.length;
  return [Math.round(x * k), Math.round(y * k)];
}

/** The OpenMapTiles label layers of one QA tile. */
export function convertCityTile(data: Buffer): Record<string, { features: OutFeature[] }> {
  const qa = new VectorTile(new Pbf(data)).layers.osm;
  const layers: Record<string, OutFeature[]> = { place: [], poi: [], housenumber: [], transportation_name: [], water_name: [], park: [] };
  if (!qa) return {};
  for (let i = 0; i < qa.length; i++) {
    const f = qa.feature(i);
    const p = f.properties as Record<string, unknown>;
    const name = typeof p.name === 'string' && p.name.trim() !== '' ? p.name : undefined;
    const point = (): number[][] | undefined => {
      const lp = labelPoint(f, qa.extent);
      return lp && [lp];
    };
    if (typeof p['addr:housenumber'] === 'string') {
      const g = point();
      if (g) layers.housenumber.push({ type: 1, geometry: g, tags: { housenumber: p['addr:housenumber'] } });
    }
    if (!name) continue;
    const highway = typeof p.highway === 'string' ? p.highway : undefined;
    if (highway && f.type === 2 && ROAD_CLASS[highway]) {
      const g = scaleRings(f.loadGeometry(), qa.extent, 2);
      const tags: Record<string, string> = { ...nameTags(p), class: ROAD_CLASS[highway], subclass: highway };
      if (typeof p.ref === 'string') tags.ref = p.ref;
      if (g.length) layers.transportation_name.push({ type: 2, geometry: g, tags });
      continue;
    }
    if (typeof p.place === 'string' && f.type === 1) {
      layers.place.push({ type: 1, geometry: point() ?? [], tags: { ...nameTags(p), class: p.place } });
      continue;
    }
    if (p.leisure === 'park') {
      const g = point();
      if (g) layers.park.push({ type: 1, geometry: g, tags: { ...nameTags(p), class: 'park' } });
      continue;
    }
    if (p.natural === 'water' || typeof p.water === 'string') {
      const g = point();
      if (g) layers.water_name.push({ type: 1, geometry: g, tags: { ...nameTags(p), class: typeof p.water === 'string' ? p.water : 'lake' } });
      continue;
    }
    const key = POI_KEYS.find((k) => typeof p[k] === 'string' && p[k] !== 'yes');
    if (key) {
      const g = point();
      const value = String(p[key]);
      // OpenMapTiles' poi: `class` groups (shop, ...), `subclass` is the OSM value.
      if (g) layers.poi.push({ type: 1, geometry: g, tags: { ...nameTags(p), class: key === 'amenity' || key === 'tourism' || key === 'leisure' ? value : key, subclass: value } });
    }
  }
  const out: Record<string, { features: OutFeature[] }> = {};
  for (const [k, features] of Object.entries(layers)) {
    const kept = features.filter((f) => f.geometry.length > 0);
    if (kept.length) out[k] = { features: kept };
  }
  return out;
}

/** The tiles of the sample city (gzip MVT, XYZ addressing). */
export function buildCityTiles(dir = cityFixtureDir()): TileEntry[] {
  return cityTileAddresses(dir).map(({ z, x, y, file }) => {
    const pbf = vtpbf.fromGeojsonVt(convertCityTile(fs.readFileSync(file)), { version: 2, extent: CITY_EXTENT });
    return { pyramid: 'main', z, x, y, data: zlib.gzipSync(Buffer.from(pbf), { level: 9 }) };
  });
}

/** West, south, east, north of the fixture's tiles. */
export function cityBounds(dir = cityFixtureDir()): Bounds {
  const tiles = cityTileAddresses(dir);
  const z = tiles[0].z;
  const lon = (x: number) => (x / 2 ** z) * 360 - 180;
  const lat = (y: number) => (Math.atan(Math.sinh(Math.PI * (1 - (2 * y) / 2 ** z))) * 180) / Math.PI;
  const xs = tiles.map((t) => t.x);
  const ys = tiles.map((t) => t.y);
  return [lon(Math.min(...xs)), lat(Math.max(...ys) + 1), lon(Math.max(...xs) + 1), lat(Math.min(...ys))];
}

export function cityVectorLayers(): VectorLayer[] {
  const z = { minzoom: CITY_ZOOM, maxzoom: CITY_ZOOM };
  const names = { name: 'String', name_en: 'String', name_de: 'String' };
  return [
    { id: 'place', description: 'Named places (OSM place=*)', ...z, fields: { ...names, class: 'String' } },
    { id: 'poi', description: 'Points of interest (amenity, shop, tourism, leisure, office ...)', ...z, fields: { ...names, class: 'String', subclass: 'String' } },
    { id: 'housenumber', description: 'House numbers (OSM addr:housenumber), without the street, as in OpenMapTiles', ...z, fields: { housenumber: 'String' } },
    { id: 'transportation_name', description: 'Named roads and paths', ...z, fields: { ...names, class: 'String', subclass: 'String', ref: 'String' } },
    { id: 'water_name', description: 'Named water bodies', ...z, fields: { ...names, class: 'String' } },
    { id: 'park', description: 'Named parks (label points)', ...z, fields: { ...names, class: 'String' } },
  ];
}
