// The sample vector tile set: Natural Earth 1:50m countries, their land borders, coastlines and label points,
// cut with geojson-vt (extent 4096, buffer 64), encoded with vt-pbf and gzip-compressed.

import zlib from 'node:zlib';
import type { Feature, FeatureCollection, Geometry, Position } from 'geojson';
import type { VectorLayer } from '../store/types';
import { countryLabelPoints } from './labels';
import { naturalEarth } from './natural-earth';
import type { TileEntry } from './store-file';

// geojson-vt and vt-pbf ship no types: the little used of them is typed here.
interface VtTile {
  features: { tags: Record<string, unknown> }[];
}
interface VtIndex {
  getTile(z: number, x: number, y: number): VtTile | null;
}
type GeojsonVt = (data: FeatureCollection, options: Record<string, unknown>) => VtIndex;
interface VtPbf {
  fromGeojsonVt(layers: Record<string, VtTile>, options: { version: number; extent: number }): Uint8Array;
}
// eslint-disable-next-line @typescript-eslint/no-require-imports
const geojsonvt: GeojsonVt = require('geojson-vt');
// eslint-disable-next-line @typescript-eslint/no-require-imports
const vtpbf: VtPbf = require('vt-pbf');

export const VECTOR_EXTENT = 4096;
export const VECTOR_BUFFER = 64;

export function sampleVectorLayers(maxzoom: number): VectorLayer[] {
  return [
    {
      id: 'countries',
      description: 'Countries and territories (Natural Earth 1:50m); id is the ISO 3166-1 numeric code where one exists',
      minzoom: 0,
      maxzoom,
      fields: { id: 'String', name: 'String' },
    },
    { id: 'coastline', description: 'Coastlines (outer edges of the countries)', minzoom: 0, maxzoom, fields: {} },
    {
      id: 'boundaries',
      description: 'Land borders between two countries',
      minzoom: 0,
      maxzoom,
      fields: { kind: 'String' },
    },
    {
      id: 'country_label',
      description:
        'One point per country inside its largest polygon, for labels; present from the zoom its label has room (large countries from 0, all from 4)',
      minzoom: 0,
      maxzoom,
      fields: { id: 'String', name: 'String' },
    },
  ];
}

function collection(features: Feature[]): FeatureCollection {
  return { type: 'FeatureCollection', features };
}

function lines(ls: Position[][], properties: Record<string, string>): FeatureCollection {
  return collection(
    ls.map((coordinates): Feature => ({ type: 'Feature', properties, geometry: { type: 'LineString', coordinates } })),
  );
}

export interface VectorResult {
  tiles: TileEntry[];
  /** Tiles inside the bounds that hold no feature and are therefore not stored, per zoom. */
  empty: number[];
}

export function buildVectorTiles(maxzoom: number): VectorResult {
  const ne = naturalEarth('50m');
  const countries = collection(
    ne.countries.map((c): Feature => {
      const properties: Record<string, string> = c.iso === undefined ? { name: c.name } : { id: c.iso, name: c.name };
      const f: Feature = { type: 'Feature', properties, geometry: c.geometry as Geometry };
      if (c.iso !== undefined) f.id = Number(c.iso);
      return f;
    }),
  );
  const options = {
    maxZoom: maxzoom,
    indexMaxZoom: maxzoom,
    indexMaxPoints: 0,
    extent: VECTOR_EXTENT,
    buffer: VECTOR_BUFFER,
    tolerance: 3,
  };
  const labels = collection(
    countryLabelPoints(ne.countries).map(
      (p): Feature => ({
        type: 'Feature',
        properties: p.iso === undefined ? { name: p.name, minzoom: p.minzoom } : { id: p.iso, name: p.name, minzoom: p.minzoom },
        geometry: { type: 'Point', coordinates: [p.lon, p.lat] },
      }),
    ),
  );
  const layers: [string, VtIndex, ((t: VtTile, z: number) => VtTile)?][] = [
    ['countries', geojsonvt(countries, options)],
    ['coastline', geojsonvt(lines(ne.coasts, {}), options)],
    ['boundaries', geojsonvt(lines(ne.borders, { kind: 'country' }), options)],
    // Label points only from their own minzoom; the minzoom itself is not written into the tiles.
    ['country_label', geojsonvt(labels, options), (t, z) => ({
      ...t,
      features: t.features
        .filter((f) => (f.tags.minzoom as number) <= z)
        .map((f) => {
          const { minzoom: _minzoom, ...tags } = f.tags;
          return { ...f, tags };
        }),
    })],
  ];
  const tiles: TileEntry[] = [];
  const empty: number[] = [];
  for (let z = 0; z <= maxzoom; z++) {
    const n = 2 ** z;
    empty.push(0);
    for (let x = 0; x < n; x++) {
      for (let y = 0; y < n; y++) {
        const present: Record<string, VtTile> = {};
        let any = false;
        for (const [name, index, select] of layers) {
          const found = index.getTile(z, x, y);
          const t = found && select ? select(found, z) : found;
          if (t && t.features.length > 0) {
            present[name] = t;
            any = true;
          }
        }
        if (!any) {
          empty[z]++;
          continue;
        }
        const pbf = vtpbf.fromGeojsonVt(present, { version: 2, extent: VECTOR_EXTENT });
        const data = zlib.gzipSync(Buffer.from(pbf.buffer, pbf.byteOffset, pbf.byteLength), { level: 9 });
        tiles.push({ pyramid: 'main', z, x, y, data });
      }
    }
  }
  return { tiles, empty };
}
