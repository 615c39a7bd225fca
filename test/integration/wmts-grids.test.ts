// WMTS in grids besides Web Mercator (`grids` in the configuration): the registered EuropeanETRS89_LAEAQuad and
// WorldCRS84Quad and an operator's grid (Swiss LV95 as the federal geoportal defines it). The capabilities stay
// valid against the WMTS 1.0 schema and give each set as the registry defines it (TopLeftCorner in the CRS's axis
// order); a layer links the grids its area meets; a tile of a grid is the WMS GetMap of the tile's bounds at the
// tile's size (the pixels themselves are checked against gdalwarp in test/interop/wms-gdalwarp.interop.test.ts).

import { execFile } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { XMLParser } from 'fast-xml-parser';
import { gatedTest } from '../helpers/clients';
import { comparePixels, decodeRGBA, isUniform } from '../helpers/pixels';
import { KEY, rawGet, sampleServerForFile } from '../helpers/server';
import { tempDirs } from '../helpers/temp-dirs';
import { correctedSchema, findSchema } from '../helpers/wmts-schema';
import { LV95 } from '../helpers/grids';

const run = promisify(execFile);
const { tempDir, removeTempDirs } = tempDirs('tilemirror-wmts-grids-');
const server = sampleServerForFile({ grids: ['EuropeanETRS89_LAEAQuad', 'WorldCRS84Quad', LV95] }, removeTempDirs);
const xmllintTest = gatedTest('xmllint with the WMTS 1.0 XSD', { bins: ['xmllint', 'dpkg'], packages: ['libxml2-utils', 'python3-mapproxy'] });

interface Caps {
  Capabilities: {
    Contents: {
      Layer: { 'ows:Identifier': string; TileMatrixSetLink: { TileMatrixSet: string } | { TileMatrixSet: string }[] }[];
      TileMatrixSet: { 'ows:Identifier': string; 'ows:SupportedCRS': string; WellKnownScaleSet?: string; TileMatrix: { 'ows:Identifier': string; ScaleDenominator: number; TopLeftCorner: string; MatrixWidth: number; MatrixHeight: number }[] }[];
    };
  };
}

const capsText = async (): Promise<string> => (await rawGet(`${server().url}/wmts/1.0.0/WMTSCapabilities.xml?key=${KEY}`)).body.toString();

xmllintTest('the capabilities with the grids validate against the WMTS 1.0 schema', async () => {
  const shipped = await findSchema();
  const dir = tempDir();
  const xsd = correctedSchema(shipped!, dir);
  const file = path.join(dir, 'caps.xml');
  writeFileSync(file, await capsText());
  await run('xmllint', ['--noout', '--nonet', '--schema', xsd, file]);
});

test('each grid as the registry (or the operator) defines it, linked to the layers whose area it meets', async () => {
  const caps = new XMLParser({ ignoreAttributes: false }).parse(await capsText()) as Caps;
  const sets = new Map(caps.Capabilities.Contents.TileMatrixSet.map((s) => [s['ows:Identifier'], s]));
  const laea = sets.get('EuropeanETRS89_LAEAQuad')!;
  expect(laea['ows:SupportedCRS']).toBe('urn:ogc:def:crs:EPSG::3035');
  // The registry's values (OGC 2D-TMS registry, EuropeanETRS89_LAEAQuad.json): origin northing first.
  expect(laea.TileMatrix[0]).toMatchObject({ 'ows:Identifier': 0, TopLeftCorner: '5500000 2000000', MatrixWidth: 1, MatrixHeight: 1 });
  expect(laea.TileMatrix[0].ScaleDenominator).toBeCloseTo(62779017.8571428, 4);
  expect(laea.TileMatrix[15].ScaleDenominator).toBeCloseTo(1915.86358206612, 6);
  const crs84 = sets.get('WorldCRS84Quad')!;
  expect(crs84).toMatchObject({ 'ows:SupportedCRS': 'urn:ogc:def:crs:OGC:1.3:CRS84', WellKnownScaleSet: 'urn:ogc:def:wkss:OGC:1.0:GoogleCRS84Quad' });
  expect(crs84.TileMatrix[0]).toMatchObject({ TopLeftCorner: '-180 90', MatrixWidth: 2, MatrixHeight: 1 });
  expect(crs84.TileMatrix[0].ScaleDenominator).toBeCloseTo(279541132.014358, 4);
  const lv95 = sets.get('LV95')!;
  expect(lv95['ows:SupportedCRS']).toBe('urn:ogc:def:crs:EPSG::2056');
  expect(lv95.TileMatrix).toHaveLength(29);
  // LV95 is easting first; at 4000 m a pixel the extent is one tile across and one down, at 0.1 m 18750 x 12500.
  expect(lv95.TileMatrix[0]).toMatchObject({ TopLeftCorner: '2420000 1350000', MatrixWidth: 1, MatrixHeight: 1 });
  expect(lv95.TileMatrix[28]).toMatchObject({ MatrixWidth: 18750, MatrixHeight: 12500 });
  const links = (id: string) => {
    const l = caps.Capabilities.Contents.Layer.find((x) => x['ows:Identifier'] === id)!.TileMatrixSetLink;
    return (Array.isArray(l) ? l : [l]).map((x) => x.TileMatrixSet);
  };
  // The world map meets every grid; its first link stays the Web Mercator set.
  expect(links('maps/sample')).toEqual(['GoogleMapsCompatible512-z0-5', 'EuropeanETRS89_LAEAQuad', 'WorldCRS84Quad', 'LV95']);
  // A vector tile set is offered in Web Mercator only.
  expect(links('tiles/sample-vector')).toHaveLength(1);
});

test('a tile of a grid is the GetMap of its bounds; outside the matrix it is TileOutOfRange', async () => {
  const base = server().url;
  // LAEA Europe, zoom 2 (cell 4394.53125 m), row 1, col 1: x 2000000 + 1125000 .. , y 5500000 - 2250000 ..
  const span = 4394.53125 * 256;
  const [minX, maxY] = [2000000 + span, 5500000 - span];
  const tile = await rawGet(`${base}/wmts?key=${KEY}&SERVICE=WMTS&REQUEST=GetTile&VERSION=1.0.0&LAYER=maps/sample&STYLE=default&TILEMATRIXSET=EuropeanETRS89_LAEAQuad&TILEMATRIX=2&TILEROW=1&TILECOL=1&FORMAT=image/png`);
  expect({ status: tile.status, type: tile.headers['content-type'] }).toEqual({ status: 200, type: 'image/png' });
  const bbox = [maxY - span, minX, maxY, minX + span].join(',');
  const getMap = await rawGet(`${base}/wms?key=${KEY}&SERVICE=WMS&REQUEST=GetMap&VERSION=1.3.0&LAYERS=maps/sample&STYLES=&CRS=EPSG:3035&BBOX=${bbox}&WIDTH=256&HEIGHT=256&FORMAT=image/png&TRANSPARENT=TRUE`);
  const a = await decodeRGBA(tile.body);
  expect([a.width, a.height]).toEqual([256, 256]);
  expect(isUniform(a)).toBe(false);
  expect(comparePixels(a, await decodeRGBA(getMap.body)).differing).toBe(0);
  // RESTful, the grid in the path; an operator's grid too.
  const rest = await rawGet(`${base}/wmts/1.0.0/maps/sample/default/LV95/0/0/0.png?key=${KEY}`);
  expect({ status: rest.status, type: rest.headers['content-type'] }).toEqual({ status: 200, type: 'image/png' });
  const outside = await rawGet(`${base}/wmts?key=${KEY}&SERVICE=WMTS&REQUEST=GetTile&VERSION=1.0.0&LAYER=maps/sample&STYLE=default&TILEMATRIXSET=EuropeanETRS89_LAEAQuad&TILEMATRIX=2&TILEROW=4&TILECOL=0&FORMAT=image/png`);
  expect(outside.status).toBe(400);
  expect(outside.body.toString()).toContain('exceptionCode="TileOutOfRange"');
  const noMatrix = await rawGet(`${base}/wmts?key=${KEY}&SERVICE=WMTS&REQUEST=GetTile&VERSION=1.0.0&LAYER=maps/sample&STYLE=default&TILEMATRIXSET=LV95&TILEMATRIX=29&TILEROW=0&TILECOL=0&FORMAT=image/png`);
  expect(noMatrix.status).toBe(400);
  expect(noMatrix.body.toString()).toContain('locator="TileMatrix"');
});
