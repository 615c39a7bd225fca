// The fill of the sample vector tiles against an independent oracle (issue 7, item 6).
//
// The tiles are built by the sample's own builder and decoded by the MVT spec (4.3.4.4: a ring with positive
// area in tile coordinates is an exterior ring, each followed by its interior rings); a grid of points in each
// tile is then tested for "land" both in the decoded tiles and in world-atlas' TopoJSON itself, on the sphere:
// a point is inside a country when the meridian from it to the north pole (outside every country) crosses the
// country's rings an odd number of times. That oracle reads the raw rings from topojson-client, and needs none
// of the sample's planar conversion (unwrapping, closing along the pole, ring roles).

import path from 'node:path';
import type { Position } from 'geojson';
import { feature } from 'topojson-client';
import type { GeometryCollection, Topology } from 'topojson-specification';
import { SAMPLE_MAX_ZOOM } from '../../src/sample';
import { buildVectorTiles, VECTOR_EXTENT } from '../../src/sample/vector-tiles';
import zlib from 'node:zlib';

// vt-pbf brings CommonJS versions of the MVT decoder and pbf (the top-level ones are ESM-only).
const vtpbfDir = path.dirname(require.resolve('vt-pbf'));
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { VectorTile } = require(require.resolve('@mapbox/vector-tile', { paths: [vtpbfDir] }));
// eslint-disable-next-line @typescript-eslint/no-require-imports
const Pbf = require(require.resolve('pbf', { paths: [vtpbfDir] }));
// eslint-disable-next-line @typescript-eslint/no-require-imports
const topology: Topology = require('world-atlas/countries-50m.json');

interface Pt {
  x: number;
  y: number;
}
interface MvtFeature {
  type: number;
  properties: Record<string, unknown>;
  loadGeometry(): Pt[][];
}
interface MvtLayer {
  length: number;
  feature(i: number): MvtFeature;
}

/** Samples per tile side. */
const N = 48;

// ---------------------------------------------------------------------------------------------
// Oracle: world-atlas on the sphere
// ---------------------------------------------------------------------------------------------

interface Country {
  name: string;
  rings: Position[][];
}

const countries: Country[] = (() => {
  const obj = topology.objects.countries as GeometryCollection<{ name: string }>;
  const fc = feature(topology, obj);
  return fc.features
    .filter((f) => f.geometry !== null)
    .map((f) => {
      const g = f.geometry as { type: 'Polygon'; coordinates: Position[][] } | { type: 'MultiPolygon'; coordinates: Position[][][] };
      return { name: f.properties.name, rings: g.type === 'Polygon' ? g.coordinates : g.coordinates.flat() };
    });
})();

/** Longitude difference b - a, taken the short way round, in [-180, 180). */
const lonDelta = (a: number, b: number): number => ((((b - a + 180) % 360) + 360) % 360) - 180;

/**
 * Where the rings of each country cross the meridian `lon` (latitudes, by country index). An edge is taken the
 * short way round in longitude and counted half-open at its ends, so a ring passing through a vertex on the
 * meridian crosses it once and a ring touching it there not at all.
 */
function meridianCrossings(lon: number): Map<number, number[]> {
  const out = new Map<number, number[]>();
  countries.forEach((c, ci) => {
    for (const ring of c.rings) {
      for (let i = 1; i < ring.length; i++) {
        const a = ring[i - 1];
        const b = ring[i];
        const d = lonDelta(a[0], b[0]);
        const u = lonDelta(a[0], lon);
        const crosses = d > 0 ? u >= 0 && u < d : d < 0 ? u < 0 && u >= d : false;
        if (!crosses) continue;
        const lat = a[1] + ((b[1] - a[1]) * u) / d;
        let list = out.get(ci);
        if (!list) out.set(ci, (list = []));
        list.push(lat);
      }
    }
  });
  return out;
}

/** Index of the country at (lon, lat) given the crossings of its meridian, or -1 for the sea. */
function countryAt(crossings: Map<number, number[]>, lat: number): number {
  for (const [ci, lats] of crossings) {
    let north = 0;
    for (const l of lats) if (l > lat) north++;
    if (north % 2 === 1) return ci;
  }
  return -1;
}

// ---------------------------------------------------------------------------------------------
// The tiles, decoded by the MVT spec
// ---------------------------------------------------------------------------------------------

/** Surveyor's formula in tile coordinates (y down): positive for an exterior ring. */
function area(ring: Pt[]): number {
  let s = 0;
  for (let i = 0, j = ring.length - 1; i < ring.length; j = i++) s += ring[j].x * ring[i].y - ring[i].x * ring[j].y;
  return s / 2;
}

function inRing(ring: Pt[], x: number, y: number): boolean {
  let c = false;
  for (let i = 0, j = ring.length - 1; i < ring.length; j = i++) {
    const a = ring[i];
    const b = ring[j];
    if (a.y > y !== b.y > y && x < ((b.x - a.x) * (y - a.y)) / (b.y - a.y) + a.x) c = !c;
  }
  return c;
}

interface DecodedPolygon {
  name: string;
  exterior: Pt[];
  holes: Pt[][];
}

/** The polygons of a countries layer; problems lists rings the spec does not allow (an interior ring first). */
function polygonsOf(layer: MvtLayer): { polygons: DecodedPolygon[]; problems: string[] } {
  const polygons: DecodedPolygon[] = [];
  const problems: string[] = [];
  for (let i = 0; i < layer.length; i++) {
    const f = layer.feature(i);
    if (f.type !== 3) continue;
    const name = String(f.properties.name);
    let current: DecodedPolygon | undefined;
    for (const ring of f.loadGeometry()) {
      const a = area(ring);
      if (a > 0) polygons.push((current = { name, exterior: ring, holes: [] }));
      else if (a < 0) {
        if (current) current.holes.push(ring);
        else problems.push(`${name}: an interior ring (area ${a}) before any exterior ring`);
      }
    }
  }
  return { polygons, problems };
}

const polygonAt = (polygons: DecodedPolygon[], x: number, y: number): DecodedPolygon | undefined =>
  polygons.find((p) => inRing(p.exterior, x, y) && !p.holes.some((h) => inRing(h, x, y)));

// ---------------------------------------------------------------------------------------------

const tileLon = (z: number, x: number, fx: number): number => ((x + fx) / 2 ** z) * 360 - 180;
const tileLat = (z: number, y: number, fy: number): number => (Math.atan(Math.sinh(Math.PI * (1 - (2 * (y + fy)) / 2 ** z))) * 180) / Math.PI;

interface TileCheck {
  tile: string;
  samples: number;
  /** Samples where the tiles and the oracle disagree on land/sea. */
  disagree: number;
  /** Share of samples that are Antarctica: in the tiles, by the oracle. */
  antarctica: [number, number];
  problems: string[];
}

let byTile: Map<string, Buffer>;
const columns = new Map<number, Map<number, number[]>>();

function check(z: number, x: number, y: number): TileCheck {
  const key = `${z}/${x}/${y}`;
  const gz = byTile.get(key);
  const layer: MvtLayer | undefined = gz ? new VectorTile(new Pbf(zlib.gunzipSync(gz))).layers.countries : undefined;
  const { polygons, problems } = layer ? polygonsOf(layer) : { polygons: [], problems: [] };
  const antarcticaIndex = countries.findIndex((c) => c.name === 'Antarctica');
  let disagree = 0;
  let inTiles = 0;
  let inOracle = 0;
  for (let i = 0; i < N; i++) {
    const fx = (i + 0.5) / N;
    const lon = tileLon(z, x, fx);
    let col = columns.get(lon);
    if (!col) columns.set(lon, (col = meridianCrossings(lon)));
    for (let j = 0; j < N; j++) {
      const fy = (j + 0.5) / N;
      const p = polygonAt(polygons, fx * VECTOR_EXTENT, fy * VECTOR_EXTENT);
      const ci = countryAt(col, tileLat(z, y, fy));
      if ((p !== undefined) !== (ci >= 0)) disagree++;
      if (p?.name === 'Antarctica') inTiles++;
      if (ci === antarcticaIndex) inOracle++;
    }
  }
  const n = N * N;
  return { tile: key, samples: n, disagree, antarctica: [inTiles / n, inOracle / n], problems };
}

beforeAll(() => {
  const { tiles } = buildVectorTiles(SAMPLE_MAX_ZOOM);
  byTile = new Map(tiles.map((t) => [`${t.z}/${t.x}/${t.y}`, t.data]));
}, 120_000);

describe('sample vector tiles: the countries fill matches world-atlas on the sphere', () => {
  test('the oracle itself: known points are land or sea', () => {
    const at = (lon: number, lat: number): string => {
      const ci = countryAt(meridianCrossings(lon), lat);
      return ci < 0 ? 'sea' : countries[ci].name;
    };
    expect(at(-100, -80)).toBe('Antarctica'); // West Antarctica, where the fill went missing
    expect(at(90, -80)).toBe('Antarctica');
    expect(at(-170, -82)).toBe('sea'); // the Ross Ice Shelf is not land in Natural Earth's countries
    expect(at(-150, -86)).toBe('Antarctica'); // south of it, near the antimeridian
    expect(at(-120, -60)).toBe('sea'); // Southern Ocean
    expect(at(2.35, 48.85)).toBe('France');
    expect(at(-30, 0)).toBe('sea');
    expect(at(178.2, -17.8)).toBe('Fiji'); // a country across the antimeridian
    expect(at(-179.9, 68)).toBe('Russia');
  });

  // Every tile of zooms 0-2 and the Antarctic row of zoom 3 (West Antarctica: x 1-3 of y 7).
  const cases: [number, number, number][] = [[0, 0, 0]];
  for (let x = 0; x < 4; x++) for (let y = 0; y < 4; y++) cases.push([2, x, y]);
  for (let x = 0; x < 8; x++) cases.push([3, x, 7]);

  test.each(cases)('tile %i/%i/%i: polygons valid by the MVT spec, land where the oracle has land', (z, x, y) => {
    const r = check(z, x, y);
    expect(r.problems).toEqual([]);
    // Simplification (tolerance 3 of 4096) moves coasts by a fraction of a sample: a few samples on the
    // coast may differ; a lost fill differs on a whole region.
    expect(r.disagree / r.samples).toBeLessThan(0.02);
    expect(Math.abs(r.antarctica[0] - r.antarctica[1])).toBeLessThan(0.01);
  });

  test('West Antarctica is filled at zoom 2 (the view #2/-70/-100)', () => {
    // Tile 2/1/3 covers 90°W-0°, 66.5°S-85°S; 2/0/3 180°W-90°W. The oracle's share is the reference.
    for (const [x, y] of [[0, 3], [1, 3]]) {
      const r = check(2, x, y);
      expect(r.antarctica[1]).toBeGreaterThan(0.4);
      expect(r.antarctica[0]).toBeCloseTo(r.antarctica[1], 2);
    }
  });
});
