// What ArcGIS (ArcGIS Pro, ArcGIS Online's Map Viewer, ArcMap, the ArcGIS Maps SDKs) needs from a WMS, checked
// against the server's WMS 1.3.0 and 1.1.1 on the bundled sample. ArcGIS is not installed here: each test names the
// requirement, quotes Esri's own page (URL beside it), and checks the capabilities and the GetMap requests as ArcGIS
// reads and sends them. Where Esri's pages do not say how the client reads a document or builds a request, the
// ArcGIS Maps SDK for JavaScript does (the library of ArcGIS Online's Map Viewer; 4.18 as published in
// github.com/Esri/arcgis-js-api: layers/support/wmsUtils.js reads the capabilities, ExportWMSImageParameters.js
// builds the GetMap), and the test says so.
//
// The GetMap the Map Viewer sends (JS API 4.x, ExportWMSImageParameters.js and WMSLayer.js fetchImage): the GetMap
// OnlineResource with its SERVICE/REQUEST removed and, lower case, width, height, bbox, format (image/png when offered),
// request=GetMap, service=WMS, styles= (empty), transparent=true, version (the document's), crs=EPSG:n (1.3.0, srs in
// 1.1.1; for a Web Mercator map the first of 102100, 3857, 102113, 900913 the layer lists), layers, [time], and the
// custom parameters. The older JS API 3.x sends the upper-case form
//   SERVICE=WMS&REQUEST=GetMap&FORMAT=image/png&TRANSPARENT=TRUE&STYLES=&VERSION=1.3.0&LAYERS=...&WIDTH=..&HEIGHT=..&CRS=EPSG:102100&BBOX=...
// (quoted from https://gis.stackexchange.com/questions/86301 and https://github.com/cmv/cmv-app/issues/494).

import { XMLParser } from 'fast-xml-parser';
import { comparePixels, decodeRGBA, isUniform, type RGBA } from '../helpers/pixels';
import { KEY, rawGet, sampleServerForFile, serverConfig } from '../helpers/server';

// trustProxy (loopback is the default trusted proxy): the HTTPS test below is the server behind a TLS proxy.
const server = sampleServerForFile(serverConfig({ trustProxy: true }));
const R = 6378137;
const HALF = Math.PI * R;
/** EPSG:3857 bounds of a Web Mercator tile. */
const tileBounds = (z: number, x: number, y: number): number[] => {
  const size = (2 * HALF) / 2 ** z;
  return [-HALF + x * size, HALF - (y + 1) * size, -HALF + (x + 1) * size, HALF - y * size];
};
const WORLD_3857 = [-HALF, -HALF, HALF, HALF].join(',');

type Params = Record<string, string>;
const get = (pathAndQuery: string, headers: Record<string, string> = {}) => rawGet(`${server().url}${pathAndQuery}`, headers);
const wms = (params: Params, headers: Record<string, string> = {}) => get(`/wms?${new URLSearchParams({ key: KEY, ...params })}`, headers);
const caps130 = () => wms({ SERVICE: 'WMS', REQUEST: 'GetCapabilities' });
const caps111 = () => wms({ SERVICE: 'WMS', REQUEST: 'GetCapabilities', VERSION: '1.1.1' });

/** The GetMap of ArcGIS Online's Map Viewer (JS API 4.x), on the GetMap OnlineResource as the JS API cleans it. */
function mapViewerGetMap(mapUrl: string, p: { layers: string; crs: string; bbox: string; width: number; height: number; version?: string; extra?: Params }): Promise<{ status: number; headers: Record<string, unknown>; body: Buffer }> {
  const version = p.version ?? '1.3.0';
  const q = new URLSearchParams({
    width: String(p.width),
    height: String(p.height),
    bbox: p.bbox,
    format: 'image/png',
    request: 'GetMap',
    service: 'WMS',
    styles: '',
    transparent: 'true',
    version,
    [version === '1.3.0' ? 'crs' : 'srs']: p.crs,
    layers: p.layers,
    ...p.extra,
  });
  return rawGet(`${mapUrl}${mapUrl.includes('?') ? '&' : '?'}${q}`);
}

/** The JS API's mapUrl: the GetMap OnlineResource without a trailing '&' and without its SERVICE and REQUEST (wmsUtils.js). */
function arcgisMapUrl(href: string): string {
  const u = new URL(href.endsWith('&') ? href.slice(0, -1) : href);
  for (const k of [...u.searchParams.keys()]) if (['service', 'request'].includes(k.toLowerCase())) u.searchParams.delete(k);
  return u.href.replace(/\?$/, '');
}

// ---------------------------------------------------------------------------------------------------------------
// The capabilities, parsed with every attribute and every repeatable element as a list
// ---------------------------------------------------------------------------------------------------------------

interface XLayer {
  '@queryable'?: string;
  Name?: string;
  Title?: string;
  CRS?: string[];
  SRS?: string[];
  EX_GeographicBoundingBox?: { westBoundLongitude: string; eastBoundLongitude: string; southBoundLatitude: string; northBoundLatitude: string };
  LatLonBoundingBox?: { '@minx': string; '@miny': string; '@maxx': string; '@maxy': string };
  BoundingBox?: { '@CRS'?: string; '@SRS'?: string; '@minx': string; '@miny': string; '@maxx': string; '@maxy': string }[];
  Style?: { Name: string; Title?: string; LegendURL?: { OnlineResource: { '@xlink:href': string } }[] }[];
  Dimension?: { '@name': string; '@units': string; '@default'?: string; '#text'?: string }[];
  Layer?: XLayer[];
}
interface XRequestOp {
  Format: string[];
  DCPType: { HTTP: { Get: { OnlineResource: { '@xlink:href': string } } } }[];
}
interface XCaps {
  '@version': string;
  Service: { Name: string; Title: string; OnlineResource: { '@xlink:href': string }; MaxWidth?: string; MaxHeight?: string };
  Capability: { Request: Record<string, XRequestOp>; Exception: { Format: string[] }; Layer: XLayer[] };
}

const LISTS = new Set(['Layer', 'CRS', 'SRS', 'BoundingBox', 'Style', 'LegendURL', 'Format', 'DCPType', 'Dimension', 'Keyword']);
function parseCaps(body: Buffer): { root: string; caps: XCaps } {
  const doc = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '@', parseTagValue: false, parseAttributeValue: false, isArray: (name) => LISTS.has(name) }).parse(body.toString()) as Record<string, XCaps>;
  const root = Object.keys(doc).find((k) => k === 'WMS_Capabilities' || k === 'WMT_MS_Capabilities');
  if (!root) throw new Error(`not a WMS capabilities document: ${Object.keys(doc).join(', ')}`);
  return { root, caps: doc[root] };
}
/** Every named layer, depth first, with the CRS (or SRS) it has or inherits. */
function namedLayers(caps: XCaps): { layer: XLayer; crs: string[] }[] {
  const out: { layer: XLayer; crs: string[] }[] = [];
  const walk = (l: XLayer, inherited: string[]) => {
    const crs = [...inherited, ...(l.CRS ?? []), ...(l.SRS ?? [])];
    if (l.Name) out.push({ layer: l, crs });
    for (const c of l.Layer ?? []) walk(c, crs);
  };
  for (const l of caps.Capability.Layer) walk(l, []);
  return out;
}
/** Every xlink:href in a document. */
const hrefs = (xml: string): string[] => [...xml.matchAll(/xlink:href="([^"]*)"/g)].map((m) => m[1].replace(/&amp;/g, '&'));

/** The layer's geographic extent [west, south, east, north] from EX_GeographicBoundingBox or LatLonBoundingBox. */
function geographic(l: XLayer): number[] | undefined {
  if (l.EX_GeographicBoundingBox) {
    const b = l.EX_GeographicBoundingBox;
    return [b.westBoundLongitude, b.southBoundLatitude, b.eastBoundLongitude, b.northBoundLatitude].map(Number);
  }
  if (l.LatLonBoundingBox) {
    const b = l.LatLonBoundingBox;
    return [b['@minx'], b['@miny'], b['@maxx'], b['@maxy']].map(Number);
  }
  return undefined;
}

const png = (b: Buffer) => b.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));
const alphaOf = (img: RGBA, x: number, y: number) => img.data[(y * img.width + x) * 4 + 3];
const exceptionCode = (body: Buffer) => /code="([^"]+)"/.exec(body.toString())?.[1];

describe('ArcGIS\'s requirements of a WMS', () => {
  // https://developers.arcgis.com/kotlin/api-reference/arcgis-maps-kotlin/com.arcgismaps.mapping.layers/-wms-service/index.html
  //   "WMS versions 1.3.0, 1.1.1, and 1.1.0 are supported. The latest supported WMS version is set as the default."
  // https://developers.arcgis.com/net/api-reference/api/uwp/Esri.ArcGISRuntime/Esri.ArcGISRuntime.Ogc.WmsVersion.html
  //   "Version 1.0.0 is not currently supported."
  test('versions 1.3.0, 1.1.1 and 1.1.0: 1.3.0 by default, 1.1.1 when asked for, 1.1.0 negotiated to 1.1.1', async () => {
    const cases: [Params, string, string][] = [
      [{}, 'WMS_Capabilities', '1.3.0'],
      [{ VERSION: '1.3.0' }, 'WMS_Capabilities', '1.3.0'],
      [{ VERSION: '1.1.1' }, 'WMT_MS_Capabilities', '1.1.1'],
      // 06-042 §6.2.4 and 01-068r3 §6.2.4: a version below the lowest served is answered with the lowest; ArcGIS then
      // speaks the version of the document it got (wmsUtils.js reads the root's version attribute).
      [{ VERSION: '1.1.0' }, 'WMT_MS_Capabilities', '1.1.1'],
    ];
    for (const [extra, rootName, version] of cases) {
      const r = await wms({ SERVICE: 'WMS', REQUEST: 'GetCapabilities', ...extra });
      expect({ extra, status: r.status }).toEqual({ extra, status: 200 });
      const { root, caps } = parseCaps(r.body);
      expect({ extra, root, version: caps['@version'] }).toEqual({ extra, root: rootName, version });
      // What ArcGIS's reader needs before anything else (wmsUtils.js parseCapabilities returns nothing without them):
      // Service, Capability, Capability/Request, Capability/Layer.
      expect(caps.Service).toBeDefined();
      expect(caps.Capability.Request.GetMap).toBeDefined();
      expect(caps.Capability.Layer.length).toBe(1);
    }
  });

  // https://pro.arcgis.com/en/pro-app/latest/sdk/api-reference/topic6338.html (CIMWMSServiceConnection): the
  // connection is the "URL of the WMS service"; the JS API asks that URL with SERVICE=WMS&REQUEST=GetCapabilities and
  // the URL's own query (WMSLayer.js _fetchService), renaming a lower-case service/request it finds there.
  // https://developers.arcgis.com/kotlin/api-reference/arcgis-maps-kotlin/com.arcgismaps.mapping.layers/-wms-service/index.html
  //   custom parameters "are appended to GetCapabilities, GetMap, and GetFeatureInfo WMS requests ... such as API keys".
  test('GetCapabilities is reachable from the URL a user pastes, the key as part of it or as a custom parameter', async () => {
    const forms = [
      `/wms?key=${KEY}&SERVICE=WMS&REQUEST=GetCapabilities`,
      `/wms?SERVICE=WMS&REQUEST=GetCapabilities&key=${KEY}`,
      `/wms?service=wms&request=getcapabilities&key=${KEY}`,
      `/wms?key=${KEY}&SERVICE=WMS&REQUEST=GetCapabilities&VERSION=1.3.0`,
      `/maps/sample/wms?key=${KEY}&SERVICE=WMS&REQUEST=GetCapabilities`,
    ];
    for (const f of forms) {
      const r = await get(f);
      expect({ f, status: r.status, type: r.headers['content-type'] }).toEqual({ f, status: 200, type: 'text/xml; charset=utf-8' });
      expect(parseCaps(r.body).caps['@version']).toBe('1.3.0');
    }
  });

  // https://enterprise.arcgis.com/en/server/10.9.1/publish-services/windows/available-wms-service-properties.htm
  //   "The OnlineResource property lists the URL of the WMS service. It is necessary for a WMS client to communicate
  //   correctly with your WMS service."
  // The JS API takes the GetMap OnlineResource, drops a trailing "&" and its SERVICE and REQUEST, keeps the rest of
  // its query (the key) and adds the GetMap's parameters to it (wmsUtils.js, WMSLayer.js fetchImage).
  test('the online resource URLs are absolute, carry the key and answer GetMaps built on them as ArcGIS builds them', async () => {
    for (const r of [await caps130(), await caps111()]) {
      const text = r.body.toString();
      const { caps } = parseCaps(r.body);
      const links = hrefs(text);
      expect(links.length).toBeGreaterThan(0);
      for (const h of links) expect(h).toMatch(new RegExp(`^${server().url.replace(/[.]/g, '\\.')}/`));
      for (const op of ['GetCapabilities', 'GetMap']) {
        const href = caps.Capability.Request[op].DCPType[0].HTTP.Get.OnlineResource['@xlink:href'];
        expect(new URL(href).searchParams.get('key')).toBe(KEY);
      }
      const mapUrl = arcgisMapUrl(caps.Capability.Request.GetMap.DCPType[0].HTTP.Get.OnlineResource['@xlink:href']);
      expect(mapUrl).toBe(`${server().url}/wms?key=${KEY}`);
      const version = caps['@version'];
      const g = await mapViewerGetMap(mapUrl, { layers: 'maps/sample', crs: 'EPSG:3857', bbox: WORLD_3857, width: 64, height: 64, version });
      expect({ version, status: g.status, type: g.headers['content-type'] }).toEqual({ version, status: 200, type: 'image/png' });
    }
  });

  // https://www.esri.ca/en-ca/landing-pages/https-only: "Starting December 2020, Esri will update ArcGIS Online to
  // enforce the use of HTTPS Only ..." and the references to switch include "Third-party OGC services such as WMS,
  // WFS and WMTS". So the server is put behind a TLS proxy; its capabilities must then link HTTPS only.
  test('behind an HTTPS proxy (ArcGIS Online is HTTPS only) every online resource is https on the public host', async () => {
    const forwarded = { 'X-Forwarded-Proto': 'https', 'X-Forwarded-Host': 'maps.example.org' };
    for (const version of ['1.3.0', '1.1.1']) {
      const r = await wms({ SERVICE: 'WMS', REQUEST: 'GetCapabilities', VERSION: version }, forwarded);
      expect(r.status).toBe(200);
      const links = hrefs(r.body.toString());
      expect(links.length).toBeGreaterThan(0);
      expect({ version, notHttps: links.filter((h) => !h.startsWith('https://maps.example.org/')) }).toEqual({ version, notHttps: [] });
    }
  });

  // ArcGIS Online's Map Viewer is a web page: the JS API reads the capabilities with esri/request (WMSLayer.js
  // _fetchService, responseType "xml") and draws the images on a canvas, across origins.
  // https://www.esri.com/arcgis-blog/products/arcgis-enterprise/defense/accessing-secure-ogc-services-with-arcgis-online/
  //   (adding WMS and WMTS services in the Map Viewer) "Since this approach relies on CORS, it is important that you use
  //   browsers that support CORS."
  test('CORS: the capabilities and the images may be read by the Map Viewer\'s origin', async () => {
    const origin = { Origin: 'https://www.arcgis.com' };
    const c = await wms({ SERVICE: 'WMS', REQUEST: 'GetCapabilities' }, origin);
    const m = await wms({ SERVICE: 'WMS', REQUEST: 'GetMap', VERSION: '1.3.0', LAYERS: 'maps/sample', STYLES: '', CRS: 'EPSG:3857', BBOX: WORLD_3857, WIDTH: '64', HEIGHT: '64', FORMAT: 'image/png' }, origin);
    for (const r of [c, m]) expect([r.status, r.headers['access-control-allow-origin']]).toEqual([200, expect.stringMatching(/^(\*|https:\/\/www\.arcgis\.com)$/)]);
  });

  // https://resourcesbeta.arcgis.com/en/help/main/10.1/01w1/01w100000011000000.htm (About OGC WMS, ArcGIS Online):
  //   "If your layer uses a projection other than Web Mercator, the projection of the default World Topographic
  //   basemap, the ArcGIS.com map viewer uses a GCS WGS84 World Imagery basemap".
  // The Map Viewer (JS API 4.x, ExportWMSImageParameters.js) asks a Web Mercator map in the first of 102100, 3857,
  // 102113, 900913 that the layer lists (the service's list when the layer has none: wmsUtils.js), as CRS=EPSG:n.
  test('Web Mercator and WGS 84 are listed for every layer (inherited from the root), so ArcGIS draws it over its basemaps', async () => {
    for (const r of [await caps130(), await caps111()]) {
      const { caps } = parseCaps(r.body);
      const layers = namedLayers(caps);
      expect(layers.length).toBeGreaterThan(0);
      for (const { layer, crs } of layers) {
        expect({ layer: layer.Name, crs }).toEqual({ layer: layer.Name, crs: expect.arrayContaining(['EPSG:3857', 'EPSG:4326', 'CRS:84']) });
        const codes = crs.map((c) => Number(c.split(':')[1]));
        expect([102100, 3857, 102113, 900913].find((w) => codes.includes(w))).toBe(3857);
      }
    }
  });

  // https://github.com/Esri/arcgis-maps-sdk-java-samples/pull/554 (Esri's own sample, fixed): "The service doesn't
  // support the spatial reference of the map. They layer should have failed to load" — the map's CRS must be one the
  // service lists. Esri's answer for its own WMS server, https://support.esri.com/en/technical-article/000008313:
  //   "make sure that the SRS value you request is listed in that WMS Service's capabilities file."
  test('a map CRS the service does not list is refused as InvalidCRS / InvalidSRS, in the request\'s version', async () => {
    const base = { SERVICE: 'WMS', REQUEST: 'GetMap', LAYERS: 'maps/sample', STYLES: '', BBOX: '0,0,1,1', WIDTH: '16', HEIGHT: '16', FORMAT: 'image/png' };
    const v13 = await wms({ ...base, VERSION: '1.3.0', CRS: 'EPSG:99999' });
    expect({ status: v13.status, code: exceptionCode(v13.body) }).toEqual({ status: 400, code: 'InvalidCRS' });
    const v11 = await wms({ ...base, VERSION: '1.1.1', SRS: 'EPSG:99999' });
    expect({ status: v11.status, code: exceptionCode(v11.body) }).toEqual({ status: 400, code: 'InvalidSRS' });
  });

  // The 1.3.0 BBOX in the CRS's axis order, as ArcGIS sends it: the JS API reverses the BBOX (and reads a BoundingBox
  // reversed) for the EPSG codes it knows to be northing or latitude first (wmsUtils.js coordsReversed: 4001-4999,
  // 3034-3035, ...), and not for Web Mercator, WGS 84 / UTM or ETRS89 / UTM. An account from Esri's OGC team
  // (https://viswaug.wordpress.com/2009/03/15/reversed-co-ordinate-axis-order-for-epsg4326-vs-crs84-when-requesting-wms-130-images/):
  //   "when using WMS 1.3.0, the co-ordinate axis order in reversed for CRS:84 and EPSG:4326".
  test('1.3.0 axis order as ArcGIS sends it: latitude / northing first for EPSG:4326, 4258, 3035; easting first for 3857 and UTM', async () => {
    // [CRS, area as x/y (east, north) min/max, ArcGIS reverses it]
    const cases: [string, number[], boolean][] = [
      ['EPSG:4326', [-10, 35, 30, 60], true],
      ['EPSG:4258', [-10, 35, 30, 60], true],
      ['EPSG:3035', [3500000, 2500000, 5000000, 4000000], true],
      ['EPSG:3857', tileBounds(3, 4, 2), false],
      ['EPSG:32632', [300000, 5000000, 700000, 5500000], false],
      ['EPSG:25832', [300000, 5000000, 700000, 5500000], false],
    ];
    const { caps } = parseCaps((await caps130()).body);
    const listed = namedLayers(caps).find((l) => l.layer.Name === 'maps/sample')!.crs;
    const mapUrl = `${server().url}/wms?key=${KEY}`;
    for (const [crs, [x0, y0, x1, y1], reversed] of cases) {
      expect(listed).toContain(crs);
      const arcgisBbox = (reversed ? [y0, x0, y1, x1] : [x0, y0, x1, y1]).join(',');
      const a = await mapViewerGetMap(mapUrl, { layers: 'maps/sample', crs, bbox: arcgisBbox, width: 64, height: 48 });
      // The reference: the same area in 1.1.1, whose SRS BBOX is always x (east) first.
      const b = await mapViewerGetMap(mapUrl, { layers: 'maps/sample', crs, bbox: [x0, y0, x1, y1].join(','), width: 64, height: 48, version: '1.1.1' });
      expect({ crs, status: [a.status, b.status] }).toEqual({ crs, status: [200, 200] });
      const [ia, ib] = [await decodeRGBA(a.body), await decodeRGBA(b.body)];
      expect({ crs, uniform: isUniform(ib) }).toEqual({ crs, uniform: false });
      expect({ crs, differing: comparePixels(ia, ib).differing }).toEqual({ crs, differing: 0 });
    }
  }, 60_000);

  // https://www.esri.com/arcgis-blog/products/arcgis-online/mapping/improved-ogc-client-capabilities-using-custom-parameters-september-2016/
  //   "It is also now possible to append custom parameters to the requests sent to OGC services." ... "Custom
  //   parameters can also be used in scenarios where the server expects some form of token to be appended to a URL."
  // The JS API also adds _ts (a refresh's timestamp) to the GetMap (WMSLayer.js fetchImage).
  test('custom (vendor) parameters ArcGIS appends are ignored: a token, _ts, anything else', async () => {
    const mapUrl = `${server().url}/wms?key=${KEY}`;
    const p = { layers: 'maps/sample', crs: 'EPSG:3857', bbox: tileBounds(2, 1, 1).join(','), width: 128, height: 128 };
    const plain = await mapViewerGetMap(mapUrl, p);
    const custom = await mapViewerGetMap(mapUrl, { ...p, extra: { token: 'abc123', _ts: '1700000000000', foo: 'bar', DPI: '96' } });
    expect([plain.status, custom.status]).toEqual([200, 200]);
    expect(comparePixels(await decodeRGBA(custom.body), await decodeRGBA(plain.body)).differing).toBe(0);
    const c = await wms({ SERVICE: 'WMS', REQUEST: 'GetCapabilities', token: 'abc123', foo: 'bar' });
    expect(c.status).toBe(200);
  });

  // https://gis.stackexchange.com/questions/86301 / https://github.com/cmv/cmv-app/issues/494 (the JS API 3.x request)
  // and Esri/arcgis-js-api 4.18 layers/support/ExportWMSImageParameters.js (the 4.x request, ArcGIS Online's Map Viewer).
  test('the GetMap ArcGIS sends, 4.x lower case and 3.x upper case, in EPSG:3857 over a tile is the stored tile pixel for pixel', async () => {
    const [z, x, y] = [2, 1, 1];
    const bbox = tileBounds(z, x, y).join(',');
    const tile = await decodeRGBA((await get(`/maps/sample/${z}/${x}/${y}.png?key=${KEY}`)).body);
    expect(isUniform(tile)).toBe(false);
    const v4 = await mapViewerGetMap(`${server().url}/wms?key=${KEY}`, { layers: 'maps/sample', crs: 'EPSG:3857', bbox, width: 512, height: 512 });
    // The 3.x shape, with the CRS this server lists (3.x's own EPSG:102100 is the test after the next ones).
    const v3 = await get(`/wms?key=${KEY}&SERVICE=WMS&REQUEST=GetMap&FORMAT=image/png&TRANSPARENT=TRUE&STYLES=&VERSION=1.3.0&LAYERS=maps/sample&WIDTH=512&HEIGHT=512&CRS=EPSG:3857&BBOX=${bbox}`);
    for (const r of [v4, v3]) {
      expect({ status: r.status, type: r.headers['content-type'] }).toEqual({ status: 200, type: 'image/png' });
      expect(comparePixels(await decodeRGBA(r.body), tile).differing).toBe(0);
    }
  });

  // The ArcGIS API for JavaScript 3.x (Web AppBuilder, the classic Map Viewer and the apps built on it) sends
  // CRS=EPSG:102100 (Esri's id of Web Mercator) for a Web Mercator map whatever the layer lists:
  // https://gis.stackexchange.com/questions/86301 ("CRS=EPSG:102100 ... Which results in this response from the
  // server: <ServiceExceptionReport"), https://github.com/cmv/cmv-app/issues/494 ("no matter what I try, it is
  // resolved with EPSG:102100"), https://github.com/fgpv-vpgf/fgpv-vpgf/issues/3986 (2021, "replace[d] by the ESRI
  // version 102100").
  test('ArcGIS API for JavaScript 3.x: Web Mercator asked for as EPSG:102100 is drawn as EPSG:3857', async () => {
    const bbox = tileBounds(2, 1, 1).join(',');
    const r = await get(`/wms?key=${KEY}&SERVICE=WMS&REQUEST=GetMap&FORMAT=image/png&TRANSPARENT=TRUE&STYLES=&VERSION=1.3.0&LAYERS=maps/sample&WIDTH=256&HEIGHT=256&CRS=EPSG:102100&BBOX=${bbox}`);
    expect({ status: r.status, code: exceptionCode(r.body) }).toEqual({ status: 200, code: undefined });
    const ref = await get(`/wms?key=${KEY}&SERVICE=WMS&REQUEST=GetMap&FORMAT=image/png&TRANSPARENT=TRUE&STYLES=&VERSION=1.3.0&LAYERS=maps/sample&WIDTH=256&HEIGHT=256&CRS=EPSG:3857&BBOX=${bbox}`);
    expect(comparePixels(await decodeRGBA(r.body), await decodeRGBA(ref.body)).differing).toBe(0);
  });

  // The JS API asks for image/png when the GetMap formats list it, else the first one (WMSLayer.js readImageFormat);
  // the web map specification's WMS layer "format" is one of bmp, gif, jpg, png, svg, "Default is `png`"
  // (https://developers.arcgis.com/web-map-specification/objects/wmsLayer).
  test('formats: image/png (and image/jpeg) offered for GetMap in both versions and answered in that format', async () => {
    for (const r of [await caps130(), await caps111()]) {
      const formats = parseCaps(r.body).caps.Capability.Request.GetMap.Format;
      expect(formats).toEqual(expect.arrayContaining(['image/png', 'image/jpeg']));
    }
    const base = { SERVICE: 'WMS', REQUEST: 'GetMap', VERSION: '1.3.0', LAYERS: 'maps/sample', STYLES: '', CRS: 'EPSG:3857', BBOX: WORLD_3857, WIDTH: '64', HEIGHT: '64' };
    const p = await wms({ ...base, FORMAT: 'image/png' });
    expect([p.status, p.headers['content-type'], png(p.body)]).toEqual([200, 'image/png', true]);
    const j = await wms({ ...base, FORMAT: 'image/jpeg' });
    expect([j.status, j.headers['content-type'], j.body.subarray(0, 2).toString('hex')]).toEqual([200, 'image/jpeg', 'ffd8']);
  });

  // https://support.esri.com/en-us/knowledge-base/problem-display-of-a-wms-service-containing-a-png24-for-000019016
  //   "As per the Open Geospatial Consortium (OGC) WMS specification, a GetMap request made without the TRANSPARENT
  //   parameter in the URL displays a PNG24 file format with the TRANSPARENT parameter set to FALSE by default." ...
  //   "The GetMap request must include the TRANSPARENT=TRUE parameter".
  // ArcGIS sends TRANSPARENT=TRUE (JS API 3.x) or transparent=true (4.x: the layer's imageTransparency, a boolean).
  test('TRANSPARENT=TRUE and transparent=true leave the area without data transparent; without TRANSPARENT it is opaque', async () => {
    // CRS:84 up to the pole: the rows beyond Web Mercator's 85.05° have no data.
    const polar = { SERVICE: 'WMS', REQUEST: 'GetMap', VERSION: '1.3.0', LAYERS: 'maps/sample', STYLES: '', CRS: 'CRS:84', BBOX: '-180,80,180,90', WIDTH: '72', HEIGHT: '10', FORMAT: 'image/png' };
    for (const t of [{ TRANSPARENT: 'TRUE' }, { transparent: 'true' }] as Params[]) {
      const img = await decodeRGBA((await wms({ ...polar, ...t })).body);
      expect({ t, top: alphaOf(img, 0, 0), bottom: alphaOf(img, 0, 9) }).toEqual({ t, top: 0, bottom: 255 });
    }
    for (const t of [{}, { TRANSPARENT: 'FALSE' }, { transparent: 'false' }] as Params[]) {
      const img = await decodeRGBA((await wms({ ...polar, ...t })).body);
      expect({ t, top: alphaOf(img, 0, 0) }).toEqual({ t, top: 255 });
    }
  });

  // http://help.arcgis.com/en/arcgisdesktop/10.0/help/00sp/00sp0000001n000000.htm (Using WMS service layers):
  //   "A WMS service layer is made up of three entries ... At the top is the name of WMS service, which holds all the
  //   WMS map layers. The next level is WMS group layers ... it is the third group, WMS sublayers, that actually
  //   contains the map layers." The JS API takes a layer's Name to request it and its Title to show it; a layer
  //   without a Name is a group (wmsUtils.js, ExportWMSImageParameters.js `layers`).
  test('layer names and titles: a titled root group, and every layer ArcGIS can draw has a unique Name and a Title', async () => {
    for (const r of [await caps130(), await caps111()]) {
      const { caps } = parseCaps(r.body);
      expect(caps.Service.Title).toBeTruthy();
      expect(caps.Capability.Layer[0].Title).toBeTruthy();
      const layers = namedLayers(caps).map((l) => l.layer);
      expect(layers.filter((l) => !l.Title || !l.Name!.trim())).toEqual([]);
      const names = layers.map((l) => l.Name!);
      expect(new Set(names).size).toBe(names.length);
      // No comma in a name: ArcGIS joins the visible sublayers' names with commas.
      expect(names.filter((n) => n.includes(','))).toEqual([]);
    }
  });

  // https://pro.arcgis.com/de/pro-app/3.1/help/data/services/use-wms-services.htm (ArcGIS Pro 3.1, Use WMS service
  // layers): "Sie können den gesamten Service zu Ihrer Karte hinzufügen. Die ersten 20 Layer sind automatisch
  // aktiviert, da die Sichtbarkeit von Layern in einem WMS-Service nicht festgelegt ist." (the whole service can be
  // added; its first 20 layers are turned on.) ArcMap the same:
  // http://webhelp.esri.com/arcgisdesktop/9.3/body.cfm?tocVisable=1&ID=520&TopicName=About%20adding%20a%20WMS%20service%20layer%20to%20ArcMap
  //   "You can add the entire service to ArcMap, in which case the first 20 layers will be turned on automatically".
  test('the whole service added at once: one GetMap of every named layer, STYLES empty, is drawn (both versions)', async () => {
    for (const [r, version, crsKey] of [[await caps130(), '1.3.0', 'CRS'], [await caps111(), '1.1.1', 'SRS']] as const) {
      const names = namedLayers(parseCaps(r.body).caps).map((l) => l.layer.Name!);
      expect(names.length).toBeLessThanOrEqual(20);
      const g = await wms({ SERVICE: 'WMS', REQUEST: 'GetMap', VERSION: version, LAYERS: names.join(','), STYLES: '', [crsKey]: 'EPSG:3857', BBOX: WORLD_3857, WIDTH: '128', HEIGHT: '128', FORMAT: 'image/png', TRANSPARENT: 'TRUE' });
      expect({ version, status: g.status, type: g.headers['content-type'] }).toEqual({ version, status: 200, type: 'image/png' });
      expect(isUniform(await decodeRGBA(g.body))).toBe(false);
    }
  });

  // The JS API takes a layer's extent from LatLonBoundingBox (1.1.x) or EX_GeographicBoundingBox (1.3.0), else from
  // an EPSG BoundingBox, else it takes the whole world; each BoundingBox becomes one of the layer's fullExtents, read
  // in the 1.3.0 axis order of its CRS (wmsUtils.js). The standard requires them (06-042 §7.2.4.6.6-7; 01-068r3 §7.1.4.5.6).
  test('bounding boxes: every layer has its geographic box and BoundingBoxes in EPSG:4326 and EPSG:3857 that agree with it', async () => {
    for (const [r, version] of [[await caps130(), '1.3.0'], [await caps111(), '1.1.1']] as const) {
      const { caps } = parseCaps(r.body);
      const rootBox = geographic(caps.Capability.Layer[0]);
      expect({ version, root: rootBox?.length }).toEqual({ version, root: 4 });
      for (const { layer } of namedLayers(caps)) {
        const geo = geographic(layer);
        expect({ version, layer: layer.Name, geo: geo?.length }).toEqual({ version, layer: layer.Name, geo: 4 });
        const [w, s, e, n] = geo!;
        const box = (crs: string) => {
          const b = (layer.BoundingBox ?? []).find((x) => (x['@CRS'] ?? x['@SRS']) === crs);
          return b && [b['@minx'], b['@miny'], b['@maxx'], b['@maxy']].map(Number);
        };
        // EPSG:4326 as ArcGIS reads it: latitude first in 1.3.0, longitude first in 1.1.1.
        const b4326 = box('EPSG:4326');
        expect({ version, layer: layer.Name, b4326: !!b4326 }).toEqual({ version, layer: layer.Name, b4326: true });
        const lonLat = version === '1.3.0' ? [b4326![1], b4326![0], b4326![3], b4326![2]] : b4326!;
        lonLat.forEach((v, i) => expect(v).toBeCloseTo([w, s, e, n][i], 6));
        const b3857 = box('EPSG:3857');
        expect({ version, layer: layer.Name, b3857: !!b3857 }).toEqual({ version, layer: layer.Name, b3857: true });
        const merc = [(R * w * Math.PI) / 180, R * Math.log(Math.tan(Math.PI / 4 + (s * Math.PI) / 360)), (R * e * Math.PI) / 180, R * Math.log(Math.tan(Math.PI / 4 + (n * Math.PI) / 360))];
        b3857!.forEach((v, i) => expect(Math.abs(v - merc[i])).toBeLessThan(1));
      }
    }
  });

  // https://help.arcgis.com/en/arcgisdesktop/10.0/help/0053/005300000044000000.htm (WMS services): "It is not necessary
  // for a WMS service to support all the operations, but it must support at least the GetCapabilities and GetMap
  // operations to be a Basic WMS and support the optional GetFeatureInfo operation to be a Queryable WMS."
  // The JS API queries a layer only when the capabilities list GetFeatureInfo in text/html or text/plain and the layer
  // is queryable="1" (wmsUtils.js).
  test('GetFeatureInfo is optional: not advertised, no layer queryable, and asked for anyway it is OperationNotSupported', async () => {
    for (const r of [await caps130(), await caps111()]) {
      const { caps } = parseCaps(r.body);
      expect(Object.keys(caps.Capability.Request).sort()).toEqual(['GetCapabilities', 'GetMap']);
      expect(namedLayers(caps).filter((l) => l.layer['@queryable'] === '1').map((l) => l.layer.Name)).toEqual([]);
    }
    const gfi = await wms({ SERVICE: 'WMS', REQUEST: 'GetFeatureInfo', VERSION: '1.3.0', LAYERS: 'maps/sample', QUERY_LAYERS: 'maps/sample', STYLES: '', CRS: 'EPSG:3857', BBOX: WORLD_3857, WIDTH: '64', HEIGHT: '64', I: '1', J: '1', INFO_FORMAT: 'text/html', FORMAT: 'image/png' });
    expect({ status: gfi.status, code: exceptionCode(gfi.body) }).toEqual({ status: 501, code: 'OperationNotSupported' });
  });

  // Esri's own WMS answers an SRS it does not list with the standard's report
  // (https://support.esri.com/en/technical-article/000008313: "<ServiceExceptionReport version="1.1.1">
  // <ServiceException code="InvalidSRS">"); ArcGIS sends no EXCEPTIONS (JS API 3.x and 4.x), so it gets XML, the
  // default, which both versions must advertise (06-042 §7.2.4.4: XML; 01-068r3: application/vnd.ogc.se_xml).
  test('exceptions: XML advertised and answered by default, in the request\'s version, to a GetMap as ArcGIS sends it', async () => {
    const c13 = parseCaps((await caps130()).body).caps;
    expect(c13.Capability.Exception.Format).toContain('XML');
    const c11 = parseCaps((await caps111()).body).caps;
    expect(c11.Capability.Exception.Format).toContain('application/vnd.ogc.se_xml');
    const mapUrl = `${server().url}/wms?key=${KEY}`;
    const r13 = await mapViewerGetMap(mapUrl, { layers: 'maps/none', crs: 'EPSG:3857', bbox: WORLD_3857, width: 64, height: 64 });
    expect({ status: r13.status, type: r13.headers['content-type'], code: exceptionCode(r13.body) }).toEqual({ status: 400, type: 'text/xml; charset=utf-8', code: 'LayerNotDefined' });
    expect(r13.body.toString()).toContain('<ServiceExceptionReport version="1.3.0"');
    const r11 = await mapViewerGetMap(mapUrl, { layers: 'maps/none', crs: 'EPSG:3857', bbox: WORLD_3857, width: 64, height: 64, version: '1.1.1' });
    expect({ status: r11.status, type: r11.headers['content-type'], code: exceptionCode(r11.body) }).toEqual({ status: 400, type: 'application/vnd.ogc.se_xml; charset=utf-8', code: 'LayerNotDefined' });
  });

  // Styles: ArcGIS sends STYLES= (empty, the default style) from the JS API and ArcGIS Pro; a named style goes in as a
  // custom parameter (the 2016 blog above: "send additional parameters to a WMS service to support additional styles,
  // either through the use of a style parameter"). Legends: the JS API shows the first Style's LegendURL when there is
  // one (wmsUtils.js); http://help.arcgis.com/en/arcgisdesktop/10.0/help/00sp/00sp0000001n000000.htm:
  //   "Some WMS services do not include legend information about the symbols used by the layers in the service. When
  //   legend information is not available, no symbology is shown for the layers in the table of contents."
  test('styles and legends: each layer offers its "default" style, STYLES empty or default draw the same image; any LegendURL is absolute and answers an image', async () => {
    for (const r of [await caps130(), await caps111()]) {
      for (const { layer } of namedLayers(parseCaps(r.body).caps)) {
        expect({ layer: layer.Name, styles: (layer.Style ?? []).map((s) => s.Name) }).toEqual({ layer: layer.Name, styles: ['default'] });
        for (const legend of (layer.Style ?? []).flatMap((s) => s.LegendURL ?? [])) {
          const href = legend.OnlineResource['@xlink:href'];
          expect(href).toMatch(/^https?:\/\//);
          const l = await rawGet(href);
          expect([l.status, String(l.headers['content-type'])]).toEqual([200, expect.stringMatching(/^image\//)]);
        }
      }
    }
    const base = { SERVICE: 'WMS', REQUEST: 'GetMap', VERSION: '1.3.0', LAYERS: 'maps/sample', CRS: 'EPSG:3857', BBOX: tileBounds(1, 1, 0).join(','), WIDTH: '128', HEIGHT: '128', FORMAT: 'image/png' };
    const empty = await wms({ ...base, STYLES: '' });
    const named = await wms({ ...base, STYLES: 'default' });
    expect([empty.status, named.status]).toEqual([200, 200]);
    expect(comparePixels(await decodeRGBA(named.body), await decodeRGBA(empty.body)).differing).toBe(0);
  });

  // The JS API reads a Dimension with a name, units and values; a time dimension (name "time", units "ISO8601") makes
  // the layer time-aware, and the GetMap then carries time=<ISO 8601 without milliseconds> (wmsUtils.js, WMSLayer.js
  // fetchImage: toISOString without the milliseconds).
  test('a time-enabled layer: the 1.3.0 Dimension as ArcGIS reads it, and the time it sends draws that time', async () => {
    const weather = namedLayers(parseCaps((await caps130()).body).caps).find((l) => l.layer.Name === 'weather/temperature-2m.sample')!.layer;
    const dim = (weather.Dimension ?? []).find((d) => d['@name'] === 'time')!;
    expect(dim).toMatchObject({ '@units': 'ISO8601' });
    const times = dim['#text']!.split(',');
    expect(times.length).toBeGreaterThan(1);
    const mapUrl = `${server().url}/wms?key=${KEY}`;
    const area = { crs: 'EPSG:3857', bbox: WORLD_3857, width: 64, height: 64 };
    const first = new Date(times[0]).toISOString().replace(/\.[0-9]{3}/, '');
    const asked = await mapViewerGetMap(mapUrl, { ...area, layers: weather.Name!, extra: { time: first } });
    const keyframe = await mapViewerGetMap(mapUrl, { ...area, layers: 'tiles/sample-temperature-0000' });
    expect([asked.status, keyframe.status]).toEqual([200, 200]);
    expect(comparePixels(await decodeRGBA(asked.body), await decodeRGBA(keyframe.body)).differing).toBe(0);
  });

  // The JS API takes the largest image it may ask for from Service/MaxWidth and MaxHeight, 5000 when they are absent
  // (wmsUtils.js), and splits larger views. 1.3.0 can say it (06-042 §7.2.4.2); 1.1.1 has no such element.
  test('1.3.0 advertises its image size limit, and an image of that size is drawn while a larger one is refused', async () => {
    const { caps } = parseCaps((await caps130()).body);
    const max = Number(caps.Service.MaxWidth);
    expect(max).toBeGreaterThan(0);
    expect(Number(caps.Service.MaxHeight)).toBe(max);
    const mapUrl = `${server().url}/wms?key=${KEY}`;
    const ok = await mapViewerGetMap(mapUrl, { layers: 'maps/sample', crs: 'EPSG:3857', bbox: WORLD_3857, width: max, height: 8 });
    expect(ok.status).toBe(200);
    const big = await mapViewerGetMap(mapUrl, { layers: 'maps/sample', crs: 'EPSG:3857', bbox: WORLD_3857, width: max + 1, height: 8 });
    expect({ status: big.status, code: exceptionCode(big.body) }).toEqual({ status: 400, code: 'InvalidParameterValue' });
  });
});
