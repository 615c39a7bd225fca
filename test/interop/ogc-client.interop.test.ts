// @camptocamp/ogc-client 1.3 (the OGC client of geospatial web apps such as GeoNetwork UI) reading the service-wide
// WMTS capabilities and the OGC API - Tiles landing page. ogc-client is ESM-only and jest runs CommonJS, so
// ogc-client.mjs runs in its own node process and prints what ogc-client read and the tiles fetched from the URLs it
// built; this test compares them with the sample's literal values and the tiles stored in the .mbtiles files.
//
// What ogc-client 1.3 does not do, and ogc-client.mjs does in its place as an application has to:
//   - WMTS Dimension values: it looks for `Values` children where WMTS 1.0 has `Value` elements, so it reads a
//     dimension's identifier and Default but no value list. The other time comes from this test (a literal).
//   - WMTS dimensions in tile URLs: getTileUrl has no dimension parameter and leaves `{Time}` in a RESTful template.
//   - OGC API tile URLs: it finds a collection's tileset URL (getMapTilesetUrl, getVectorTilesetUrl); the tile URL
//     comes from the tileset's `item` link template.
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { SAMPLE_OGC_COLLECTIONS, SAMPLE_OGC_CONFORMANCE, SAMPLE_WMTS_LAYERS } from '../fixtures/sample-listings';
import {
  type CapsSummary,
  type InteropServer,
  KEYFRAMES,
  MAP_STORE,
  matrixIdForZoom,
  mercatorScaleDenominator,
  startInteropServer,
  summarizeCapabilities,
  VECTOR_STORE,
  WEATHER_LAYER,
} from './helpers';
import { fetchText } from '../helpers/fetch';
import { assertOk, clientEnv, run } from '../helpers/run';
import { KEY as API_KEY } from '../helpers/server';
import { MERCATOR_HALF, pickTile, readMetadata, readStoredTile, type TileAddress } from '../helpers/stored-tiles';

const SCRIPT = path.join(__dirname, 'ogc-client.mjs');
const PNG = 'image/png';
const MVT = 'application/vnd.mapbox-vector-tile';
const TILES_CORE = 'http://www.opengis.net/spec/ogcapi-tiles-1/1.0/conf/core';
/** The sample's weather variable: its layer, and the keyframe tile set of each of its times (the Default is the latest). */
const DEFAULT_TIME = KEYFRAMES[1].time;

/** Each layer of the service-wide WMTS: its tile format, tile size and zoom levels in the sample. */
const LAYERS: Record<string, { format: string; tileSize: number; zooms: [number, number] }> = {
  'images/sample-image': { format: PNG, tileSize: 256, zooms: [0, 3] },
  'maps/sample': { format: PNG, tileSize: 512, zooms: [0, 5] },
  'maps/sample/256': { format: PNG, tileSize: 256, zooms: [0, 5] },
  'tiles/sample-city': { format: MVT, tileSize: 512, zooms: [12, 12] },
  'tiles/sample-temperature-0000': { format: PNG, tileSize: 256, zooms: [0, 2] },
  'tiles/sample-temperature-0600': { format: PNG, tileSize: 256, zooms: [0, 2] },
  'tiles/sample-terrain': { format: PNG, tileSize: 256, zooms: [0, 10] },
  'tiles/sample-vector': { format: MVT, tileSize: 512, zooms: [0, 5] },
  [WEATHER_LAYER]: { format: PNG, tileSize: 256, zooms: [0, 2] },
};
/** The OGC API collections of vector tiles; the others are map collections. */
const VECTOR_COLLECTIONS = ['tiles.sample-city', 'tiles.sample-vector'];

// What ogc-client.mjs prints (ogc-client's own objects, as far as they are asserted on).
interface Fetched {
  url: string;
  status: number;
  contentType: string | null;
  contentEncoding: string | null;
  /** base64 of the body as the fetch API gives it (a gzip Content-Encoding undone). */
  body: string;
}
interface WmtsTile extends Fetched, TileAddress {
  label: string;
  layer: string;
  time?: string;
  timeFrom?: string;
  matrixSet: string;
  tileMatrix: string;
  /** The URL getTileUrl returned. */
  built: string;
}
interface WmtsLayer {
  name: string;
  defaultStyle: string;
  styles: { name: string }[];
  resourceLinks: { encoding: 'REST' | 'KVP'; format: string; url: string }[];
  matrixSets: { identifier: string; crs: string; limits: { tileMatrix: string }[] }[];
  dimensions?: { identifier: string; defaultValue: string; values: string[] }[];
}
interface WmtsMatrixSet {
  identifier: string;
  crs: string;
  tileMatrices: { identifier: string; scaleDenominator: number; topLeft: [number, number]; tileWidth: number; tileHeight: number }[];
}
interface OgcTileset {
  collection: string;
  kind: 'map' | 'vector';
  tileMatrixSet: string;
  tilesetUrl?: string;
  error?: string;
  itemTemplate?: string;
  itemType?: string;
  tile?: Fetched & TileAddress & { label: string };
}
interface Report {
  ogcClientVersion: string;
  wmts: {
    info: {
      title: string;
      name: string;
      abstract: string;
      keywords: string[];
      fees: string;
      constraints: string;
      provider: { name: string; site: string };
      getTileUrls: { kvp?: string; rest?: string };
    };
    layers: WmtsLayer[];
    matrixSets: WmtsMatrixSet[];
    weatherDefaultDimensions: Record<string, string>;
    tiles: WmtsTile[];
  };
  ogc: {
    info: { title: string; description: string };
    conformanceClasses: string[];
    allCollections: { name: string; hasMapTiles?: boolean; hasVectorTiles?: boolean }[];
    hasTiles: boolean;
    hasFeatures: boolean;
    hasRecords: boolean;
    tileMatrixSets: string[];
    mapTileCollections: string[];
    vectorTileCollections: string[];
    collections: { id: string; title: string; mapTileFormats: string[]; vectorTileFormats: string[]; supportedTileMatrixSets: string[] }[];
    tilesets: OgcTileset[];
  };
  requests: { method: string; url: string; status: number }[];
}

/** A stored tile as a client gets it: gzip (how vector tiles are stored) undone, since fetch undoes a gzip Content-Encoding. */
function decoded(stored: Buffer): Buffer {
  return stored[0] === 0x1f && stored[1] === 0x8b ? gunzipSync(stored) : stored;
}

function expectSameBytes(got: Fetched, expected: Buffer, label: string): void {
  expect({ label, status: got.status }).toEqual({ label, status: 200 });
  const body = Buffer.from(got.body, 'base64');
  if (!body.equals(expected)) {
    throw new Error(`${label}: ${body.length} bytes from ${got.url} differ from the stored tile's ${expected.length} bytes`);
  }
}

function expectKey(url: string): void {
  expect({ url, key: new URL(url).searchParams.get('key') }).toEqual({ url, key: API_KEY });
}

describe('@camptocamp/ogc-client reading the WMTS and OGC API - Tiles endpoints', () => {
  // ogc-client is a devDependency: always present where the suite runs, nothing to skip.
  let server: InteropServer;
  let report: Report;
  let caps: CapsSummary;
  let capsXml: string;
  const tiles: Record<'map' | 'map256' | 'vector' | 'weather', TileAddress> = {} as never;

  beforeAll(async () => {
    server = await startInteropServer();
    tiles.map = pickTile(MAP_STORE, Number(readMetadata(MAP_STORE).maxzoom));
    tiles.map256 = pickTile(MAP_STORE, Number(readMetadata(MAP_STORE).maxzoom), { pyramid: '256' });
    tiles.vector = pickTile(VECTOR_STORE, Number(readMetadata(VECTOR_STORE).maxzoom));
    tiles.weather = pickTile(KEYFRAMES[0].store, 2);
    const addr = (t: TileAddress) => `${t.z}/${t.x}/${t.y}`;
    const r = assertOk(
      await run(
        process.execPath,
        [SCRIPT, server.url, API_KEY, `map=${addr(tiles.map)}`, `map256=${addr(tiles.map256)}`, `vector=${addr(tiles.vector)}`, `weather=${addr(tiles.weather)}`, `time=${KEYFRAMES[0].time}`],
        { env: clientEnv(), cwd: path.resolve(__dirname, '..', '..'), timeoutMs: 60_000 },
      ),
    );
    report = JSON.parse(r.stdout) as Report;
    // An independent reading of the same document (fast-xml-parser), for identifiers.
    capsXml = await fetchText(`${server.url}/wmts/1.0.0/WMTSCapabilities.xml?key=${API_KEY}`);
    caps = summarizeCapabilities(capsXml);
  }, 90_000);
  afterAll(async () => {
    await server?.close();
  });

  describe('WMTS 1.0 (WmtsEndpoint)', () => {
    test('service identification and provider', () => {
      const info = report.wmts.info;
      expect(info).toMatchObject({ title: 'tilemirror', name: 'OGC WMTS', fees: 'none', constraints: 'none' });
      expect(info.keywords).toEqual(['WMTS', 'map tiles', 'offline', 'tilemirror']);
      expect(info.provider).toMatchObject({ name: 'tilemirror', site: `${server.url}/?key=${API_KEY}` });
      // The KVP GetTile endpoint, with the key.
      expect(info.getTileUrls.kvp).toBeDefined();
      expect(new URL(info.getTileUrls.kvp!).pathname).toBe('/wmts');
      expectKey(info.getTileUrls.kvp!);
    });

    test("the sample's layers, each with its format, style and Web Mercator matrix set", () => {
      const names = report.wmts.layers.map((l) => l.name);
      expect([...names].sort()).toEqual([...SAMPLE_WMTS_LAYERS].sort());
      expect(Object.keys(LAYERS).sort()).toEqual([...SAMPLE_WMTS_LAYERS].sort());
      for (const layer of report.wmts.layers) {
        const want = LAYERS[layer.name];
        const label = `layer ${layer.name}`;
        expect({ label, style: layer.defaultStyle, styles: layer.styles.map((s) => s.name) }).toEqual({ label, style: 'default', styles: ['default'] });
        // One RESTful template and the KVP endpoint, in the layer's one format, both with the key.
        expect({ label, links: layer.resourceLinks.map((r) => [r.encoding, r.format]) }).toEqual({
          label,
          links: [
            ['REST', want.format],
            ['KVP', want.format],
          ],
        });
        for (const link of layer.resourceLinks) expectKey(link.url);
        const rest = layer.resourceLinks.find((r) => r.encoding === 'REST')!.url;
        for (const p of ['{TileMatrix}', '{TileRow}', '{TileCol}']) expect(rest).toContain(p);
        // One matrix set link, the one the document names (read independently), with a limit per zoom level.
        const [min, max] = want.zooms;
        const capsLayer = caps.layers.find((l) => l.identifier === layer.name)!;
        expect({ label, sets: layer.matrixSets.map((s) => s.identifier) }).toEqual({ label, sets: capsLayer.matrixSetLinks });
        expect({ label, limits: layer.matrixSets[0].limits.map((l) => l.tileMatrix) }).toEqual({
          label,
          limits: Array.from({ length: max - min + 1 }, (_, i) => String(min + i)),
        });
        // The set: Web Mercator, tiles of the layer's size, a matrix per zoom level at that zoom's scale.
        const set = report.wmts.matrixSets.find((s) => s.identifier === layer.matrixSets[0].identifier)!;
        expect(set).toBeDefined();
        expect(set.crs).toMatch(/EPSG:.*:3857$/);
        expect(layer.matrixSets[0].crs).toBe(set.crs);
        expect(set.tileMatrices).toHaveLength(max - min + 1);
        set.tileMatrices.forEach((m, i) => {
          expect({ label, m: m.identifier, w: m.tileWidth, h: m.tileHeight }).toEqual({ label, m: String(min + i), w: want.tileSize, h: want.tileSize });
          const scale = mercatorScaleDenominator(min + i, want.tileSize);
          expect({ label, m: m.identifier, scaleMatches: Math.abs(m.scaleDenominator - scale) / scale < 1e-9 }).toEqual({ label, m: m.identifier, scaleMatches: true });
          expect(m.topLeft[0]).toBeCloseTo(-MERCATOR_HALF, 3);
          expect(m.topLeft[1]).toBeCloseTo(MERCATOR_HALF, 3);
        });
      }
    });

    test('the weather layer: its Time dimension and Default (ogc-client 1.3 reads no value list)', () => {
      const layer = report.wmts.layers.find((l) => l.name === WEATHER_LAYER)!;
      expect(layer.dimensions).toHaveLength(1);
      const [dim] = layer.dimensions!;
      expect(dim.identifier).toBe('Time');
      expect(dim.defaultValue).toBe(DEFAULT_TIME);
      expect(report.wmts.weatherDefaultDimensions).toEqual({ Time: DEFAULT_TIME });
      // The document lists both times as WMTS 1.0 <Value> elements; ogc-client 1.3 looks for <Values> and finds none.
      // A later ogc-client that reads them must find exactly the two.
      for (const k of KEYFRAMES) expect(capsXml).toContain(`<Value>${k.time}</Value>`);
      expect([[], KEYFRAMES.map((k) => k.time)]).toContainEqual(dim.values);
      // Other layers have none.
      for (const l of report.wmts.layers) if (l.name !== WEATHER_LAYER) expect({ layer: l.name, dims: l.dimensions ?? [] }).toEqual({ layer: l.name, dims: [] });
    });

    test('tile URLs built by getTileUrl: maps/sample (PNG) and tiles/sample-vector (MVT), the stored tiles', () => {
      for (const [label, layer, store, format] of [
        ['map', 'maps/sample', MAP_STORE, PNG],
        ['vector', 'tiles/sample-vector', VECTOR_STORE, MVT],
      ] as const) {
        const t = report.wmts.tiles.find((x) => x.label === label)!;
        expect({ z: t.z, x: t.x, y: t.y }).toEqual(tiles[label]);
        expect(t.layer).toBe(layer);
        expect(t.tileMatrix).toBe(matrixIdForZoom(caps.matrixSets.find((s) => s.identifier === t.matrixSet)!, t.z));
        // The URL is ogc-client's, as it built it: the RESTful template filled, the key kept.
        expect(t.url).toBe(t.built);
        expect(t.url).not.toMatch(/[{}]/);
        expect(new URL(t.url).pathname).toMatch(new RegExp(`^/wmts/1\\.0\\.0/${layer}/default/`));
        expectKey(t.url);
        expect(t.contentType).toBe(format);
        expectSameBytes(t, decoded(readStoredTile(store, tiles[label])), `WMTS ${layer} ${t.z}/${t.x}/${t.y}`);
      }
    });

    test('the weather layer at its Default and at the other time: the keyframe tile sets, {Time} filled by the script', () => {
      const got = report.wmts.tiles.filter((x) => x.label === 'weather');
      expect(got.map((t) => t.time).sort()).toEqual(KEYFRAMES.map((k) => k.time));
      expect(got.find((t) => t.time === DEFAULT_TIME)!.timeFrom).toBe('ogc-client Default');
      const a = readStoredTile(KEYFRAMES[0].store, tiles.weather);
      const b = readStoredTile(KEYFRAMES[1].store, tiles.weather);
      expect(a.equals(b)).toBe(false); // the wrong time cannot pass
      for (const k of KEYFRAMES) {
        const t = got.find((x) => x.time === k.time)!;
        // ogc-client 1.3 leaves the dimension's placeholder in the RESTful template.
        expect(t.built).toContain('/{Time}/');
        expect(t.url).toBe(t.built.replace('{Time}', k.time));
        expectKey(t.url);
        expect(t.contentType).toBe(PNG);
        expectSameBytes(t, readStoredTile(k.store, tiles.weather), `WMTS ${WEATHER_LAYER} at ${k.time}`);
      }
    });
  });

  describe('OGC API - Tiles (OgcApiEndpoint)', () => {
    test('landing page, conformance classes, collections, tile matrix sets', () => {
      const ogc = report.ogc;
      expect(ogc.info.title).toBe('tilemirror');
      expect(ogc.conformanceClasses).toContain(TILES_CORE);
      expect([...ogc.conformanceClasses].sort()).toEqual([...SAMPLE_OGC_CONFORMANCE].sort());
      expect(ogc.hasTiles).toBe(true);
      // No OGC API - Features or Records here (ogc-client still flags each collection without an itemType hasFeatures).
      expect(ogc.hasFeatures).toBe(false);
      expect(ogc.hasRecords).toBe(false);
      expect(ogc.allCollections.map((c) => c.name).sort()).toEqual([...SAMPLE_OGC_COLLECTIONS].sort());
      for (const c of ogc.allCollections) {
        const vector = VECTOR_COLLECTIONS.includes(c.name);
        expect({ name: c.name, map: !!c.hasMapTiles, vector: !!c.hasVectorTiles }).toEqual({ name: c.name, map: !vector, vector });
      }
      expect([...ogc.vectorTileCollections].sort()).toEqual(VECTOR_COLLECTIONS);
      expect([...ogc.mapTileCollections].sort()).toEqual(SAMPLE_OGC_COLLECTIONS.filter((c) => !VECTOR_COLLECTIONS.includes(c)).sort());
      expect([...ogc.tileMatrixSets].sort()).toEqual(['WebMercatorQuad', 'WebMercatorQuad512']);
    });

    test('maps.sample: PNG map tilesets in both matrix sets, tiles read through them are the stored ones', () => {
      const info = report.ogc.collections.find((c) => c.id === 'maps.sample')!;
      expect(info).toMatchObject({ title: 'Sample map', mapTileFormats: [PNG], vectorTileFormats: [] });
      const sets = report.ogc.tilesets.filter((s) => s.collection === 'maps.sample');
      expect(sets.map((s) => s.tileMatrixSet).sort()).toEqual(['WebMercatorQuad', 'WebMercatorQuad512']);
      for (const [set, tile, pyramid] of [
        ['WebMercatorQuad512', tiles.map, undefined],
        ['WebMercatorQuad', tiles.map256, '256'],
      ] as const) {
        const s = sets.find((x) => x.tileMatrixSet === set)!;
        expect({ set, error: s.error }).toEqual({ set, error: undefined });
        expectKey(s.tilesetUrl!);
        expect(new URL(s.tilesetUrl!).pathname).toBe(`/ogc/collections/maps.sample/map/tiles/${set}`);
        expect(s.itemType).toBe(PNG);
        expectKey(s.itemTemplate!);
        expect({ z: s.tile!.z, x: s.tile!.x, y: s.tile!.y }).toEqual(tile);
        expectKey(s.tile!.url);
        expect(s.tile!.contentType).toBe(PNG);
        expectSameBytes(s.tile!, readStoredTile(MAP_STORE, tile, pyramid), `OGC API maps.sample ${set} ${tile.z}/${tile.x}/${tile.y}`);
      }
    });

    test('tiles.sample-vector: a vector tileset in WebMercatorQuad512 only, its tile the stored one (gzip undone)', () => {
      const info = report.ogc.collections.find((c) => c.id === 'tiles.sample-vector')!;
      expect(info).toMatchObject({ title: 'Sample vector', mapTileFormats: [], vectorTileFormats: [MVT], supportedTileMatrixSets: ['WebMercatorQuad512'] });
      const sets = report.ogc.tilesets.filter((s) => s.collection === 'tiles.sample-vector');
      expect(sets.find((s) => s.tileMatrixSet === 'WebMercatorQuad')!.error).toMatch(/does not support the tile matrix set 'WebMercatorQuad'/);
      const s = sets.find((x) => x.tileMatrixSet === 'WebMercatorQuad512')!;
      expectKey(s.tilesetUrl!);
      expect(new URL(s.tilesetUrl!).pathname).toBe('/ogc/collections/tiles.sample-vector/tiles/WebMercatorQuad512');
      expect(s.itemType).toBe(MVT);
      const t = s.tile!;
      expect({ z: t.z, x: t.x, y: t.y }).toEqual(tiles.vector);
      expectKey(t.url);
      expect(t.contentType).toBe(MVT);
      // The store holds gzip-compressed tiles and the server sends them as such, Content-Encoding: gzip.
      expect(t.contentEncoding).toBe('gzip');
      expectSameBytes(t, decoded(readStoredTile(VECTOR_STORE, tiles.vector)), `OGC API tiles.sample-vector ${t.z}/${t.x}/${t.y}`);
    });
  });

  test('every request (ogc-client and the script) carried the key and was answered 200', () => {
    expect(report.ogcClientVersion).toMatch(/^1\./);
    expect(report.requests.length).toBeGreaterThan(10);
    for (const r of report.requests) {
      expect({ url: r.url, ours: r.url.startsWith(`${server.url}/`), status: r.status }).toEqual({ url: r.url, ours: true, status: 200 });
      expectKey(r.url);
    }
  });
});
