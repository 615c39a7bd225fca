import { WORLD_BOUNDS } from '../../src/geo/mercator';
import { buildWmtsCapabilities, type WmtsLayer } from '../../src/ogc/wmts';
import { sourceBase, splitSourceKey } from '../../src/mirror/discovery/sources';
import { probeCandidates, sniffTileFormat } from '../../src/mirror/discovery/sources/tilejson';
import { isWebMercatorCrs, mediaTypeFormat, parseCapabilitiesXml, wmtsLayer } from '../../src/mirror/discovery/sources/wmts';
import { tileUrl } from '../../src/mirror/discovery/tile-url';
import type { Pyramid } from '../../src/store/types';
import { gwcCapabilities } from '../fixtures/gwc-capabilities';

const BASE = 'http://up.example:8080';

function layer(tileSize: number, minzoom: number, maxzoom: number, bounds = WORLD_BOUNDS): WmtsLayer {
  const pyramid: Pyramid = { name: 'main', tileSize, scale: 1, format: 'png', minzoom, maxzoom, bounds };
  return { kind: 'tiles', id: 'alps', pyramidName: 'main', identifier: 'tiles/alps', title: 'Alps "quoted"', abstract: 'A & B', bounds, format: 'png', tileSize, minzoom, maxzoom, pyramid };
}

/** Capabilities as tilemirror itself writes them (ogc/wmts.ts), with the key k in every URL. */
function ourCapabilities(l: WmtsLayer): string {
  return buildWmtsCapabilities({ baseUrl: BASE, key: 'k-123', service: { title: 'T', provider: { name: 'T' } }, layers: [l], capabilitiesUrl: `${BASE}/tiles/alps/WMTSCapabilities.xml?key=k-123` });
}

const DOC = `${BASE}/tiles/alps/WMTSCapabilities.xml`;

describe('WMTS capabilities as a source', () => {
  test('our own capabilities: RESTful template, 256 px set, bounds and limits', () => {
    const src = wmtsLayer(parseCapabilitiesXml(ourCapabilities(layer(256, 2, 9, [5.9, 45.8, 10.5, 47.8]))), DOC, 'tiles/alps');
    expect(src.encoding).toBe('RESTful');
    expect(src.template).toBe(`${BASE}/wmts/1.0.0/tiles/alps/default/GoogleMapsCompatible256-z2-9/{z}/{y}/{x}.png`);
    expect(src).toMatchObject({ format: 'png', minzoom: 2, maxzoom: 9, bounds: [5.9, 45.8, 10.5, 47.8], title: 'Alps "quoted"', abstract: 'A & B' });
    expect(src.set).toMatchObject({ id: 'GoogleMapsCompatible256-z2-9', tileSize: 256 });
    expect(src.matrixIds).toEqual({});
    // Worked out by hand from the bounds (x = (lon + 180) / 360 · 2^z, y = (1 - asinh(tan φ) / π) / 2 · 2^z): at z9
    // 5.9° → 264.39, 10.5° → 270.93, 47.8° → 178.40, 45.8° → 182.56, so columns 264-270 and rows 178-182.
    expect(src.limits[9]).toEqual({ minX: 264, maxX: 270, minY: 178, maxY: 182 });
    expect(src.limits[2]).toEqual({ minX: 2, maxX: 2, minY: 1, maxY: 1 });
  });

  test('KVP GetTile when there is no ResourceURL: parameters in order, key stripped from the href', () => {
    const xml = ourCapabilities(layer(512, 0, 4)).replace(/<ResourceURL[^>]*\/>/, '');
    const src = wmtsLayer(parseCapabilitiesXml(xml), DOC, 'tiles/alps');
    expect(src.encoding).toBe('KVP');
    expect(src.template).toBe(
      `${BASE}/wmts?SERVICE=WMTS&REQUEST=GetTile&VERSION=1.0.0&LAYER=tiles%2Falps&STYLE=default&TILEMATRIXSET=GoogleMapsCompatible512-z0-4&TILEMATRIX={z}&TILEROW={y}&TILECOL={x}&FORMAT=image%2Fpng`,
    );
    expect(src.set.tileSize).toBe(512);
    expect(() => wmtsLayer(parseCapabilitiesXml(xml.replace(/<ows:OperationsMetadata>[\s\S]*<\/ows:OperationsMetadata>/, '')), DOC, 'tiles/alps')).toThrow(/neither a ResourceURL template nor a KVP GetTile/);
  });

  // A GeoServer/GeoWebCache-style document: other identifiers, EPSG:900913, Style and TileMatrixSet placeholders,
  // a dimension, limits on a subset of levels, a second (geographic) set listed first.
  const GWC = gwcCapabilities({
    id: 'topp:roads',
    title: 'Roads',
    format: 'image/jpeg',
    bbox: [-10, 35, 30, 89],
    levels: [3, 4, 5],
    limits: [
      { z: 3, rows: [2, 3], cols: [3, 4] },
      { z: 5, rows: [8, 12], cols: [14, 18] },
    ],
    template: '/gwc/rest/{Style}/{TileMatrixSet}/{TileMatrix}/{TileRow}/{TileCol}?time={Time}&amp;key=abc',
  });

  test('GeoWebCache-style: identifiers mapped to zooms by scale, placeholders filled, limits bound the zooms', () => {
    const src = wmtsLayer(parseCapabilitiesXml(GWC), 'https://maps.example.org/gwc/service/wmts?REQUEST=GetCapabilities', 'topp:roads');
    expect(src.set.id).toBe('EPSG:900913');
    expect(src.template).toBe('https://maps.example.org/gwc/rest/fancy/EPSG:900913/{z}/{y}/{x}?time=2024-01-01');
    // Limits name z3 and z5: those are the layer's zooms (z4 in between has no tiles).
    expect(src.matrixIds).toEqual({ 3: 'EPSG:900913:3', 5: 'EPSG:900913:5' });
    expect(tileUrl(src.template, 5, 16, 9, src.matrixIds[5])).toBe('https://maps.example.org/gwc/rest/fancy/EPSG:900913/EPSG:900913:5/9/16?time=2024-01-01');
    expect(src).toMatchObject({ format: 'jpg', minzoom: 3, maxzoom: 5 });
    expect(src.limits).toEqual({ 3: { minX: 3, maxX: 4, minY: 2, maxY: 3 }, 4: null, 5: { minX: 14, maxX: 18, minY: 8, maxY: 12 } });
    expect(src.bounds[3]).toBeCloseTo(85.0511287798066, 9);
    // Asking for the geographic set is refused with its reason.
    expect(() => wmtsLayer(parseCapabilitiesXml(GWC), DOC, 'topp:roads', 'EPSG:4326')).toThrow(/EPSG:4326: its CRS urn:ogc:def:crs:EPSG::4326 is not Web Mercator/);
    expect(() => wmtsLayer(parseCapabilitiesXml(GWC), DOC, 'topp:nope')).toThrow(/no layer "topp:nope" \(layers: topp:roads\)/);
  });

  test('sets that are not Web Mercator quad levels are refused clearly', () => {
    const caps = (sd: string, corner = '-20037508.342789244 20037508.342789244', crs = 'urn:ogc:def:crs:EPSG::3857', size = 256) => `<Capabilities xmlns:ows="http://www.opengis.net/ows/1.1"><Contents>
      <Layer><ows:Identifier>l</ows:Identifier><Format>image/png</Format><TileMatrixSetLink><TileMatrixSet>s</TileMatrixSet></TileMatrixSetLink>
        <ResourceURL format="image/png" resourceType="tile" template="http://h/{TileMatrix}/{TileCol}/{TileRow}.png"/></Layer>
      <TileMatrixSet><ows:Identifier>s</ows:Identifier><ows:SupportedCRS>${crs}</ows:SupportedCRS>
        <TileMatrix><ows:Identifier>a</ows:Identifier><ScaleDenominator>${sd}</ScaleDenominator><TopLeftCorner>${corner}</TopLeftCorner><TileWidth>${size}</TileWidth><TileHeight>${size}</TileHeight><MatrixWidth>1</MatrixWidth><MatrixHeight>1</MatrixHeight></TileMatrix>
      </TileMatrixSet></Contents></Capabilities>`;
    const ok = wmtsLayer(parseCapabilitiesXml(caps('559082264.0287178')), DOC, 'l');
    expect(ok).toMatchObject({ minzoom: 0, maxzoom: 0, matrixIds: { 0: 'a' } });
    // 96 dpi instead of 0.28 mm pixels (the GDAL pitfall): not a quad level.
    expect(() => wmtsLayer(parseCapabilitiesXml(caps(String(156543.03392804097 / 0.0254 * 96 / 96 / (0.0254 / 96) * 0.0254 / 96))), DOC, 'l')).toThrow(/no Web Mercator.*ScaleDenominator/);
    expect(() => wmtsLayer(parseCapabilitiesXml(caps('591658710.9')), DOC, 'l')).toThrow(/not a Web Mercator zoom level for 256 px tiles/);
    expect(() => wmtsLayer(parseCapabilitiesXml(caps('559082264.0287178', '0 0')), DOC, 'l')).toThrow(/top-left corner/);
    expect(() => wmtsLayer(parseCapabilitiesXml(caps('559082264.0287178', undefined, 'EPSG:2056')), DOC, 'l')).toThrow(/EPSG:2056 is not Web Mercator/);
    expect(() => wmtsLayer(parseCapabilitiesXml(caps('559082264.0287178', undefined, undefined, 300)), DOC, 'l')).toThrow(/300x300 px tiles/);
    // 512 px tiles: z0 is half the 256 px scale.
    expect(wmtsLayer(parseCapabilitiesXml(caps('279541132.0143589', undefined, undefined, 512)), DOC, 'l').set.tileSize).toBe(512);
    expect(() => parseCapabilitiesXml('<html>nope</html>')).toThrow(/not a WMTS capabilities document/);
  });

  test('CRS and media type names', () => {
    for (const c of ['urn:ogc:def:crs:EPSG::3857', 'EPSG:3857', 'urn:ogc:def:crs:EPSG:6.18.3:3857', 'urn:ogc:def:crs:EPSG:6.18:3:3857', 'http://www.opengis.net/def/crs/EPSG/0/3857', 'EPSG:900913', 'urn:ogc:def:crs:EPSG::102100']) expect(isWebMercatorCrs(c)).toBe(true);
    for (const c of ['EPSG:4326', 'urn:ogc:def:crs:OGC:1.3:CRS84', 'EPSG:38570']) expect(isWebMercatorCrs(c)).toBe(false);
    expect(['image/png', 'image/png; mode=8bit', 'image/jpeg', 'image/webp', 'application/vnd.mapbox-vector-tile', 'image/tiff'].map(mediaTypeFormat)).toEqual(['png', 'png', 'jpg', 'webp', 'pbf', undefined]);
  });
});

describe('TileJSON sources and source URLs', () => {
  test('the key in a source URL is taken out and becomes the key; the origin is the upstream', () => {
    const { source, key } = splitSourceKey({ type: 'tilejson', url: 'https://tiles.example.com/v1/tiles.json?lang=en&key=s%2Fecret&x=1' });
    expect(key).toBe('s/ecret');
    expect(source.url).toBe('https://tiles.example.com/v1/tiles.json?lang=en&x=1');
    expect(sourceBase(source)).toBe('https://tiles.example.com');
    expect(splitSourceKey({ type: 'wmts', url: 'http://h/caps.xml', layer: 'l' })).toEqual({ source: { type: 'wmts', url: 'http://h/caps.xml', layer: 'l' }, key: undefined });
  });

  test('the format from the first bytes of a tile', () => {
    expect(sniffTileFormat(Buffer.from('89504e470d0a1a0a0000', 'hex'))).toBe('png');
    expect(sniffTileFormat(Buffer.from('ffd8ffe000', 'hex'))).toBe('jpg');
    expect(sniffTileFormat(Buffer.from('1f8b0800', 'hex'))).toBe('pbf');
    expect(sniffTileFormat(Buffer.from('1a0b0a', 'hex'))).toBe('pbf');
    expect(sniffTileFormat(Buffer.from('<html>'))).toBeUndefined();
  });

  test('probe candidates: the centre tile, then the middle and a corner of the bounds at minzoom', () => {
    expect(probeCandidates([5.9, 45.8, 10.5, 47.8], 2, 10, [8.2, 46.8, 7])).toEqual([
      { pyramid: 'main', z: 7, x: 66, y: 45 },
      { pyramid: 'main', z: 2, x: 2, y: 1 },
    ]);
  });
});
