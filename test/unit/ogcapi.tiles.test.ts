import { conformance } from '../../src/ogc/conformance';
import {
  collection,
  collectionId,
  collections,
  landingPage,
  ogcTileMatrixSet,
  parseCollectionId,
  pyramidForTmsId,
  resourceTileMatrixSet,
  resourceTileset,
  tileMatrixSetList,
  tileset,
  tilesetList,
  tilesetsPath,
} from '../../src/ogc/ogcapi-tiles';
import type { Bounds, Pyramid, TilesetInfo } from '../../src/store/types';
import { SAMPLE_OGC_CONFORMANCE } from '../fixtures/sample-listings';

const BASE = 'https://maps.example.org';
const KEY = 'K/ey';
const KQ = `key=${encodeURIComponent(KEY)}`;
const SWISS: Bounds = [5.9, 45.8, 10.5, 47.8];
const REL = 'http://www.opengis.net/def/rel/ogc/1.0/';

const p512: Pyramid = { name: '512', tileSize: 512, scale: 1, format: 'png', minzoom: 7, maxzoom: 8, bounds: SWISS };
const p256: Pyramid = { ...p512, name: '256', tileSize: 256, minzoom: 8, maxzoom: 9 };
const map: TilesetInfo = {
  kind: 'maps',
  id: 'sample',
  name: 'Sample',
  description: 'A map',
  attribution: '© someone',
  type: 'baselayer',
  format: 'png',
  minzoom: 7,
  maxzoom: 8,
  bounds: SWISS,
  center: [8, 47, 7],
  version: 'v1',
  pyramids: [p512, p256, { ...p512, name: '512@2x', scale: 2 }],
};
const vp: Pyramid = { name: 'main', tileSize: 512, scale: 1, format: 'pbf', minzoom: 0, maxzoom: 2, bounds: [-180, -85, 180, 85] };
const vector: TilesetInfo = {
  ...map,
  kind: 'tiles',
  id: 'v3',
  name: 'Vector',
  format: 'pbf',
  pyramids: [vp],
  vectorLayers: [{ id: 'water', description: 'Water', fields: {} }, { id: 'roads', fields: {} }],
};
const image: TilesetInfo = {
  ...map,
  kind: 'images',
  id: 'scan',
  format: 'jpg',
  pyramids: [{ ...p256, name: 'main', format: 'jpg' }],
};

type Link = { href: string; rel: string; type?: string; templated?: boolean };
const byRel = (links: Link[], rel: string): Link => {
  const l = links.find((x) => x.rel === rel);
  if (!l) throw new Error(`no link ${rel}`);
  return l;
};

/** Every href anywhere in a document. */
function hrefs(doc: unknown): string[] {
  const out: string[] = [];
  const walk = (v: unknown): void => {
    if (Array.isArray(v)) v.forEach(walk);
    else if (v && typeof v === 'object') {
      for (const [k, x] of Object.entries(v)) {
        if (k === 'href' && typeof x === 'string') out.push(x);
        else walk(x);
      }
    }
  };
  walk(doc);
  return out;
}

function expectAbsoluteWithKey(doc: unknown): void {
  const all = hrefs(doc);
  expect(all.length).toBeGreaterThan(0);
  for (const h of all) {
    expect(h.startsWith(`${BASE}/`)).toBe(true);
    expect(new URL(h.replace(/[{}]/g, '')).searchParams.get('key')).toBe(KEY);
  }
}

describe('identifiers', () => {
  test('collection ids', () => {
    expect(collectionId('maps', 'sample')).toBe('maps.sample');
    expect(parseCollectionId('tiles.v3')).toEqual({ kind: 'tiles', id: 'v3' });
    expect(parseCollectionId('images.a.b')).toEqual({ kind: 'images', id: 'a.b' });
    expect(parseCollectionId('data.x')).toBeUndefined();
    expect(parseCollectionId('maps.')).toBeUndefined();
    expect(parseCollectionId('maps')).toBeUndefined();
  });
  test('tileset paths: map vs vector', () => {
    expect(tilesetsPath(map)).toBe('/ogc/collections/maps.sample/map/tiles');
    expect(tilesetsPath(vector)).toBe('/ogc/collections/tiles.v3/tiles');
    expect(tilesetsPath(image)).toBe('/ogc/collections/images.scan/map/tiles');
  });
  test('pyramidForTmsId', () => {
    expect(pyramidForTmsId(map, 'WebMercatorQuad512')).toBe(p512);
    expect(pyramidForTmsId(map, 'WebMercatorQuad')).toBe(p256);
    expect(pyramidForTmsId(vector, 'WebMercatorQuad')).toBeUndefined();
    expect(pyramidForTmsId(map, 'WebMercatorQuad512-z7-8')).toBeUndefined();
    expect(pyramidForTmsId(map, 'nope')).toBeUndefined();
  });
});

describe('landing page and conformance', () => {
  test('links GDAL needs', () => {
    const doc = landingPage(BASE, KEY, 'tilemirror');
    expect(doc.title).toBe('tilemirror');
    expect(byRel(doc.links, 'self').href).toBe(`${BASE}/ogc?${KQ}`);
    expect(byRel(doc.links, 'conformance').href).toBe(`${BASE}/ogc/conformance?${KQ}`);
    expect(byRel(doc.links, 'data')).toEqual(expect.objectContaining({ href: `${BASE}/ogc/collections?${KQ}`, type: 'application/json' }));
    expect(byRel(doc.links, `${REL}tiling-schemes`).href).toBe(`${BASE}/ogc/tileMatrixSets?${KQ}`);
    expectAbsoluteWithKey(doc);
  });

  test('with dataset tilesets: the whole document, its last link the vector tilesets of the dataset', () => {
    expect(landingPage(BASE, KEY, 'tilemirror', true)).toEqual({
      title: 'tilemirror',
      description: 'OGC API - Tiles of the mirrored maps, tile sets and images',
      links: [
        { href: `${BASE}/ogc?${KQ}`, rel: 'self', type: 'application/json', title: 'This document' },
        { href: `${BASE}/openapi.json?${KQ}`, rel: 'service-desc', type: 'application/vnd.oai.openapi+json;version=3.1', title: 'The API definition (OpenAPI 3.1)' },
        { href: `${BASE}/docs?${KQ}`, rel: 'service-doc', type: 'text/html', title: 'The API documentation' },
        { href: `${BASE}/ogc/conformance?${KQ}`, rel: 'conformance', type: 'application/json', title: 'Conformance declaration' },
        { href: `${BASE}/ogc/collections?${KQ}`, rel: 'data', type: 'application/json', title: 'Collections' },
        { href: `${BASE}/ogc/tileMatrixSets?${KQ}`, rel: `${REL}tiling-schemes`, type: 'application/json', title: 'Tile matrix sets' },
        { href: `${BASE}/ogc/tiles?${KQ}`, rel: `${REL}tilesets-vector`, type: 'application/json', title: 'Vector tilesets of the dataset' },
      ],
    });
    expect(landingPage(BASE, KEY, 'tilemirror').links.some((l) => l.rel.startsWith(`${REL}tilesets-`))).toBe(false);
  });

  test('conformance classes: dataset-tilesets only when the dataset has tilesets, datetime only when some collection has time; no oas30', () => {
    const dataset = 'http://www.opengis.net/spec/ogcapi-tiles-1/1.0/conf/dataset-tilesets';
    const datetime = 'http://www.opengis.net/spec/ogcapi-tiles-1/1.0/conf/datetime';
    expect(conformance(true, true)).toEqual({ conformsTo: SAMPLE_OGC_CONFORMANCE });
    expect(conformance(true)).toEqual({ conformsTo: SAMPLE_OGC_CONFORMANCE.filter((c) => c !== datetime) });
    expect(conformance(false, false)).toEqual({ conformsTo: SAMPLE_OGC_CONFORMANCE.filter((c) => c !== dataset && c !== datetime) });
  });
});

describe('collections', () => {
  test('a map collection links only map tilesets', () => {
    const c = collection(map, BASE, KEY);
    expect(c.id).toBe('maps.sample');
    expect(c.dataType).toBe('map');
    expect(c.extent.spatial).toEqual({ bbox: [SWISS], crs: 'http://www.opengis.net/def/crs/OGC/1.3/CRS84' });
    expect(byRel(c.links, 'self').href).toBe(`${BASE}/ogc/collections/maps.sample?${KQ}`);
    expect(byRel(c.links, `${REL}tilesets-map`)).toEqual(
      expect.objectContaining({ href: `${BASE}/ogc/collections/maps.sample/map/tiles?${KQ}`, type: 'application/json' }),
    );
    expect(c.links.some((l) => l.rel === `${REL}tilesets-vector`)).toBe(false);
  });
  test('a vector collection links only vector tilesets', () => {
    const c = collection(vector, BASE, KEY);
    expect(c.dataType).toBe('vector');
    expect(byRel(c.links, `${REL}tilesets-vector`).href).toBe(`${BASE}/ogc/collections/tiles.v3/tiles?${KQ}`);
    expect(c.links.some((l) => l.rel === `${REL}tilesets-map`)).toBe(false);
  });
  test('list', () => {
    const doc = collections([map, vector, image], BASE, KEY);
    expect(doc.collections.map((c) => c.id)).toEqual(['maps.sample', 'tiles.v3', 'images.scan']);
    for (const c of doc.collections) expect(c.extent.spatial.bbox).toHaveLength(1);
    expectAbsoluteWithKey(doc);
  });
});

describe('tilesets', () => {
  test('list: one per scale-1 pyramid, main first, each with its set id, limits and the template of its tiles', () => {
    const doc = tilesetList(map, BASE, KEY);
    const tilingScheme = (id: string) => ({ href: `${BASE}/ogc/tileMatrixSets/${id}?${KQ}`, rel: `${REL}tiling-scheme`, type: 'application/json', title: `Tile matrix set ${id}` });
    const tiles = (id: string) => ({
      href: `${BASE}/ogc/collections/maps.sample/map/tiles/${id}/{tileMatrix}/{tileRow}/{tileCol}?${KQ}`,
      rel: 'item',
      type: 'image/png',
      title: 'Tiles',
      templated: true,
    });
    const entry = (id: string, title: string, uri: string, limits: number[][]) => ({
      title,
      dataType: 'map',
      crs: 'http://www.opengis.net/def/crs/EPSG/0/3857',
      tileMatrixSetURI: uri,
      tileMatrixSetId: id,
      tileMatrixSetLimits: limits.map(([z, minTileRow, maxTileRow, minTileCol, maxTileCol]) => ({ tileMatrix: String(z), minTileRow, maxTileRow, minTileCol, maxTileCol })),
      links: [
        { href: `${BASE}/ogc/collections/maps.sample/map/tiles/${id}?${KQ}`, rel: 'self', type: 'application/json', title: `Tileset ${id}` },
        tilingScheme(id),
        tiles(id),
      ],
    });
    expect(doc).toEqual({
      links: [{ href: `${BASE}/ogc/collections/maps.sample/map/tiles?${KQ}`, rel: 'self', type: 'application/json', title: 'Tilesets' }],
      tilesets: [
        entry('WebMercatorQuad512', 'Sample', 'urn:tilemirror:def:tilematrixset:WebMercatorQuad512', [
          [7, 44, 45, 66, 67],
          [8, 89, 91, 132, 135],
        ]),
        entry('WebMercatorQuad', 'Sample (256 px)', 'http://www.opengis.net/def/tilematrixset/OGC/1.0/WebMercatorQuad', [
          [8, 89, 91, 132, 135],
          [9, 178, 182, 264, 270],
        ]),
      ],
    });
  });

  test('map tileset', () => {
    const doc = tileset(map, p256, BASE, KEY);
    expect(doc.dataType).toBe('map');
    expect(doc.title).toBe('Sample (256 px)');
    expect(doc.tileMatrixSetLimits).toEqual([
      { tileMatrix: '8', minTileRow: 89, maxTileRow: 91, minTileCol: 132, maxTileCol: 135 },
      { tileMatrix: '9', minTileRow: 178, maxTileRow: 182, minTileCol: 264, maxTileCol: 270 },
    ]);
    expect(byRel(doc.links, 'self').href).toBe(`${BASE}/ogc/collections/maps.sample/map/tiles/WebMercatorQuad?${KQ}`);
    expect(byRel(doc.links, `${REL}tiling-scheme`)).toEqual(
      expect.objectContaining({ href: `${BASE}/ogc/tileMatrixSets/WebMercatorQuad?${KQ}`, type: 'application/json' }),
    );
    expect(byRel(doc.links, 'item')).toEqual({
      href: `${BASE}/ogc/collections/maps.sample/map/tiles/WebMercatorQuad/{tileMatrix}/{tileRow}/{tileCol}?${KQ}`,
      rel: 'item',
      type: 'image/png',
      title: 'Tiles',
      templated: true,
    });
    expect(doc.layers).toBeUndefined();
    expectAbsoluteWithKey(doc);
  });

  test('vector tileset', () => {
    const doc = tileset(vector, vp, BASE, KEY);
    expect(doc.dataType).toBe('vector');
    const item = byRel(doc.links, 'item');
    expect(item.type).toBe('application/vnd.mapbox-vector-tile');
    expect(item.href).toBe(`${BASE}/ogc/collections/tiles.v3/tiles/WebMercatorQuad512/{tileMatrix}/{tileRow}/{tileCol}?${KQ}`);
    expect(doc.tileMatrixSetLimits.map((l) => l.tileMatrix)).toEqual(['0', '1', '2']);
    expect(doc.layers).toEqual([
      { id: 'water', dataType: 'vector', description: 'Water' },
      { id: 'roads', dataType: 'vector' },
    ]);
  });

  test('image tileset is a map with a jpeg item', () => {
    expect(byRel(tileset(image, image.pyramids[0], BASE, KEY).links, 'item').type).toBe('image/jpeg');
  });

  test('resource tileset: main pyramid, self on the resource path', () => {
    const doc = resourceTileset(map, BASE, KEY);
    expect(doc).toBeDefined();
    expect(byRel(doc!.links, 'self').href).toBe(`${BASE}/maps/sample/tiles?${KQ}`);
    expect(byRel(doc!.links, 'item').href).toContain('/ogc/collections/maps.sample/map/tiles/WebMercatorQuad512/');
    expect(byRel(resourceTileset(vector, BASE, KEY)!.links, 'self').href).toBe(`${BASE}/tiles/v3/tiles?${KQ}`);
    expect(resourceTileset({ ...map, pyramids: [] }, BASE, KEY)).toBeUndefined();
  });
});

describe('tile matrix sets', () => {
  test('list', () => {
    const doc = tileMatrixSetList(BASE, KEY);
    expect(doc.tileMatrixSets.map((t) => t.id)).toEqual(['WebMercatorQuad', 'WebMercatorQuad512']);
    expect(byRel(doc.tileMatrixSets[1].links, 'self').href).toBe(`${BASE}/ogc/tileMatrixSets/WebMercatorQuad512?${KQ}`);
    expectAbsoluteWithKey(doc);
  });
  test('one set', () => {
    const doc = ogcTileMatrixSet('WebMercatorQuad512', BASE, KEY);
    expect(doc?.identifier).toBe('WebMercatorQuad512');
    expect(doc?.tileMatrix[0].scaleDenominator).toBe(279541132.0143589);
    expect(doc?.tileMatrices).toHaveLength(25);
    expectAbsoluteWithKey(doc);
    expect(ogcTileMatrixSet('WebMercatorQuad', BASE, KEY)?.tileMatrix[0].scaleDenominator).toBe(559082264.0287178);
    expect(ogcTileMatrixSet('WorldCRS84Quad', BASE, KEY)).toBeUndefined();
    expect(ogcTileMatrixSet('WebMercatorQuad-z0-3', BASE, KEY)).toBeUndefined();
  });
  test('resource tile matrix set is cut to the main pyramid zooms', () => {
    const doc = resourceTileMatrixSet(map);
    expect(doc?.id).toBe('WebMercatorQuad512-z7-8');
    expect(doc?.tileMatrix.map((m) => m.identifier)).toEqual(['7', '8']);
    expect(doc?.tileMatrices[0].tileWidth).toBe(512);
  });
});
