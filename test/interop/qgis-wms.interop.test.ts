// QGIS 3.22's WMS provider (Debian bookworm's python3-qgis) on the server's WMS 1.3.0: a layer source as its Add
// Layer dialog writes one (non-tiled WMS, the layer's CRS chosen), rendered by QGIS's map renderer in that CRS. QGIS
// sends one GetMap per render, in the CRS's axis order by its own rules; what it draws must be the image the server
// answers to that very request, pixel for pixel, and it must show the sample map (not a blank or an exception).
// And its WMTS provider in EPSG:2056, on an operator's grid (Swiss LV95): a block of 2 x 2 tiles at their own
// resolution is those tiles side by side.
import { gatedTest } from '../helpers/clients';
import { comparePixels, decodeRGBA, isUniform } from '../helpers/pixels';
import { KEY, rawGet, sampleServerForFile } from '../helpers/server';
import type { RGBA } from '../helpers/pixels';
import { tempDirs } from '../helpers/temp-dirs';
import { type LayerResult, layerSource, openLayer, QGIS_CHECK, qgisPixels, query, runQgis, wmsSource } from './qgis';

const qgisTest = gatedTest('QGIS', QGIS_CHECK);
const { tempDir, removeTempDirs } = tempDirs('tilemirror-qgis-wms-');

const LV95 = {
  id: 'LV95',
  crs: 2056,
  origin: [2420000, 1350000],
  extent: [2420000, 1030000, 2900000, 1350000],
  resolutions: [4000, 3750, 3500, 3250, 3000, 2750, 2500, 2250, 2000, 1750, 1500, 1250, 1000, 750, 650, 500, 250],
};
const server = sampleServerForFile({ grids: [LV95] }, removeTempDirs);

const CASES = [
  // Swiss LV95 (easting first), WGS 84 (latitude first in 1.3.0), LAEA Europe (northing first in 1.3.0).
  { crs: 'EPSG:2056', extent: [2420000, 1030000, 2900000, 1390000], size: [512, 384] },
  { crs: 'EPSG:4326', extent: [-10, 35, 30, 60], size: [480, 300] },
  { crs: 'EPSG:3035', extent: [2500000, 1400000, 6500000, 5400000], size: [400, 400] },
];

qgisTest('QGIS draws the server\'s GetMap of the extent it asks for, in EPSG:2056, 4326 and 3035', async () => {
  const uris = CASES.map((c) => wmsSource({ contextualWMSLegend: '0', crs: c.crs, dpiMode: '7', format: 'image/png', layers: 'maps/sample', styles: '', url: `${server().url}/wms?key=${KEY}` }));
  const results = await runQgis<LayerResult[]>(
    CASES.map((c, i) => ({ op: 'layer', uri: uris[i], render: { extent: c.extent, width: c.size[0], height: c.size[1] } })),
    tempDir,
    120_000,
  );
  for (const [i, c] of CASES.entries()) {
    const res = openLayer(results[i], c.crs);
    expect(res.crs).toBe(c.crs);
    const render = res.render!;
    expect({ crs: c.crs, errors: render.errors }).toEqual({ crs: c.crs, errors: [] });
    const getMaps = (render.requests ?? []).filter((r) => /REQUEST=GetMap/i.test(r.url));
    expect(getMaps).toHaveLength(1);
    const asked = new URL(getMaps[0].url).searchParams;
    expect(asked.get('CRS')).toBe(c.crs);
    const answer = await rawGet(getMaps[0].url);
    expect(answer.status).toBe(200);
    const expected = await decodeRGBA(answer.body);
    expect(isUniform(expected)).toBe(false);
    const drawn = qgisPixels(render, c.crs);
    expect({ crs: c.crs, size: [drawn.width, drawn.height] }).toEqual({ crs: c.crs, size: c.size });
    expect({ crs: c.crs, differing: comparePixels(drawn, expected, 1).differing }).toEqual({ crs: c.crs, differing: 0 });
    // The request names the extent QGIS drew, in the CRS's 1.3.0 axis order.
    const bbox = asked.get('BBOX')!.split(',').map(Number);
    const northFirst = c.crs !== 'EPSG:2056';
    const [minx, miny, maxx, maxy] = c.extent;
    expect(bbox.map((v) => Math.round(v))).toEqual((northFirst ? [miny, minx, maxy, maxx] : [minx, miny, maxx, maxy]).map((v) => Math.round(v)));
  }
}, 180_000);

qgisTest('QGIS\'s WMTS provider in EPSG:2056 on the LV95 grid: a block of 2 x 2 tiles of matrix 12 is those tiles', async () => {
  const capsUrl = `${server().url}/wmts/1.0.0/WMTSCapabilities.xml?key=${KEY}`;
  // Matrix 12: 1000 m a pixel, 2 x 2 tiles cover the grid's extent from its origin.
  const extent = [2420000, 1350000 - 512000, 2420000 + 512000, 1350000];
  const [layer] = await runQgis<[LayerResult]>([{ op: 'layer', uri: layerSource(capsUrl, 'maps/sample', 'LV95', { crs: 'EPSG:2056' }), blocks: [{ extent, width: 512, height: 512 }] }], tempDir, 150_000);
  openLayer(layer, 'maps/sample in LV95');
  expect(layer.crs).toBe('EPSG:2056');
  const block = layer.blocks[0];
  const asked = (block.requests ?? []).map((r) => query(r));
  expect(asked.length).toBeGreaterThanOrEqual(4);
  expect([...new Set(asked.map((q) => `${q.get('TILEMATRIXSET')} ${q.get('TILEMATRIX')}`))]).toEqual(['LV95 12']);
  const expected: RGBA = { width: 512, height: 512, data: Buffer.alloc(512 * 512 * 4) };
  for (const [row, col] of [[0, 0], [0, 1], [1, 0], [1, 1]]) {
    const r = await rawGet(`${server().url}/wmts/1.0.0/maps/sample/default/LV95/12/${row}/${col}.png?key=${KEY}`);
    const t = await decodeRGBA(r.body);
    for (let y = 0; y < 256; y++) t.data.copy(expected.data, ((row * 256 + y) * 512 + col * 256) * 4, y * 256 * 4, (y + 1) * 256 * 4);
  }
  expect(isUniform(expected)).toBe(false);
  expect(comparePixels(qgisPixels(block, 'LV95 block'), expected, 1).differing).toBe(0);
}, 180_000);
