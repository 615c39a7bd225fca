import { buildTileJson, tileUrlTemplate } from '../../src/ogc/tilejson';
import type { Pyramid, TilesetInfo } from '../../src/store/types';

const BASE = 'http://127.0.0.1:8080';
const p512: Pyramid = { name: '512', tileSize: 512, scale: 1, format: 'png', minzoom: 0, maxzoom: 5, bounds: [5.9, 45.8, 10.5, 47.8] };
const p256: Pyramid = { ...p512, name: '256', tileSize: 256, minzoom: 1, maxzoom: 6 };
const p2x: Pyramid = { ...p512, name: '512@2x', scale: 2 };
const map: TilesetInfo = {
  kind: 'maps',
  id: 'sample',
  name: 'Sample',
  description: 'A map',
  attribution: '© someone',
  type: 'baselayer',
  format: 'png',
  minzoom: 0,
  maxzoom: 5,
  bounds: [5.9, 45.8, 10.5, 47.8],
  center: [8, 47, 0],
  version: 'v1',
  pyramids: [p512, p256, p2x],
};
const vectorPyramid: Pyramid = { name: 'main', tileSize: 512, scale: 1, format: 'pbf', minzoom: 0, maxzoom: 14, bounds: [-180, -85, 180, 85] };
const vector: TilesetInfo = {
  ...map,
  kind: 'tiles',
  id: 'v3',
  format: 'pbf',
  center: [0, 0, 2],
  pyramids: [vectorPyramid],
  vectorLayers: [{ id: 'water', fields: { class: 'String' } }],
};

describe('tileUrlTemplate', () => {
  test('same routes as WMTS, with {z}/{x}/{y} and an encoded key', () => {
    expect(tileUrlTemplate(BASE, 'maps', 'sample', p512, 'K')).toBe(`${BASE}/maps/sample/{z}/{x}/{y}.png?key=K`);
    expect(tileUrlTemplate(BASE, 'maps', 'sample', p256, 'K')).toBe(`${BASE}/maps/sample/256/{z}/{x}/{y}.png?key=K`);
    expect(tileUrlTemplate(BASE, 'maps', 'sample', p2x, 'K')).toBe(`${BASE}/maps/sample/{z}/{x}/{y}@2x.png?key=K`);
    expect(tileUrlTemplate(BASE, 'maps', 'sample', { ...p512, format: 'jpg' }, 'a b&c')).toBe(
      `${BASE}/maps/sample/{z}/{x}/{y}.jpg?key=a%20b%26c`,
    );
    expect(tileUrlTemplate(BASE, 'tiles', 'v3', vectorPyramid, 'K')).toBe(`${BASE}/tiles/v3/{z}/{x}/{y}?key=K`);
    expect(tileUrlTemplate(BASE, 'images', 'scan', p256, 'K')).toBe(`${BASE}/images/scan/{z}/{x}/{y}?key=K`);
    expect(tileUrlTemplate(`${BASE}/`, 'tiles', 'v3', vectorPyramid, 'K')).toBe(`${BASE}/tiles/v3/{z}/{x}/{y}?key=K`);
  });
});

describe('buildTileJson', () => {
  test('raster pyramid', () => {
    const tilesUrl = tileUrlTemplate(BASE, 'maps', 'sample', p256, 'K');
    expect(buildTileJson(map, p256, { tilesUrl })).toEqual({
      tilejson: '3.0.0',
      name: 'Sample',
      description: 'A map',
      attribution: '© someone',
      version: '1.0.0',
      scheme: 'xyz',
      tiles: [tilesUrl],
      minzoom: 1,
      maxzoom: 6,
      bounds: [5.9, 45.8, 10.5, 47.8],
      center: [8, 47, 1],
      format: 'png',
      tileSize: 256,
      scale: 1,
    });
  });

  test('vector tile set has vector_layers and no tileSize', () => {
    const doc = buildTileJson(vector, vectorPyramid, { tilesUrl: tileUrlTemplate(BASE, 'tiles', 'v3', vectorPyramid, 'K') });
    expect(doc.format).toBe('pbf');
    expect(doc.vector_layers).toEqual([{ id: 'water', fields: { class: 'String' } }]);
    expect(doc.tileSize).toBeUndefined();
    expect(doc.center).toEqual([0, 0, 2]);
    expect(doc.tiles[0]).toBe(`${BASE}/tiles/v3/{z}/{x}/{y}?key=K`);
  });

  test('vector tile set without layers still has the key', () => {
    const doc = buildTileJson({ ...vector, vectorLayers: undefined }, vectorPyramid, { tilesUrl: 'x' });
    expect(doc.vector_layers).toEqual([]);
  });
});
