// The label build reads a tile set through its tile reader, whatever file holds it: a small synthetic country
// (bench/lib/country-store.js, OpenMapTiles schema: house numbers without streets, street names cut into pieces
// at tile edges, POIs with classes, places) written as MBTiles, then exported as PMTiles with the project's
// export, gives the same label index either way. The known answers are the generator's own record of what it
// placed (labels.json), not anything the index computed: every house number gets the street it was placed along,
// every street (a national road crossing ten tiles included) is one road, every POI and place is where it was put.
import { execFileSync } from 'node:child_process';
import { readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import Database from 'better-sqlite3';
import { buildLabelIndex, type LabelIndexStats } from '../../src/services/geocoding/labels-build';
import { LabelIndex } from '../../src/services/geocoding/labels-index';
import { MbtilesStore } from '../../src/store/mbtiles/reader';
import { exportPmtiles } from '../../src/store/pmtiles/export';
import { PmtilesStore } from '../../src/store/pmtiles/store';
import { tempDirs } from '../helpers/temp-dirs';

const { tempDir, removeTempDirs } = tempDirs('labels-country-');

jest.setTimeout(240_000);

const ROOT = resolve(__dirname, '..', '..');

interface Placed {
  addresses: { housenumber: string; street: string; lonlat: [number, number] }[];
  streets: { name: string; line: [number, number][] }[];
  pois: { name: string; class: string; subclass: string; lonlat: [number, number] }[];
  places: { name: string; class: string; lonlat: [number, number] }[];
}

interface Row {
  type: string;
  name: string;
  categories: string;
  housenumber: string | null;
  street: string | null;
  lon: number;
  lat: number;
}

/** Metres between two lon/lat points (the test's own haversine). */
function metres(a: [number, number], b: [number, number]): number {
  const r = Math.PI / 180;
  const h = Math.sin(((b[1] - a[1]) * r) / 2) ** 2 + Math.cos(a[1] * r) * Math.cos(b[1] * r) * Math.sin(((b[0] - a[0]) * r) / 2) ** 2;
  return 2 * 6_371_008.8 * Math.asin(Math.sqrt(h));
}

let dir: string;
let placed: Placed;
const built: Record<'mbtiles' | 'pmtiles', { stats: LabelIndexStats; file: string }> = {} as never;

function rows(file: string): Row[] {
  const db = new Database(file, { readonly: true });
  try {
    return db.prepare<[], Row>('SELECT type, name, categories, housenumber, street, lon, lat FROM labels ORDER BY type, name, housenumber, lon, lat').all();
  } finally {
    db.close();
  }
}

beforeAll(async () => {
  dir = tempDir();
  // 10 x 10 z14 tiles and their parents; the generator needs the built StoreWriter (dist/).
  execFileSync(process.execPath, [join(ROOT, 'bench', 'lib', 'country-store.js'), '--scale', '0.0004', '--dir', dir, '--all-labels', '--queries', '20'], { stdio: 'pipe' });
  placed = JSON.parse(readFileSync(join(dir, 'labels.json'), 'utf8')) as Placed;
  const mbtiles = join(dir, 'tiles', 'country.mbtiles');
  const pmtiles = join(dir, 'country.pmtiles');
  const mb = new MbtilesStore(mbtiles, 'tiles', 'country', String(statSync(mbtiles).mtimeMs));
  exportPmtiles(mb, pmtiles, { name: 'country' });
  const pm = new PmtilesStore(pmtiles, 'country', String(statSync(pmtiles).mtimeMs));
  for (const [kind, reader] of [['mbtiles', mb], ['pmtiles', pm]] as const) {
    const file = join(dir, `${kind}.sqlite`);
    // A slice of 1 ms: the build yields often, as it does in a busy server.
    built[kind] = { stats: await buildLabelIndex(reader, file, { sliceMs: 1 }), file };
    reader.close();
  }
});

afterAll(() => {
  removeTempDirs();
});

test('MBTiles and PMTiles of the same tiles give the same label index', () => {
  const { labels, byType, tiles, zoom, streetsDerived } = built.mbtiles.stats;
  expect(built.pmtiles.stats).toMatchObject({ labels, byType, tiles, zoom, streetsDerived });
  expect(zoom).toBe(14);
  expect(tiles).toBe(100);
  expect(rows(built.pmtiles.file)).toEqual(rows(built.mbtiles.file));
});

test('every label the generator placed is in the index, where it was placed', () => {
  const all = rows(built.mbtiles.file);
  const expected = placed.addresses.length + placed.streets.length + placed.pois.length + placed.places.length;
  expect(all.length).toBe(expected);

  // House numbers carry no street in the tiles: each gets the one it was placed along, by proximity.
  const addresses = all.filter((r) => r.type === 'address');
  expect(addresses.length).toBe(placed.addresses.length);
  expect(built.mbtiles.stats.streetsDerived).toBe(placed.addresses.length);
  const byKey = new Map(addresses.map((r) => [`${r.street}|${r.housenumber}|${r.lon.toFixed(5)}|${r.lat.toFixed(5)}`, r]));
  for (const a of placed.addresses) {
    const r = byKey.get(`${a.street}|${a.housenumber}|${a.lonlat[0].toFixed(5)}|${a.lonlat[1].toFixed(5)}`);
    expect(r && metres([r.lon, r.lat], a.lonlat)).toBeLessThan(1);
  }

  // One road per street name: the national road crossing all ten tiles of its row is one road too.
  const roads = all.filter((r) => r.type === 'road');
  expect(roads.map((r) => r.name).sort()).toEqual(placed.streets.map((s) => s.name).sort());
  expect(placed.streets.some((s) => s.name.startsWith('Route nationale'))).toBe(true);

  const pois = new Map(all.filter((r) => r.type === 'poi').map((r) => [r.name, r]));
  for (const p of placed.pois) {
    const r = pois.get(p.name);
    expect(r && metres([r.lon, r.lat], p.lonlat)).toBeLessThan(1);
    expect(r?.categories).toContain(`|${p.class}|`);
  }
  const places = new Map(all.filter((r) => r.type === 'place').map((r) => [r.name, r]));
  for (const p of placed.places) {
    const r = places.get(p.name);
    expect(r && metres([r.lon, r.lat], p.lonlat)).toBeLessThan(1);
  }
});

test('searches of both indexes answer the same, and right', () => {
  const opts = { prefix: true, fuzzy: true, limit: 5 };
  // Label numbers follow each file's scan order (PMTiles: Hilbert order; MBTiles: column by column): the answers
  // are compared without them.
  const same = <T extends { id: string }>(a: T, b: T) => expect({ ...a, id: undefined }).toEqual({ ...b, id: undefined });
  const ixs = [new LabelIndex(built.mbtiles.file), new LabelIndex(built.pmtiles.file)];
  try {
    const some = <T>(xs: T[]) => xs.filter((_, i) => i % 7 === 0);
    for (const a of some(placed.addresses)) {
      const [m, p] = ixs.map((ix) => ix.search(`${a.housenumber} ${a.street}`, opts)[0]);
      same(p, m);
      expect(m).toMatchObject({ type: 'address', housenumber: a.housenumber, street: a.street });
      expect(metres([m.lon, m.lat], a.lonlat)).toBeLessThan(1);
    }
    for (const s of some(placed.pois)) {
      const [m, p] = ixs.map((ix) => ix.search(s.name, opts)[0]);
      same(p, m);
      expect(m).toMatchObject({ type: 'poi', name: s.name });
    }
    for (const pl of placed.places) {
      const [m, p] = ixs.map((ix) => ix.search(pl.name, opts)[0]);
      same(p, m);
      expect(m).toMatchObject({ type: 'place', name: pl.name });
    }
    // Reverse: the nearest house number of a placed address is that address.
    for (const a of some(placed.addresses)) {
      const [m, p] = ixs.map((ix) => ix.nearest(a.lonlat[0], a.lonlat[1], { types: ['address'], limit: 1, maxMeters: 100 })[0]);
      same(p, m);
      expect(m).toMatchObject({ housenumber: a.housenumber, street: a.street });
    }
  } finally {
    for (const ix of ixs) ix.close();
  }
});

test('of many matches, those nearest the point asked (proximity): a category, and a word hundreds of labels hold', () => {
  // 100 candidates scored whole (400 in service): this country is 100 tiles, its most frequent word in ~180 labels.
  const candidates = 100;
  const ix = new LabelIndex(built.mbtiles.file, candidates);
  try {
    const point = placed.addresses[Math.floor(placed.addresses.length / 3)].lonlat;
    // A category: the generator's own POIs of the most frequent class, by distance from the point (the oracle).
    const byClass = new Map<string, Placed['pois']>();
    for (const p of placed.pois) byClass.set(p.class, [...(byClass.get(p.class) ?? []), p]);
    const [cls, ofClass] = [...byClass].sort((a, b) => b[1].length - a[1].length)[0];
    const nearestOfClass = ofClass.map((p) => metres(point, p.lonlat)).sort((a, b) => a - b).slice(0, 5);
    const hits = ix.search('', { prefix: false, fuzzy: false, categories: [cls], near: point, limit: 5 });
    expect(hits.map((h) => h.categories.includes(cls))).toEqual([true, true, true, true, true]);
    expect(hits.map((h) => Math.round(metres(point, [h.lon, h.lat])))).toEqual(nearestOfClass.map(Math.round));

    // A word more labels hold than are scored whole: the labels holding it nearest the
    // point, worked out here from the index's rows read with SQL.
    const all = rows(built.mbtiles.file);
    const textOf = (r: Row): string => (r.housenumber ? `${r.housenumber} ${r.street ?? ''}` : r.name).toLowerCase();
    const counts = new Map<string, number>();
    for (const r of all) for (const w of new Set(textOf(r).split(/\s+/))) if (/^\p{L}{3,}$/u.test(w)) counts.set(w, (counts.get(w) ?? 0) + 1);
    const [word, count] = [...counts].sort((a, b) => b[1] - a[1])[0];
    expect(count).toBeGreaterThan(candidates);
    const holding = all.filter((r) => textOf(r).split(/\s+/).includes(word));
    const expected = holding.map((r) => metres(point, [r.lon, r.lat])).sort((a, b) => a - b).slice(0, 10);
    const found = ix.search(word, { prefix: false, fuzzy: false, near: point, limit: 10 });
    expect(found.map((h) => Math.round(metres(point, [h.lon, h.lat])))).toEqual(expected.map(Math.round));
  } finally {
    ix.close();
  }
});

describe('the same names in several towns', () => {
  // The same generator, its 10 x 10 tiles cut into 4 towns of 5 x 5 with the same street and POI names each.
  let towns: { file: string; placed: Placed };
  beforeAll(async () => {
    const tdir = tempDir();
    execFileSync(process.execPath, [join(ROOT, 'bench', 'lib', 'country-store.js'), '--scale', '0.0004', '--towns', '4', '--dir', tdir, '--all-labels', '--queries', '20'], { stdio: 'pipe' });
    const mbtiles = join(tdir, 'tiles', 'country.mbtiles');
    const store = new MbtilesStore(mbtiles, 'tiles', 'towns', String(statSync(mbtiles).mtimeMs));
    const file = join(tdir, 'towns.sqlite');
    await buildLabelIndex(store, file, { sliceMs: 1 });
    store.close();
    towns = { file, placed: JSON.parse(readFileSync(join(tdir, 'labels.json'), 'utf8')) as Placed };
  });

  test('a name four towns share is answered, near a point, by the copy nearest it; and each copy is found', () => {
    const ix = new LabelIndex(towns.file);
    try {
      const byName = new Map<string, Placed['streets']>();
      for (const s of towns.placed.streets) byName.set(s.name, [...(byName.get(s.name) ?? []), s]);
      const shared = [...byName].filter(([, copies]) => copies.length === 4);
      expect(shared.length).toBeGreaterThan(20);
      for (const [name, copies] of shared.slice(0, 20)) {
        for (const copy of copies) {
          const at = copy.line[Math.floor(copy.line.length / 2)];
          const [top] = ix.search(name, { prefix: true, fuzzy: true, near: at, limit: 10 });
          expect({ name: top.name, metres: Math.round(Math.min(...copy.line.map((p) => metres(p, [top.lon, top.lat])))) < 1500 }).toEqual({ name, metres: true });
          // the copy chosen is the one of this town: nearer the point than any other copy's line
          const others = copies.filter((c) => c !== copy).flatMap((c) => c.line.map((p) => metres(at, p)));
          expect(metres(at, [top.lon, top.lat])).toBeLessThan(Math.min(...others));
        }
      }
    } finally {
      ix.close();
    }
  });
});
