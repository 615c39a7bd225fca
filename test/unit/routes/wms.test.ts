// src/http/routes/wms.ts in process: its two routes, the capabilities of the service and of one map (the layers,
// their key-carrying operation URLs), a GetMap in Web Mercator of one stored tile's extent answered as that tile's
// pixels with the level named, the exceptions as the request asked for them, and a server without the EPSG index
// (no PROJ) drawing Web Mercator only and saying why for any other CRS.

import * as wms from '../../../src/http/routes/wms';
import { decodeRGBA, comparePixels } from '../../helpers/pixels';
import { inProcess, patternsOf, plainBody, text } from '../../helpers/in-process';

const app = inProcess();
const noProj = inProcess({ without: ['coordinates'] });
afterAll(async () => {
  await app.close();
  await noProj.close();
});

const HALF = Math.PI * 6378137;
const BASE = { SERVICE: 'WMS', REQUEST: 'GetMap', VERSION: '1.3.0', LAYERS: 'maps/sample', STYLES: '', FORMAT: 'image/png', WIDTH: '512', HEIGHT: '512' };

test('the routes: service-wide and per map', () => {
  expect(patternsOf(wms)).toEqual(['/wms', '/maps/:mapId/wms']);
});

test('capabilities: the map\'s service offers the map alone; the operations carry the key', async () => {
  const r = await app.get('/maps/sample/wms', { query: { SERVICE: 'WMS', REQUEST: 'GetCapabilities' } });
  expect({ status: r.status, type: r.type }).toEqual({ status: 200, type: 'text/xml; charset=utf-8' });
  const xml = text(r);
  expect(xml.match(/<Name>([^<]+)<\/Name>/g)).toEqual(['<Name>WMS</Name>', '<Name>maps/sample</Name>', '<Name>default</Name>']);
  expect(xml).toContain('xlink:href="https://maps.example.org/maps/sample/wms?key=demo&amp;"');
  const all = text(await app.get('/wms', { query: { SERVICE: 'WMS', REQUEST: 'GetCapabilities', VERSION: '1.1.1' } }));
  expect(all).toContain('<WMT_MS_Capabilities version="1.1.1">');
  expect(all).toContain('<Name>weather/temperature-2m.sample</Name>');
});

test('a GetMap of one stored tile\'s extent in EPSG:3857 is that tile, drawn from its level', async () => {
  const r = await app.get('/wms', { query: { ...BASE, CRS: 'EPSG:3857', BBOX: `${-HALF},0,0,${HALF}` } });
  expect({ status: r.status, type: r.type, source: r.headers?.['X-Tilemirror-Source'] }).toEqual({ status: 200, type: 'image/png', source: 'maps/sample 512 1' });
  const tile = await app.get('/maps/sample/1/0/0.png');
  expect(comparePixels(await decodeRGBA(plainBody(r)!), await decodeRGBA(plainBody(tile)!)).differing).toBe(0);
});

test('exceptions: a report in the request\'s version, or an image of the size asked for', async () => {
  const layer = await app.get('/wms', { query: { ...BASE, CRS: 'EPSG:3857', BBOX: '0,0,1,1', LAYERS: 'maps/nowhere' } });
  expect({ status: layer.status, type: layer.type }).toEqual({ status: 400, type: 'text/xml; charset=utf-8' });
  expect(text(layer)).toContain('code="LayerNotDefined"');
  const srs = await app.get('/wms', { query: { ...BASE, VERSION: '1.1.1', SRS: 'EPSG:1', BBOX: '0,0,1,1' } });
  expect({ status: srs.status, type: srs.type }).toEqual({ status: 400, type: 'application/vnd.ogc.se_xml; charset=utf-8' });
  expect(text(srs)).toContain('code="InvalidSRS"');
  const blank = await app.get('/wms', { query: { ...BASE, CRS: 'EPSG:3857', BBOX: '0,0,1,1', LAYERS: 'maps/nowhere', EXCEPTIONS: 'BLANK', WIDTH: '20', HEIGHT: '10' } });
  expect({ status: blank.status, type: blank.type }).toEqual({ status: 200, type: 'image/png' });
  const img = await decodeRGBA(plainBody(blank)!);
  expect([img.width, img.height]).toEqual([20, 10]);
  const feature = await app.get('/wms', { query: { ...BASE, REQUEST: 'GetFeatureInfo' } });
  expect(feature.status).toBe(501);
  expect(app.failures).toEqual([]);
});

test('without the EPSG index: Web Mercator is drawn, any other CRS is unavailable (503) saying why', async () => {
  const mercator = await noProj.get('/wms', { query: { ...BASE, CRS: 'EPSG:3857', BBOX: `${-HALF},0,0,${HALF}` } });
  expect(mercator.status).toBe(200);
  const other = await noProj.get('/wms', { query: { ...BASE, CRS: 'EPSG:4326', BBOX: '0,0,10,10' } });
  expect(other.status).toBe(503);
  expect(text(other)).toContain('coordinates index is not built');
  expect(noProj.failures).toEqual([]);
});
