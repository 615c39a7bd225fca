import {
  combineVectorTiles,
  datasetCollections,
  datasetParts,
  datasetRangeAt,
  datasetTileset,
  datasetTilesetList,
  datasetTmsIds,
  partsAt,
} from '../../src/ogc/dataset-tilesets';
import type { Bounds, Pyramid, TilesetInfo } from '../../src/store/types';

// The dataset's vector tilesets (/ogc/tiles): which collections the dataset combines, and its documents, against
// literal values. Tile ranges of the Swiss bounds worked out by hand with the Web Mercator formulas:
// x = floor((lon + 180) / 360 * 2^z), y = floor((1 - ln(tan φ + sec φ) / π) / 2 * 2^z):
// lon 5.9 and 10.5 give x 2 at z2, 4 at z3, 16 at z5; lat 47.8 and 45.8 give y 1 at z2, 2 at z3, 11 at z5.

const BASE = 'https://maps.example.org';
const KEY = 'K/ey';
const KQ = `key=${encodeURIComponent(KEY)}`;
const WORLD: Bounds = [-180, -85.0511287798066, 180, 85.0511287798066];
const SWISS: Bounds = [5.9, 45.8, 10.5, 47.8];
const REL = 'http://www.opengis.net/def/rel/ogc/1.0/';

const pyramid = (p: Partial<Pyramid>): Pyramid => ({ name: 'main', tileSize: 512, scale: 1, format: 'pbf', minzoom: 0, maxzoom: 2, bounds: WORLD, ...p });
function vector(id: string, layers: string[] | undefined, p: Partial<Pyramid> = {}): TilesetInfo {
  const main = pyramid(p);
  return {
    kind: 'tiles',
    id,
    name: `Set ${id}`,
    description: '',
    attribution: '',
    type: 'overlay',
    format: main.format,
    minzoom: main.minzoom,
    maxzoom: main.maxzoom,
    bounds: main.bounds,
    center: [0, 0, 0],
    version: 'v1',
    pyramids: [main],
    vectorLayers: layers?.map((l) => (l === 'water' ? { id: l, description: 'Water', fields: {} } : { id: l, fields: {} })),
  };
}

const a = vector('a', ['water', 'roads']);
const b = vector('b', ['poi'], { minzoom: 2, maxzoom: 3, bounds: SWISS });
const clash = vector('c', ['water']);
const unnamed = vector('d', undefined);
const contours = vector('e', ['contour'], { tileSize: 256, minzoom: 5, maxzoom: 5, bounds: SWISS });
const raster: TilesetInfo = { ...vector('f', ['x'], { format: 'png' }), kind: 'maps' };
const all = [raster, a, b, clash, unnamed, contours];

describe('which collections the dataset combines', () => {
  test('vector collections naming their layers, none already in the dataset, in collection order', () => {
    expect(datasetCollections(all).map((i) => i.id)).toEqual(['a', 'b', 'e']);
    // The first of two with a layer of the same name joins, whichever it is.
    expect(datasetCollections([clash, a, b]).map((i) => i.id)).toEqual(['c', 'b']);
    expect(datasetCollections([raster, unnamed])).toEqual([]);
  });

  test('one tileset per tile matrix set a member has a pyramid in, 256 px first', () => {
    expect(datasetTmsIds(all)).toEqual(['WebMercatorQuad', 'WebMercatorQuad512']);
    expect(datasetTmsIds([a, b])).toEqual(['WebMercatorQuad512']);
    expect(datasetTmsIds([raster])).toEqual([]);
    expect(datasetParts(all, 'WebMercatorQuad512').map((p) => p.info.id)).toEqual(['a', 'b']);
    expect(datasetParts(all, 'WebMercatorQuad').map((p) => p.info.id)).toEqual(['e']);
    expect(datasetParts(all, 'WebMercatorQuad512-z0-3')).toEqual([]);
    expect(datasetParts(all, 'Nope')).toEqual([]);
  });

  test('the tile range at a zoom holds every part having that zoom; the parts holding one tile', () => {
    const parts = datasetParts(all, 'WebMercatorQuad512');
    expect(datasetRangeAt(parts, 1)).toEqual({ minX: 0, minY: 0, maxX: 1, maxY: 1 });
    expect(datasetRangeAt(parts, 3)).toEqual({ minX: 4, minY: 2, maxX: 4, maxY: 2 });
    expect(datasetRangeAt(parts, 4)).toBeUndefined();
    expect(partsAt(parts, 2, 2, 1).map((p) => p.info.id)).toEqual(['a', 'b']);
    expect(partsAt(parts, 2, 0, 0).map((p) => p.info.id)).toEqual(['a']);
    expect(partsAt(parts, 3, 4, 2).map((p) => p.info.id)).toEqual(['b']);
    expect(partsAt(parts, 3, 0, 0)).toEqual([]);
  });
});

describe('documents', () => {
  const tilingScheme = { href: `${BASE}/ogc/tileMatrixSets/WebMercatorQuad512?${KQ}`, rel: `${REL}tiling-scheme`, type: 'application/json', title: 'Tile matrix set WebMercatorQuad512' };
  const tiles = {
    href: `${BASE}/ogc/tiles/WebMercatorQuad512/{tileMatrix}/{tileRow}/{tileCol}?${KQ}`,
    rel: 'item',
    type: 'application/vnd.mapbox-vector-tile',
    title: 'Tiles',
    templated: true,
  };
  const limits = [
    { tileMatrix: '0', minTileRow: 0, maxTileRow: 0, minTileCol: 0, maxTileCol: 0 },
    { tileMatrix: '1', minTileRow: 0, maxTileRow: 1, minTileCol: 0, maxTileCol: 1 },
    { tileMatrix: '2', minTileRow: 0, maxTileRow: 3, minTileCol: 0, maxTileCol: 3 },
    { tileMatrix: '3', minTileRow: 2, maxTileRow: 2, minTileCol: 4, maxTileCol: 4 },
  ];
  const geodata = (id: string) => [{ href: `${BASE}/ogc/collections/tiles.${id}?${KQ}`, rel: `${REL}geodata`, type: 'application/json', title: `Set ${id}` }];

  test('a tileset: the union of the parts, each layer linked to its collection', () => {
    expect(datasetTileset(all, 'WebMercatorQuad512', BASE, KEY)).toEqual({
      title: 'Vector tiles of the dataset',
      description: 'The layers of Set a, Set b in one tile',
      dataType: 'vector',
      crs: 'http://www.opengis.net/def/crs/EPSG/0/3857',
      tileMatrixSetURI: 'urn:tilemirror:def:tilematrixset:WebMercatorQuad512',
      tileMatrixSetLimits: limits,
      boundingBox: { lowerLeft: [-180, -85.0511287798066], upperRight: [180, 85.0511287798066], crs: 'http://www.opengis.net/def/crs/OGC/1.3/CRS84' },
      minzoom: 0,
      maxzoom: 3,
      layers: [
        { id: 'water', dataType: 'vector', description: 'Water', minTileMatrix: '0', maxTileMatrix: '2', links: geodata('a') },
        { id: 'roads', dataType: 'vector', minTileMatrix: '0', maxTileMatrix: '2', links: geodata('a') },
        { id: 'poi', dataType: 'vector', minTileMatrix: '2', maxTileMatrix: '3', links: geodata('b') },
      ],
      links: [{ href: `${BASE}/ogc/tiles/WebMercatorQuad512?${KQ}`, rel: 'self', type: 'application/json', title: 'This tileset' }, tilingScheme, tiles],
    });
    expect(datasetTileset(all, 'WebMercatorQuad', BASE, KEY)?.tileMatrixSetLimits).toEqual([{ tileMatrix: '5', minTileRow: 11, maxTileRow: 11, minTileCol: 16, maxTileCol: 16 }]);
    expect(datasetTileset([raster], 'WebMercatorQuad512', BASE, KEY)).toBeUndefined();
  });

  test('the list: one entry per tile matrix set, with its id, limits and the template of its tiles', () => {
    expect(datasetTilesetList([a, b], BASE, KEY)).toEqual({
      links: [{ href: `${BASE}/ogc/tiles?${KQ}`, rel: 'self', type: 'application/json', title: 'Vector tilesets of the dataset' }],
      tilesets: [
        {
          title: 'Vector tiles of the dataset',
          dataType: 'vector',
          crs: 'http://www.opengis.net/def/crs/EPSG/0/3857',
          tileMatrixSetURI: 'urn:tilemirror:def:tilematrixset:WebMercatorQuad512',
          tileMatrixSetId: 'WebMercatorQuad512',
          tileMatrixSetLimits: limits,
          links: [{ href: `${BASE}/ogc/tiles/WebMercatorQuad512?${KQ}`, rel: 'self', type: 'application/json', title: 'Tileset WebMercatorQuad512' }, tilingScheme, tiles],
        },
      ],
    });
    expect(datasetTilesetList(all, BASE, KEY).tilesets.map((t) => t.tileMatrixSetId)).toEqual(['WebMercatorQuad', 'WebMercatorQuad512']);
    expect(datasetTilesetList([raster], BASE, KEY).tilesets).toEqual([]);
  });
});

test('tiles combined: the plain tiles joined byte for byte, in order', () => {
  expect(combineVectorTiles([Buffer.from([0x1a, 0x02, 0x78, 0x01]), Buffer.from([0x1a, 0x01, 0x08])])).toEqual(Buffer.from([0x1a, 0x02, 0x78, 0x01, 0x1a, 0x01, 0x08]));
  expect(combineVectorTiles([])).toEqual(Buffer.alloc(0));
});
