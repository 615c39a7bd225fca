// WMS 1.3.0 and 1.1.1 over the sample, through the real server on loopback: the capabilities validate against the
// standards' own schema and DTD (offline copies from Debian's python3-mapproxy, read by xmllint), a GetMap in Web
// Mercator of one tile's extent is that stored tile pixel for pixel, the axis orders of the two versions name the
// same image, and every exception the standard names comes back in the form the request asked for.

import { execFile } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { XMLParser } from 'fast-xml-parser';
import { gatedTest } from '../helpers/clients';
import { decodeRGBA, comparePixels, isUniform } from '../helpers/pixels';
import { KEY, rawGet, sampleServerForFile } from '../helpers/server';
import { tempDirs } from '../helpers/temp-dirs';

const run = promisify(execFile);
const SCHEMAS = '/usr/share/python3-mapproxy/test/schemas/wms';
const xmllintTest = gatedTest('xmllint and the WMS schemas of python3-mapproxy', { bins: ['xmllint'], files: [[`${SCHEMAS}/1.3.0/capabilities_1_3_0.xsd`], [`${SCHEMAS}/1.1.1/WMS_MS_Capabilities.dtd`]], packages: ['libxml2-utils', 'python3-mapproxy'] });
const { tempDir, removeTempDirs } = tempDirs('tilemirror-wms-');
const R = 6378137;
const HALF = Math.PI * R;

const server = sampleServerForFile(undefined, removeTempDirs);

const wms = (params: Record<string, string>, pathname = '/wms') => rawGet(`${server().url}${pathname}?${new URLSearchParams({ key: KEY, ...params })}`);
const getMap = (params: Record<string, string>) => wms({ SERVICE: 'WMS', REQUEST: 'GetMap', VERSION: '1.3.0', LAYERS: 'maps/sample', STYLES: '', FORMAT: 'image/png', ...params });

/** EPSG:3857 bounds of a tile. */
function tileBounds(z: number, x: number, y: number): [number, number, number, number] {
  const size = (2 * HALF) / 2 ** z;
  return [-HALF + x * size, HALF - (y + 1) * size, -HALF + (x + 1) * size, HALF - y * size];
}

async function xmllint(args: string[], xml: Buffer): Promise<void> {
  const file = path.join(tempDir(), 'caps.xml');
  writeFileSync(file, xml);
  await run('xmllint', ['--noout', '--nonet', ...args, file]);
}

describe('GetCapabilities', () => {
  xmllintTest('1.3.0 is valid against capabilities_1_3_0.xsd and lists the raster layers with their bounds', async () => {
    const r = await wms({ SERVICE: 'WMS', REQUEST: 'GetCapabilities' });
    expect(r.status).toBe(200);
    expect(r.headers['content-type']).toMatch(/^text\/xml/);
    await xmllint(['--schema', `${SCHEMAS}/1.3.0/capabilities_1_3_0.xsd`], r.body);
    const caps = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '' }).parse(r.body.toString()) as { WMS_Capabilities: { version: string; Capability: { Layer: { CRS: string[]; Layer: { Name: string; BoundingBox: { CRS: string; minx: string }[] }[] } } } };
    const root = caps.WMS_Capabilities.Capability.Layer;
    expect(caps.WMS_Capabilities.version).toBe('1.3.0');
    expect(root.CRS).toEqual(expect.arrayContaining(['CRS:84', 'EPSG:3857', 'EPSG:4326', 'EPSG:4258', 'EPSG:3035', 'EPSG:32632', 'EPSG:32733', 'EPSG:25832']));
    const names = root.Layer.map((l) => l.Name);
    // Raster resources only: the map, the raster tile sets and the image; the vector tile set is no WMS layer.
    expect(names).toEqual(expect.arrayContaining(['maps/sample', 'images/sample-image']));
    expect(names).not.toContain('tiles/sample-vector');
    expect(names).not.toContain('maps/sample/256');
    const bbox4326 = root.Layer.find((l) => l.Name === 'maps/sample')!.BoundingBox.find((b) => b.CRS === 'EPSG:4326')!;
    // Latitude first: the sample map covers the world, so minx is the southern edge of Web Mercator.
    expect(Number(bbox4326.minx)).toBeCloseTo(-85.0511, 3);
  });

  xmllintTest('1.1.1 (asked for, or negotiated from 1.2.0) is valid against WMS_MS_Capabilities.dtd', async () => {
    for (const version of ['1.1.1', '1.2.0']) {
      const r = await wms({ SERVICE: 'WMS', REQUEST: 'GetCapabilities', VERSION: version });
      expect(r.status).toBe(200);
      expect(r.headers['content-type']).toMatch(/^application\/vnd\.ogc\.wms_xml/);
      await xmllint(['--dtdvalid', `${SCHEMAS}/1.1.1/WMS_MS_Capabilities.dtd`], r.body);
      expect(r.body.toString()).toContain('<WMT_MS_Capabilities version="1.1.1">');
    }
  });

  test('a map\'s own service lists that map only, and its operations carry the key', async () => {
    const r = await wms({ SERVICE: 'WMS', REQUEST: 'GetCapabilities' }, '/maps/sample/wms');
    const text = r.body.toString();
    expect(text.match(/<Name>([^<]+)<\/Name>/g)).toEqual(['<Name>WMS</Name>', '<Name>maps/sample</Name>', '<Name>default</Name>']);
    expect(text).toContain(`/maps/sample/wms?key=${KEY}&amp;`);
  });
});

describe('GetMap', () => {
  test('EPSG:3857 over one tile\'s extent at its size is the stored tile, pixel for pixel', async () => {
    const [z, x, y] = [2, 1, 1];
    const r = await getMap({ CRS: 'EPSG:3857', BBOX: tileBounds(z, x, y).join(','), WIDTH: '512', HEIGHT: '512' });
    expect(r.status).toBe(200);
    expect(r.headers['content-type']).toBe('image/png');
    expect(r.headers['x-tilemirror-source']).toBe(`maps/sample 512 ${z}`);
    const tile = await rawGet(`${server().url}/maps/sample/${z}/${x}/${y}.png?key=${KEY}`);
    const diff = comparePixels(await decodeRGBA(r.body), await decodeRGBA(tile.body));
    expect(diff.differing).toBe(0);
  });

  test('1.3.0 EPSG:4326 (latitude first), 1.3.0 CRS:84 and 1.1.1 EPSG:4326 (longitude first) are the same image', async () => {
    const size = { WIDTH: '300', HEIGHT: '200' };
    const a = await getMap({ CRS: 'EPSG:4326', BBOX: '35,-10,60,30', ...size });
    const b = await getMap({ CRS: 'CRS:84', BBOX: '-10,35,30,60', ...size });
    const c = await getMap({ VERSION: '1.1.1', SRS: 'EPSG:4326', BBOX: '-10,35,30,60', ...size });
    expect([a.status, b.status, c.status]).toEqual([200, 200, 200]);
    const pa = await decodeRGBA(a.body);
    expect(isUniform(pa)).toBe(false);
    expect(comparePixels(await decodeRGBA(b.body), pa).differing).toBe(0);
    expect(comparePixels(await decodeRGBA(c.body), pa).differing).toBe(0);
    // The swapped BBOX in 1.3.0 is another place: not the same image.
    const swapped = await getMap({ CRS: 'EPSG:4326', BBOX: '-10,35,30,60', ...size });
    expect(comparePixels(await decodeRGBA(swapped.body), pa).differing).toBeGreaterThan(0);
  });

  test('images drawn at once share no working memory: each of eight sent together is the image drawn alone', async () => {
    const views: Record<string, string>[] = [
      { CRS: 'EPSG:4326', BBOX: '35,-10,60,30', WIDTH: '400', HEIGHT: '250' },
      { CRS: 'EPSG:4326', BBOX: '40,0,50,20', WIDTH: '320', HEIGHT: '160' },
      { CRS: 'EPSG:3035', BBOX: '1400000,2500000,5400000,6500000', WIDTH: '300', HEIGHT: '300' },
      { CRS: 'EPSG:3857', BBOX: tileBounds(1, 1, 0).join(','), WIDTH: '256', HEIGHT: '256' },
      { CRS: 'CRS:84', BBOX: '-180,-85,180,85', WIDTH: '512', HEIGHT: '256' },
      { CRS: 'EPSG:4326', BBOX: '-60,-120,60,120', WIDTH: '333', HEIGHT: '171', TRANSPARENT: 'TRUE' },
      { CRS: 'EPSG:3035', BBOX: '2000000,3000000,4000000,5000000', WIDTH: '128', HEIGHT: '128', FORMAT: 'image/jpeg' },
      { CRS: 'EPSG:32632', BBOX: '200000,4500000,800000,5500000', WIDTH: '240', HEIGHT: '400' },
    ];
    const alone: Buffer[] = [];
    for (const v of views) alone.push((await getMap(v)).body);
    const together = await Promise.all(views.map((v) => getMap(v)));
    together.forEach((r, i) => {
      expect(r.status).toBe(200);
      expect(Buffer.compare(r.body, alone[i])).toBe(0);
    });
    // And drawn again after them (the buffers they used are lent anew): the same bytes once more.
    expect(Buffer.compare((await getMap(views[0])).body, alone[0])).toBe(0);
  });

  test('PNG: a transparent image without a transparent pixel is written without alpha, the same pixels; one with them keeps it', async () => {
    const colourType = (png: Buffer): number => png[25]; // IHDR: 2 RGB, 6 RGBA
    const inside = { CRS: 'EPSG:4326', BBOX: '35,-10,60,30', WIDTH: '300', HEIGHT: '200' };
    const t = await getMap({ ...inside, TRANSPARENT: 'TRUE' });
    const o = await getMap({ ...inside, TRANSPARENT: 'FALSE' });
    expect(colourType(t.body)).toBe(2);
    const pt = await decodeRGBA(t.body);
    expect(pt.data.every((v, i) => i % 4 !== 3 || v === 255)).toBe(true);
    expect(comparePixels(pt, await decodeRGBA(o.body)).differing).toBe(0);
    // Past Web Mercator's 85.05° there is no source: transparent pixels, so RGBA.
    const polar = await getMap({ CRS: 'CRS:84', BBOX: '-180,80,180,90', WIDTH: '360', HEIGHT: '10', TRANSPARENT: 'TRUE' });
    expect(colourType(polar.body)).toBe(6);
  });

  test('jpeg and webp; TRANSPARENT keeps the outside of the world transparent, BGCOLOR fills it otherwise', async () => {
    // EPSG:4326 up to the poles: the rows beyond Web Mercator's 85.05° have no source.
    const polar = { CRS: 'CRS:84', BBOX: '-180,80,180,90', WIDTH: '360', HEIGHT: '10' };
    const t = await decodeRGBA((await getMap({ ...polar, TRANSPARENT: 'TRUE' })).body);
    expect(t.data[3]).toBe(0); // the top-left pixel, at 89.5°N
    const o = await decodeRGBA((await getMap({ ...polar, BGCOLOR: '0x336699' })).body);
    expect([...o.data.subarray(0, 4)]).toEqual([0x33, 0x66, 0x99, 255]);
    for (const [format, type] of [['image/jpeg', 'image/jpeg'], ['image/webp', 'image/webp']]) {
      const r = await getMap({ CRS: 'EPSG:3857', BBOX: tileBounds(1, 0, 0).join(','), WIDTH: '256', HEIGHT: '256', FORMAT: format });
      expect({ status: r.status, type: r.headers['content-type'] }).toEqual({ status: 200, type });
    }
  });
});

describe('weather: a TIME dimension per variable', () => {
  const WEATHER = 'weather/temperature-2m.sample';
  const TIMES = ['2024-01-01T00:00:00Z', '2024-01-01T06:00:00Z'];
  const KEYFRAME_LAYERS = ['tiles/sample-temperature-0000', 'tiles/sample-temperature-0600'];
  const area = { CRS: 'CRS:84', BBOX: '-180,-60,180,60', WIDTH: '360', HEIGHT: '120', LAYERS: WEATHER };

  test('the capabilities give the variable\'s times, the latest the default (1.3.0 Dimension, 1.1.1 Extent)', async () => {
    const v130 = (await wms({ SERVICE: 'WMS', REQUEST: 'GetCapabilities' })).body.toString();
    expect(v130).toContain(`<Dimension name="time" units="ISO8601" default="${TIMES[1]}">${TIMES.join(',')}</Dimension>`);
    const v111 = (await wms({ SERVICE: 'WMS', REQUEST: 'GetCapabilities', VERSION: '1.1.1' })).body.toString();
    expect(v111).toContain('<Dimension name="time" units="ISO8601"');
    expect(v111).toContain(`<Extent name="time" default="${TIMES[1]}">${TIMES.join(',')}</Extent>`);
  });

  test('each TIME draws its keyframe\'s tile set; none or `current` the latest; another time is InvalidDimensionValue', async () => {
    const keyframe = await Promise.all(KEYFRAME_LAYERS.map(async (l) => decodeRGBA((await getMap({ ...area, LAYERS: l })).body)));
    expect(comparePixels(keyframe[0], keyframe[1]).differing).toBeGreaterThan(0);
    for (const [i, time] of TIMES.entries()) {
      const r = await getMap({ ...area, TIME: time });
      expect({ time, status: r.status }).toEqual({ time, status: 200 });
      expect({ time, differing: comparePixels(await decodeRGBA(r.body), keyframe[i]).differing }).toEqual({ time, differing: 0 });
    }
    for (const latest of [{}, { TIME: 'current' }, { TIME: '2024-01-01T06:00Z' }] as Record<string, string>[]) {
      expect(comparePixels(await decodeRGBA((await getMap({ ...area, ...latest })).body), keyframe[1]).differing).toBe(0);
    }
    const other = await getMap({ ...area, TIME: '2024-01-01T03:00:00Z' });
    expect({ status: other.status, code: /code="([^"]+)"/.exec(other.body.toString())?.[1] }).toEqual({ status: 400, code: 'InvalidDimensionValue' });
  });
});

describe('exceptions', () => {
  const report = async (params: Record<string, string>, pathname?: string) => {
    const r = await wms(params, pathname);
    return { status: r.status, type: String(r.headers['content-type']), code: /code="([^"]+)"/.exec(r.body.toString())?.[1], body: r.body.toString() };
  };
  const base = { SERVICE: 'WMS', REQUEST: 'GetMap', VERSION: '1.3.0', LAYERS: 'maps/sample', STYLES: '', CRS: 'EPSG:3857', BBOX: tileBounds(0, 0, 0).join(','), WIDTH: '64', HEIGHT: '64', FORMAT: 'image/png' };

  test('each standard code, as a 1.3.0 report', async () => {
    const cases: [Record<string, string>, string][] = [
      [{ CRS: 'EPSG:99999' }, 'InvalidCRS'],
      [{ CRS: 'urn:nothing' }, 'InvalidCRS'],
      [{ LAYERS: 'maps/none' }, 'LayerNotDefined'],
      [{ LAYERS: 'tiles/sample-vector' }, 'LayerNotDefined'],
      [{ STYLES: 'fancy' }, 'StyleNotDefined'],
      [{ FORMAT: 'image/gif' }, 'InvalidFormat'],
      [{ BBOX: '1,2,3' }, 'InvalidParameterValue'],
      [{ BBOX: '3,2,1,4' }, 'InvalidParameterValue'],
      [{ WIDTH: '0' }, 'InvalidParameterValue'],
      [{ WIDTH: '99999' }, 'InvalidParameterValue'],
    ];
    for (const [change, code] of cases) {
      const r = await report({ ...base, ...change });
      expect({ change, status: r.status, code: r.code, type: r.type }).toEqual({ change, status: 400, code, type: 'text/xml; charset=utf-8' });
      expect(r.body).toContain('<ServiceExceptionReport version="1.3.0" xmlns="http://www.opengis.net/ogc"');
    }
    // A version below ours is answered in the nearest form served, 1.1.1's.
    const old = await report({ ...base, VERSION: '1.0.0' });
    expect({ status: old.status, code: old.code, type: old.type }).toEqual({ status: 400, code: 'InvalidParameterValue', type: 'application/vnd.ogc.se_xml; charset=utf-8' });
    const missing = await report({ ...base, BBOX: '' });
    expect({ status: missing.status, code: missing.code }).toEqual({ status: 400, code: 'MissingParameterValue' });
  });

  test('1.1.1 names the CRS SRS and answers in its own media type', async () => {
    const r = await report({ ...base, VERSION: '1.1.1', CRS: '', SRS: 'EPSG:99999' });
    expect({ status: r.status, code: r.code, type: r.type }).toEqual({ status: 400, code: 'InvalidSRS', type: 'application/vnd.ogc.se_xml; charset=utf-8' });
  });

  test('GetFeatureInfo is OperationNotSupported (501); a REQUEST that is no operation is an invalid value (400)', async () => {
    const r = await report({ ...base, REQUEST: 'GetFeatureInfo', QUERY_LAYERS: 'maps/sample', I: '1', J: '1' });
    expect({ status: r.status, code: r.code }).toEqual({ status: 501, code: 'OperationNotSupported' });
    const other = await report({ ...base, REQUEST: '../etc/passwd' });
    expect({ status: other.status, code: other.code }).toEqual({ status: 400, code: 'InvalidParameterValue' });
    // Repeated, the first value counts.
    const twice = await wms({ SERVICE: 'WMS', REQUEST: 'GetCapabilities', request: 'nonsense' });
    expect(twice.status).toBe(200);
  });

  test('INIMAGE draws the message in an image of the size asked for; BLANK is the background alone', async () => {
    const inimage = await wms({ ...base, CRS: 'EPSG:99999', EXCEPTIONS: 'INIMAGE', WIDTH: '300', HEIGHT: '80' });
    expect({ status: inimage.status, type: inimage.headers['content-type'] }).toEqual({ status: 200, type: 'image/png' });
    const img = await decodeRGBA(inimage.body);
    expect([img.width, img.height]).toEqual([300, 80]);
    expect(isUniform(img)).toBe(false);
    const blank = await wms({ ...base, VERSION: '1.1.1', SRS: 'EPSG:99999', EXCEPTIONS: 'application/vnd.ogc.se_blank', BGCOLOR: '0x102030' });
    const b = await decodeRGBA(blank.body);
    expect(isUniform(b)).toBe(true);
    expect([...b.data.subarray(0, 4)]).toEqual([0x10, 0x20, 0x30, 255]);
  });

  test('a map\'s own service offers no other layer', async () => {
    const r = await report({ ...base, LAYERS: 'images/sample-image' }, '/maps/sample/wms');
    expect({ status: r.status, code: r.code }).toEqual({ status: 400, code: 'LayerNotDefined' });
  });
});
