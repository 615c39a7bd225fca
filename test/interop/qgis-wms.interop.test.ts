// QGIS 3.22's WMS provider (Debian bookworm's python3-qgis) on the server's WMS 1.3.0: a layer source as its Add
// Layer dialog writes one (non-tiled WMS, the layer's CRS chosen), rendered by QGIS's map renderer in that CRS. QGIS
// sends one GetMap per render, in the CRS's axis order by its own rules; what it draws must be the image the server
// answers to that very request, pixel for pixel, and it must show the sample map (not a blank or an exception).
import { gatedTest } from '../helpers/clients';
import { comparePixels, decodeRGBA, isUniform } from '../helpers/pixels';
import { KEY, rawGet, sampleServerForFile } from '../helpers/server';
import { tempDirs } from '../helpers/temp-dirs';
import { type LayerResult, openLayer, QGIS_CHECK, qgisPixels, runQgis, wmsSource } from './qgis';

const qgisTest = gatedTest('QGIS', QGIS_CHECK);
const { tempDir, removeTempDirs } = tempDirs('tilemirror-qgis-wms-');

const server = sampleServerForFile(undefined, removeTempDirs);

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
