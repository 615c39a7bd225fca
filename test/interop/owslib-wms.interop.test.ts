// OWSLib (Debian python3-owslib) as a WMS client, versions 1.1.1 and 1.3.0: it reads the capabilities (the layers,
// their CRS and bounds, the formats), and its GetMap requests (which write the 1.3.0 BBOX in the CRS's axis order
// by OWSLib's own table) come back as the same images as the server's 1.1.1 GetMap of those bounds, easting or
// longitude first: OWSLib and the server agree on which CRS are latitude or northing first.
import path from 'node:path';
import { gatedTest, SYSTEM_PYTHON } from '../helpers/clients';
import { comparePixels, decodeRGBA, isUniform } from '../helpers/pixels';
import { assertOk, clientEnv, run } from '../helpers/run';
import { KEY, rawGet, sampleServerForFile } from '../helpers/server';
import { tempDirs } from '../helpers/temp-dirs';

const SCRIPT = path.join(__dirname, 'owslib_wms.py');
const clientTest = gatedTest('OWSLib', { pythonModules: ['owslib.wms'], packages: ['python3-owslib'] });
const { tempDir, removeTempDirs } = tempDirs('tilemirror-owslib-wms-');

interface Report {
  services: Record<string, { type?: string; version?: string; operations?: string[]; formats?: string[]; layers?: Record<string, { crs: string[]; bbox: number[] | null; styles: string[] }>; error?: string; traceback?: string }>;
  images: Record<string, { file?: string; url?: string; error?: string; traceback?: string }>;
}

const server = sampleServerForFile(undefined, removeTempDirs);

const REQUESTS = [
  { name: 'wgs84-130', version: '1.3.0', srs: 'EPSG:4326', bbox: [-10, 35, 30, 60] },
  { name: 'wgs84-111', version: '1.1.1', srs: 'EPSG:4326', bbox: [-10, 35, 30, 60] },
  { name: 'laea-130', version: '1.3.0', srs: 'EPSG:3035', bbox: [2500000, 1400000, 6500000, 5400000] },
  { name: 'utm-130', version: '1.3.0', srs: 'EPSG:32632', bbox: [200000, 5000000, 800000, 5600000] },
].map((r) => ({ ...r, layer: 'maps/sample', size: [320, 240], format: 'image/png' }));

clientTest('OWSLib reads both versions and its GetMaps are the server\'s images of the same bounds', async () => {
  const tmp = tempDir();
  const r = assertOk(await run(SYSTEM_PYTHON, [SCRIPT, `${server().url}/wms?key=${KEY}`, tmp, JSON.stringify(REQUESTS)], { env: clientEnv(), timeoutMs: 120_000 }));
  const report = JSON.parse(r.stdout) as Report;
  for (const version of ['1.1.1', '1.3.0']) {
    const s = report.services[version];
    expect({ version, error: s.error, traceback: s.traceback }).toEqual({ version, error: undefined, traceback: undefined });
    // The service Name each version's schema fixes.
    expect({ type: s.type, version: s.version }).toEqual({ type: version === '1.1.1' ? 'OGC:WMS' : 'WMS', version });
    expect(s.operations).toEqual(expect.arrayContaining(['GetCapabilities', 'GetMap']));
    expect(s.formats).toEqual(['image/png', 'image/jpeg', 'image/webp']);
    const map = s.layers!['maps/sample'];
    expect(map.crs).toEqual(expect.arrayContaining(['EPSG:3857', 'EPSG:4326', 'EPSG:3035', 'EPSG:32632']));
    expect(map.bbox!.slice(0, 4).map((v) => Math.round(v * 1000) / 1000)).toEqual([-180, -85.051, 180, 85.051]);
    expect(map.styles).toEqual(['default']);
    expect(s.layers).not.toHaveProperty('tiles/sample-vector');
  }
  for (const q of REQUESTS) {
    const got = report.images[q.name];
    expect({ name: q.name, error: got.error, traceback: got.traceback }).toEqual({ name: q.name, error: undefined, traceback: undefined });
    const params = new URLSearchParams({ key: KEY, SERVICE: 'WMS', REQUEST: 'GetMap', VERSION: '1.1.1', LAYERS: 'maps/sample', STYLES: '', SRS: q.srs, BBOX: q.bbox.join(','), WIDTH: '320', HEIGHT: '240', FORMAT: 'image/png' });
    const direct = await rawGet(`${server().url}/wms?${params}`);
    expect(direct.status).toBe(200);
    const expected = await decodeRGBA(direct.body);
    expect(isUniform(expected)).toBe(false);
    expect({ name: q.name, differing: comparePixels(await decodeRGBA(got.file!), expected).differing }).toEqual({ name: q.name, differing: 0 });
  }
}, 180_000);
