// GDAL's WMS driver (the system's 3.6 and Debian trixie's, in its chroot) as a WMS client: it lists the server's
// layers from the capabilities (as subdatasets), and a GDAL_WMS service description over 1.3.0 in EPSG:4326 (with
// GDAL's BBoxOrder yxYX, as its documentation asks of 1.3.0 servers: latitude first) and 1.1.1 in EPSG:3035 reads an
// image in blocks of its own that, put together, are the server's single GetMap of the whole area within
// interpolation noise (each block is reprojected on its own grid of exact points, a fraction of a pixel apart).
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { decodeRGBA, type RGBA } from '../helpers/pixels';
import { assertOk } from '../helpers/run';
import { KEY, rawGet, startServer, type TestServer } from '../helpers/server';
import { tempDirs } from '../helpers/temp-dirs';
import { chrootGdal, gdalTest, runGdal, systemGdal, type Gdal } from './helpers';

let srv: TestServer;
beforeAll(async () => {
  srv = await startServer();
});
afterAll(async () => {
  await srv?.close();
});

/** Mean absolute difference of the colour channels where both are opaque, and the share of such pixels. */
function compare(a: RGBA, b: RGBA): { mad: number; share: number } {
  let sum = 0;
  let n = 0;
  for (let i = 0; i < a.data.length; i += 4) {
    if (a.data[i + 3] !== 255 || b.data[i + 3] !== 255) continue;
    for (let c = 0; c < 3; c++) sum += Math.abs(a.data[i + c] - b.data[i + c]);
    n++;
  }
  return { mad: sum / (3 * n), share: n / (a.width * a.height) };
}

const AREAS = [
  { version: '1.3.0', crs: 'EPSG:4326', ul: [-10, 60], lr: [30, 35], bbox130: '35,-10,60,30', order: '<BBoxOrder>yxYX</BBoxOrder>' },
  { version: '1.1.1', crs: 'EPSG:3035', ul: [2500000, 5400000], lr: [6500000, 1400000], bbox130: '1400000,2500000,5400000,6500000', order: '' },
];

for (const gdal of [systemGdal(), chrootGdal()] as Gdal[]) {
  const it = gdalTest(gdal);
  describe(gdal.label, () => {
    const temps = tempDirs('tilemirror-gdal-wms-', gdal.tempBase);
    afterAll(() => temps.removeTempDirs());

    it('lists the raster layers of the capabilities as subdatasets', async () => {
      const r = assertOk(await runGdal(gdal, 'gdalinfo', [`WMS:${srv.url}/wms?key=${KEY}`], undefined));
      const names = [...r.stdout.matchAll(/SUBDATASET_\d+_NAME=(\S+)/g)].map((m) => new URL(m[1].slice(4)).searchParams.get('LAYERS'));
      expect(names).toEqual(expect.arrayContaining(['maps/sample', 'images/sample-image']));
      expect(names).not.toContain('tiles/sample-vector');
    }, 60_000);

    for (const a of AREAS) {
      it(`WMS ${a.version} in ${a.crs}: GDAL's blocks make the server's one image`, async () => {
        const dir = temps.tempDir();
        const [w, h] = [640, 400];
        const xml = `<GDAL_WMS><Service name="WMS"><Version>${a.version}</Version><ServerUrl>${srv.url}/wms?key=${KEY}</ServerUrl><${a.version === '1.3.0' ? 'CRS' : 'SRS'}>${a.crs}</${a.version === '1.3.0' ? 'CRS' : 'SRS'}><ImageFormat>image/png</ImageFormat><Transparent>TRUE</Transparent><Layers>maps/sample</Layers>${a.order}</Service>
<DataWindow><UpperLeftX>${a.ul[0]}</UpperLeftX><UpperLeftY>${a.ul[1]}</UpperLeftY><LowerRightX>${a.lr[0]}</LowerRightX><LowerRightY>${a.lr[1]}</LowerRightY><SizeX>${w}</SizeX><SizeY>${h}</SizeY></DataWindow>
<BlockSizeX>320</BlockSizeX><BlockSizeY>200</BlockSizeY><BandsCount>4</BandsCount></GDAL_WMS>`;
        writeFileSync(path.join(dir, 'wms.xml'), xml);
        const out = path.join(dir, 'out.png');
        assertOk(await runGdal(gdal, 'gdal_translate', ['-q', '-of', 'PNG', gdal.pathFor(path.join(dir, 'wms.xml')), gdal.pathFor(out)], dir));
        const params = new URLSearchParams({ key: KEY, SERVICE: 'WMS', REQUEST: 'GetMap', VERSION: '1.3.0', LAYERS: 'maps/sample', STYLES: '', CRS: a.crs, BBOX: a.bbox130, WIDTH: String(w), HEIGHT: String(h), FORMAT: 'image/png', TRANSPARENT: 'TRUE' });
        const one = await rawGet(`${srv.url}/wms?${params}`);
        expect(one.status).toBe(200);
        const c = compare(await decodeRGBA(out), await decodeRGBA(one.body));
        // eslint-disable-next-line no-console
        console.log(`${gdal.label} WMS ${a.version} ${a.crs}: mean absolute difference ${c.mad.toFixed(3)} over ${(c.share * 100).toFixed(1)} % of the pixels`);
        expect(c.share).toBeGreaterThan(0.5);
        expect(c.mad).toBeLessThan(1.5);
      }, 60_000);
    }
  });
}
