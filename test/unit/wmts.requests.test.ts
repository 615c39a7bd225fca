import { resolveWmtsLayer, wmtsLayersFor, wmtsLimitsOf, type WmtsLayer } from '../../src/ogc/wmts';
import { checkWmtsTile, kvpDimensionValues, kvpParams, parseWmtsKvp, parseWmtsRestTile, withRequestedDefaults, wmtsFormatFor, type WmtsTileRequest } from '../../src/ogc/wmts-requests';
import type { Bounds, TilesetInfo } from '../../src/store/types';

// WMTS requests read and checked (ogc/wmts-requests.ts): KVP GetCapabilities and GetTile, RESTful tile paths, a tile
// request against its layer. Each failure is the OWS exception the standards give: code and locator.

const params = (query: string) => kvpParams(new URLSearchParams(query).entries());
const TILE = 'SERVICE=WMTS&REQUEST=GetTile&VERSION=1.0.0&LAYER=maps/sample&STYLE=default&FORMAT=image/png&TILEMATRIXSET=GoogleMapsCompatible512-z0-5&TILEMATRIX=3&TILEROW=2&TILECOL=4';
const without = (name: string) => TILE.split('&').filter((p) => !p.startsWith(`${name}=`)).join('&');
const withValue = (name: string, value: string) => TILE.split('&').map((p) => (p.startsWith(`${name}=`) ? `${name}=${value}` : p)).join('&');
const exception = (r: { ok: boolean; exception?: unknown }) => (r.ok ? undefined : r.exception);

describe('kvpParams', () => {
  test('names lower-cased, the first of a repeated parameter, a stray ? before a name dropped', () => {
    expect([...params('SERVICE=WMTS&Request=GetTile&TILEROW=1&tilerow=7&?version=1.0.0&??x=y').entries()]).toEqual([
      ['service', 'WMTS'],
      ['request', 'GetTile'],
      ['tilerow', '1'],
      ['version', '1.0.0'],
      ['x', 'y'],
    ]);
  });
});

describe('parseWmtsKvp: GetTile', () => {
  test('every parameter, names in any case, unknown ones ignored', () => {
    const r = parseWmtsKvp(
      params('service=WMTS&Request=GetTile&version=1.0.0&Layer=maps/sample&style=default&format=image/png&TileMatrixSet=GoogleMapsCompatible512-z0-5&tilematrix=3&TILEROW=2&TileCol=4&key=K&f=json'),
    );
    expect(r.ok).toBe(true);
    if (!r.ok || r.value.request !== 'GetTile') throw new Error('not a GetTile');
    const { dimension, ...tile } = r.value.tile;
    expect(tile).toEqual({ layer: 'maps/sample', style: 'default', format: 'image/png', tileMatrixSet: 'GoogleMapsCompatible512-z0-5', tileMatrix: '3', tileRow: '2', tileCol: '4' });
    expect(dimension('key')).toBe('K');
  });

  test('a sample dimension is read by its identifier in any letter case', () => {
    const r = parseWmtsKvp(params(`${TILE}&time=2024-01-01T00:00:00Z`));
    if (!r.ok || r.value.request !== 'GetTile') throw new Error('not a GetTile');
    expect(r.value.tile.dimension('Time')).toBe('2024-01-01T00:00:00Z');
    expect(r.value.tile.dimension('Elevation')).toBeUndefined();
  });

  test.each(['Version', 'Layer', 'Style', 'Format', 'TileMatrixSet', 'TileMatrix', 'TileRow', 'TileCol'])('%s missing or empty: MissingParameterValue, locator %s', (name) => {
    const expected = { code: 'MissingParameterValue', locator: name, text: `Missing parameter: ${name}` };
    expect(exception(parseWmtsKvp(params(without(name.toUpperCase()))))).toEqual(expected);
    expect(exception(parseWmtsKvp(params(withValue(name.toUpperCase(), ''))))).toEqual(expected);
  });

  test.each([
    [without('SERVICE'), { code: 'MissingParameterValue', locator: 'Service' }],
    [withValue('SERVICE', 'wmts'), { code: 'InvalidParameterValue', locator: 'Service' }],
    [withValue('SERVICE', 'WMS'), { code: 'InvalidParameterValue', locator: 'Service' }],
    [withValue('VERSION', '1.1.0'), { code: 'InvalidParameterValue', locator: 'Version' }],
    [without('REQUEST'), { code: 'MissingParameterValue', locator: 'request' }],
    [withValue('REQUEST', 'gettile'), { code: 'InvalidParameterValue', locator: 'request' }],
    [withValue('REQUEST', 'GetBOGUS'), { code: 'InvalidParameterValue', locator: 'request' }],
    [withValue('REQUEST', 'GetFeatureInfo'), { code: 'OperationNotSupported', locator: 'GetFeatureInfo' }],
  ])('%s → %j', (query, expected) => {
    expect(exception(parseWmtsKvp(params(query)))).toMatchObject(expected);
  });
});

describe('parseWmtsKvp: GetCapabilities', () => {
  const caps = (extra: string) => parseWmtsKvp(params(`SERVICE=WMTS&REQUEST=GetCapabilities${extra}`));

  test('SERVICE and REQUEST suffice; VERSION, updateSequence and AcceptFormats are ignored', () => {
    expect(caps('')).toEqual({ ok: true, value: { request: 'GetCapabilities' } });
    expect(caps('&VERSION=1.3.0&updateSequence=7&AcceptFormats=bogus/xml&key=K')).toEqual({ ok: true, value: { request: 'GetCapabilities' } });
  });

  test.each([
    ['request=GetCapabilities&AcceptVersions=1.0.0', { code: 'MissingParameterValue', locator: 'service', text: 'Missing parameter: service' }],
    ['service=BOGUS&request=GetCapabilities', { code: 'InvalidParameterValue', locator: 'service', text: 'Invalid service "BOGUS": expected WMTS' }],
    ['service=WMTS&request~GetCapabilities!version~1.0.0', { code: 'MissingParameterValue', locator: 'request', text: 'Missing parameter: request' }],
    ['', { code: 'MissingParameterValue', locator: 'request', text: 'Missing parameter: request' }],
  ])('%s → %j', (query, expected) => {
    expect(exception(parseWmtsKvp(params(query)))).toEqual(expected);
  });

  test('AcceptVersions: 1.0.0 among them, or VersionNegotiationFailed without a locator', () => {
    expect(caps('&AcceptVersions=1.0.0').ok).toBe(true);
    expect(caps('&acceptversions=2.0.0,1.0.0').ok).toBe(true);
    expect(exception(caps('&AcceptVersions=1.1.0,1.2.0'))).toEqual({ code: 'VersionNegotiationFailed', text: 'None of the versions "1.1.0,1.2.0" is supported; this server supports 1.0.0' });
    expect(exception(caps('&AcceptVersions='))).toEqual({ code: 'MissingParameterValue', locator: 'AcceptVersions', text: 'Missing value: AcceptVersions' });
  });

  test('Sections: a set of the WMTS section names, All for everything; names case-sensitive', () => {
    expect(caps('&Sections=Contents,Themes')).toEqual({ ok: true, value: { request: 'GetCapabilities', sections: new Set(['Contents', 'Themes']) } });
    expect(caps('&sections=ServiceProvider')).toEqual({ ok: true, value: { request: 'GetCapabilities', sections: new Set(['ServiceProvider']) } });
    expect(caps('&Sections=Contents,All')).toEqual({ ok: true, value: { request: 'GetCapabilities' } });
    expect(exception(caps('&Sections=Bogus'))).toMatchObject({ code: 'InvalidParameterValue', locator: 'Sections' });
    expect(exception(caps('&Sections=contents'))).toMatchObject({ code: 'InvalidParameterValue', locator: 'Sections' });
    expect(exception(caps('&Sections='))).toEqual({ code: 'MissingParameterValue', locator: 'Sections', text: 'Missing value: Sections' });
  });

  test('on a RESTful capabilities URL SERVICE and REQUEST default to WMTS and GetCapabilities; sent, they must be right', () => {
    const rest = { service: 'WMTS', request: 'GetCapabilities' } as const;
    expect(parseWmtsKvp(params(''), rest)).toEqual({ ok: true, value: { request: 'GetCapabilities' } });
    expect(parseWmtsKvp(params('request=GetCapabilities&sections=Contents'), rest)).toEqual({ ok: true, value: { request: 'GetCapabilities', sections: new Set(['Contents']) } });
    expect(parseWmtsKvp(params(without('SERVICE')), rest).ok).toBe(true);
    expect(exception(parseWmtsKvp(params('service=WMS'), rest))).toMatchObject({ code: 'InvalidParameterValue', locator: 'service' });
  });
});

describe('parseWmtsRestTile', () => {
  const path = { layer: 'maps/sample', style: 'default', tileMatrixSet: 'S', tileMatrix: '3', tileRow: '2', tileCol: '4', ext: 'png' };

  test('the path segments as a GetTile; the extension names the format', () => {
    const r = parseWmtsRestTile(path);
    if (!r.ok) throw new Error('refused');
    const { dimension, ...tile } = r.value;
    expect(tile).toEqual({ layer: 'maps/sample', style: 'default', format: 'image/png', tileMatrixSet: 'S', tileMatrix: '3', tileRow: '2', tileCol: '4' });
    expect(dimension('Time')).toBeUndefined();
    for (const [ext, type] of [['jpg', 'image/jpeg'], ['jpeg', 'image/jpeg'], ['webp', 'image/webp'], ['pbf', 'application/vnd.mapbox-vector-tile'], ['mvt', 'application/vnd.mapbox-vector-tile'], ['basis', 'application/octet-stream']]) {
      expect(parseWmtsRestTile({ ...path, ext })).toMatchObject({ ok: true, value: { format: type } });
    }
    const timed = parseWmtsRestTile({ ...path, dimensions: { Time: 'T0' } });
    expect(timed.ok && timed.value.dimension('time')).toBe('T0');
  });

  test.each([
    ['style', 'Style'],
    ['tileMatrixSet', 'TileMatrixSet'],
    ['tileMatrix', 'TileMatrix'],
    ['tileRow', 'TileRow'],
    ['tileCol', 'TileCol'],
  ])('an empty %s segment: MissingParameterValue, locator %s', (key, locator) => {
    expect(exception(parseWmtsRestTile({ ...path, [key]: '' }))).toEqual({ code: 'MissingParameterValue', locator, text: `Missing path segment: ${locator}` });
  });

  test('an empty dimension segment: MissingParameterValue, locator the dimension', () => {
    expect(exception(parseWmtsRestTile({ ...path, dimensions: { Time: '' } }))).toEqual({ code: 'MissingParameterValue', locator: 'Time', text: 'Missing path segment: Time' });
  });

  test.each(['gif', 'PNG', 'toString', ''])('extension %p: InvalidParameterValue, locator Format', (ext) => {
    expect(exception(parseWmtsRestTile({ ...path, ext }))).toMatchObject({ code: 'InvalidParameterValue', locator: 'Format' });
  });
});

const SWISS: Bounds = [5.9, 45.8, 10.5, 47.8];
function info(over: Partial<TilesetInfo>): TilesetInfo {
  return { kind: 'maps', id: 'sample', name: 'Sample', description: '', attribution: '', type: 'baselayer', format: 'png', minzoom: 0, maxzoom: 5, bounds: SWISS, center: [8, 47, 3], version: 'v1', pyramids: [], ...over };
}
const [map512] = wmtsLayersFor(info({ pyramids: [{ name: '512', tileSize: 512, scale: 1, format: 'png', minzoom: 0, maxzoom: 5, bounds: SWISS }] }));
const [vector] = wmtsLayersFor(info({ kind: 'tiles', id: 'v', format: 'pbf', pyramids: [{ name: 'main', tileSize: 512, scale: 1, format: 'pbf', minzoom: 0, maxzoom: 5, bounds: SWISS }] }));
const timed: WmtsLayer = { ...vector, dimensions: [{ identifier: 'Time', default: 'T1', values: ['T0', 'T1'] }] };

/** A GetTile of maps/sample's 512 px layer, tile 3/4/2 (the one tile of zoom 3 over Switzerland). */
function request(over: Partial<WmtsTileRequest> = {}, dims: Record<string, string> = {}): WmtsTileRequest {
  return { layer: 'maps/sample', style: 'default', format: 'image/png', tileMatrixSet: 'GoogleMapsCompatible512-z0-5', tileMatrix: '3', tileRow: '2', tileCol: '4', dimension: (id) => dims[id.toLowerCase()], ...over };
}

describe('checkWmtsTile', () => {
  test('a tile inside the limits: its address, format and no dimension', () => {
    expect(checkWmtsTile(map512, request())).toEqual({ ok: true, value: { layer: map512, z: 3, x: 4, y: 2, format: 'png', dimensions: {}, defaulted: [] } });
    expect(checkWmtsTile(map512, request({ format: 'image/webp' }))).toMatchObject({ ok: true, value: { format: 'webp' } });
  });

  test.each([
    [{}, undefined, { code: 'InvalidParameterValue', locator: 'Layer', text: 'Unknown layer "maps/sample"' }],
    [{ style: 'fancy' }, map512, { code: 'InvalidParameterValue', locator: 'Style' }],
    [{ style: 'Default' }, map512, { code: 'InvalidParameterValue', locator: 'Style' }],
    [{ format: 'image/bogus' }, map512, { code: 'InvalidParameterValue', locator: 'Format' }],
    [{ format: 'IMAGE/PNG' }, map512, { code: 'InvalidParameterValue', locator: 'Format' }],
    [{ format: 'application/vnd.mapbox-vector-tile' }, map512, { code: 'InvalidParameterValue', locator: 'Format' }],
    [{ tileMatrixSet: 'BogusForTest' }, map512, { code: 'InvalidParameterValue', locator: 'TileMatrixSet' }],
    [{ tileMatrixSet: 'googlemapscompatible512-z0-5' }, map512, { code: 'InvalidParameterValue', locator: 'TileMatrixSet' }],
    [{ tileMatrix: 'BogusForTest' }, map512, { code: 'InvalidParameterValue', locator: 'TileMatrix' }],
    [{ tileMatrix: '6' }, map512, { code: 'InvalidParameterValue', locator: 'TileMatrix' }],
    [{ tileMatrix: '03' }, map512, { code: 'InvalidParameterValue', locator: 'TileMatrix' }],
    [{ tileRow: '1.5' }, map512, { code: 'InvalidParameterValue', locator: 'TileRow' }],
    [{ tileRow: '-1' }, map512, { code: 'InvalidParameterValue', locator: 'TileRow' }],
    [{ tileCol: '1e1' }, map512, { code: 'InvalidParameterValue', locator: 'TileCol' }],
    [{ tileRow: '3' }, map512, { code: 'TileOutOfRange', locator: 'TileRow', text: 'TileRow 3 is outside 2 to 2 in tile matrix 3 of layer maps/sample' }],
    [{ tileRow: '1' }, map512, { code: 'TileOutOfRange', locator: 'TileRow' }],
    [{ tileCol: '5' }, map512, { code: 'TileOutOfRange', locator: 'TileCol', text: 'TileCol 5 is outside 4 to 4 in tile matrix 3 of layer maps/sample' }],
    [{ tileCol: '99999999' }, map512, { code: 'TileOutOfRange', locator: 'TileCol' }],
  ] as [Partial<WmtsTileRequest>, WmtsLayer | undefined, object][])('%j → %j', (over, layer, expected) => {
    expect(exception(checkWmtsTile(layer, request(over)))).toMatchObject(expected);
  });

  test('the rows and columns accepted are exactly those of the advertised TileMatrixSetLimits, at every matrix', () => {
    for (const l of wmtsLimitsOf(map512)) {
      const at = (row: number, col: number) => checkWmtsTile(map512, request({ tileMatrix: l.tileMatrix, tileRow: String(row), tileCol: String(col) }));
      expect(at(l.minTileRow, l.minTileCol).ok && at(l.maxTileRow, l.maxTileCol).ok).toBe(true);
      expect(exception(at(l.maxTileRow + 1, l.minTileCol))).toMatchObject({ code: 'TileOutOfRange', locator: 'TileRow' });
      expect(exception(at(l.minTileRow, l.maxTileCol + 1))).toMatchObject({ code: 'TileOutOfRange', locator: 'TileCol' });
      if (l.minTileRow > 0) expect(exception(at(l.minTileRow - 1, l.minTileCol))).toMatchObject({ code: 'TileOutOfRange', locator: 'TileRow' });
      if (l.minTileCol > 0) expect(exception(at(l.minTileRow, l.minTileCol - 1))).toMatchObject({ code: 'TileOutOfRange', locator: 'TileCol' });
    }
  });

  test('a vector layer is answered as its advertised vector type only', () => {
    const v = { layer: 'tiles/v', tileMatrixSet: 'GoogleMapsCompatible512-z0-5' };
    expect(checkWmtsTile(vector, request({ ...v, format: 'application/vnd.mapbox-vector-tile' }))).toMatchObject({ ok: true, value: { format: 'pbf' } });
    expect(exception(checkWmtsTile(vector, request({ ...v, format: 'application/x-protobuf' })))).toMatchObject({ code: 'InvalidParameterValue', locator: 'Format' });
    expect(exception(checkWmtsTile(vector, request({ ...v })))).toMatchObject({ code: 'InvalidParameterValue', locator: 'Format' });
    expect(wmtsFormatFor(map512, 'image/jpeg')).toBe('jpg');
    expect(wmtsFormatFor(vector, 'image/png')).toBeUndefined();
  });

  test('a sample dimension: its default when not named (or named default), a listed value, else InvalidParameterValue with its identifier', () => {
    const v = { layer: 'tiles/v', format: 'application/vnd.mapbox-vector-tile' };
    expect(checkWmtsTile(timed, request(v))).toMatchObject({ ok: true, value: { dimensions: { Time: 'T1' }, defaulted: ['Time'] } });
    expect(checkWmtsTile(timed, request(v, { time: 'default' }))).toMatchObject({ ok: true, value: { dimensions: { Time: 'T1' }, defaulted: ['Time'] } });
    expect(checkWmtsTile(timed, request(v, { time: 'T0' }))).toMatchObject({ ok: true, value: { dimensions: { Time: 'T0' }, defaulted: [] } });
    expect(checkWmtsTile(timed, request(v, { time: 'T1' }))).toMatchObject({ ok: true, value: { dimensions: { Time: 'T1' }, defaulted: [] } });
    expect(exception(checkWmtsTile(timed, request(v, { time: 'T9' })))).toEqual({ code: 'InvalidParameterValue', locator: 'Time', text: 'Invalid Time "T9" of layer tiles/v: expected one of its values (or default), e.g. T1' });
    // Values are case-sensitive, `default` too; `current` is no keyword here (no dimension says Current).
    for (const time of ['t0', 'Default', 'current']) expect(exception(checkWmtsTile(timed, request(v, { time })))).toMatchObject({ code: 'InvalidParameterValue', locator: 'Time' });
  });
});

describe('withRequestedDefaults: a GetCapabilities naming a dimension value', () => {
  const values = (query: string) => kvpDimensionValues(params(query));
  const defaults = (ls: WmtsLayer[]) => ls.map((l) => (l.dimensions ?? []).map((d) => d.default));

  test('the value becomes the Default of the layers offering it; the others are left as they are', () => {
    const r = withRequestedDefaults([map512, timed], values('SERVICE=WMTS&REQUEST=GetCapabilities&time=T0'));
    expect(r.ok && defaults(r.value)).toEqual([[], ['T0']]);
    expect(r.ok && r.value[1].dimensions?.[0].values).toEqual(['T0', 'T1']);
    // The layers given are not changed.
    expect(timed.dimensions?.[0].default).toBe('T1');
  });

  test('no value, an empty one, default, or a parameter naming no dimension: nothing changes', () => {
    for (const q of ['', 'TIME=', 'TIME=default', 'ELEVATION=3']) {
      const r = withRequestedDefaults([map512, timed], values(q));
      expect(r.ok && defaults(r.value)).toEqual([[], ['T1']]);
    }
    expect(withRequestedDefaults([map512], values('TIME=whatever'))).toMatchObject({ ok: true });
  });

  test('a value no layer offers: InvalidParameterValue, locator the dimension', () => {
    expect(exception(withRequestedDefaults([map512, timed], values('Time=T9')))).toMatchObject({ code: 'InvalidParameterValue', locator: 'Time' });
  });
});

describe('resolveWmtsLayer', () => {
  test.each([
    ['maps/sample', { kind: 'maps', id: 'sample', pyramidName: '512' }],
    ['maps/sample/256', { kind: 'maps', id: 'sample', pyramidName: '256' }],
    ['tiles/v3', { kind: 'tiles', id: 'v3', pyramidName: 'main' }],
    ['images/scan', { kind: 'images', id: 'scan', pyramidName: 'main' }],
  ])('%s', (id, expected) => {
    expect(resolveWmtsLayer(id)).toEqual(expected);
  });

  test.each([['maps'], ['maps/'], ['maps/a/512'], ['maps/a/256/x'], ['tiles/a/256'], ['data/a'], [''], ['images/a/b']])('%p is not a layer', (id) => {
    expect(resolveWmtsLayer(id)).toBeUndefined();
  });
});
