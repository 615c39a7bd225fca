// The weather variables of a catalog (ogc/weather-variables.ts) and what is built of them: the WMTS layer with its
// Time dimension (ogc/weather-layers.ts) and the OGC API collection with its temporal extent, tileset and the keyframe
// a tile request gets (ogc/weather-collections.ts). Catalogs and keyframe tile sets are literal; so are the answers.

import { WORLD_BOUNDS } from '../../src/geo/mercator';
import { buildWmtsCapabilities } from '../../src/ogc/wmts';
import { keyframeFor, temporalExtent, weatherCollection, weatherCollectionId, weatherCollectionMeets, weatherNameOf, weatherTileset, weatherTilesetList } from '../../src/ogc/weather-collections';
import { weatherLayerId, weatherWmtsLayer } from '../../src/ogc/weather-layers';
import { keyframeAt, latestKeyframe, weatherName, weatherVariables, type WeatherVariable } from '../../src/ogc/weather-variables';
import type { Bounds, Pyramid, TileFormat, TilesetInfo } from '../../src/store/types';

const T0 = '2024-01-01T00:00:00Z';
const T6 = '2024-01-01T06:00:00Z';
const T12 = '2024-01-01T12:00:00Z';

function tileset(id: string, over: Partial<Pyramid> = {}): TilesetInfo {
  const p: Pyramid = { name: 'main', tileSize: 256, scale: 1, format: 'png', minzoom: 0, maxzoom: 2, bounds: WORLD_BOUNDS, ...over };
  return { kind: 'tiles', id, name: id, description: '', attribution: '', type: 'overlay', format: p.format, minzoom: p.minzoom, maxzoom: p.maxzoom, bounds: p.bounds, center: [0, 0, 0], pyramids: [p], version: 'v' };
}

interface VariableSpec {
  id?: string;
  format?: string;
  zooms?: number[];
  bounds?: number[];
  keyframes: { id: string; timestamp: string }[];
}

function catalog(...vars: VariableSpec[]): unknown {
  return {
    variables: vars.map((v) => ({
      bounds: v.bounds ?? [-180, -85.0511287798066, 180, 85.0511287798066],
      tile_format: v.format ?? 'png',
      tile_matrix_set: { items: (v.zooms ?? [0, 1, 2]).map((z) => ({ zoom_level: z, tile_width: 256, tile_height: 256 })) },
      metadata: { weather_variable: { name: 'Temperature', description: 'Air temperature', attribution: 'test', variable_id: v.id ?? 'temperature-2m:gfs', unit: 'C', decoding: { channels: 'r', min: -60, max: 60 } } },
      keyframes: v.keyframes,
    })),
  };
}

const lookup =
  (...infos: TilesetInfo[]) =>
  (id: string): TilesetInfo | undefined =>
    infos.find((i) => i.id === id);
const times = (v: WeatherVariable) => v.keyframes.map((k) => [k.time, k.tilesetId]);

test('weatherName: `:` becomes `.`, other characters outside letters, digits, . _ - become _', () => {
  expect(weatherName('temperature-2m:gfs')).toBe('temperature-2m.gfs');
  expect(weatherName('wind 10m/gust:ecmwf')).toBe('wind_10m_gust.ecmwf');
  expect(weatherName('precipitation')).toBe('precipitation');
});

describe('weatherVariables', () => {
  test('a variable: its name, texts, pyramid, and keyframes earliest first with times in UTC (Z)', () => {
    const c = catalog({ keyframes: [{ id: 'b', timestamp: '2024-01-01T07:00:00+01:00' }, { id: 'a', timestamp: '2024-01-01T00:00:00+00:00' }] });
    const [v] = weatherVariables(c, lookup(tileset('a'), tileset('b')));
    expect(v).toEqual({
      variableId: 'temperature-2m:gfs',
      name: 'temperature-2m.gfs',
      title: 'Temperature',
      description: 'Air temperature',
      attribution: 'test',
      unit: 'C',
      decoding: { channels: 'r', min: -60, max: 60 },
      pyramid: { name: 'main', tileSize: 256, scale: 1, format: 'png', minzoom: 0, maxzoom: 2, bounds: [-180, -85.0511287798066, 180, 85.0511287798066] },
      keyframes: [
        { time: T0, instant: Date.UTC(2024, 0, 1, 0), tilesetId: 'a' },
        { time: T6, instant: Date.UTC(2024, 0, 1, 6), tilesetId: 'b' },
      ],
    });
    expect(latestKeyframe(v).tilesetId).toBe('b');
    expect(keyframeAt(v, T0)?.tilesetId).toBe('a');
    expect(keyframeAt(v, '2024-01-01T00:00:00+00:00')).toBeUndefined();
  });

  test('keyframes left out: not mirrored, no date-time, another format or tile size, an instant already taken', () => {
    const c = catalog({
      keyframes: [
        { id: 'a', timestamp: T0 },
        { id: 'gone', timestamp: '2024-01-01T03:00:00Z' },
        { id: 'undated', timestamp: 'tomorrow' },
        { id: 'jpeg', timestamp: '2024-01-01T04:00:00Z' },
        { id: 'big', timestamp: '2024-01-01T05:00:00Z' },
        { id: 'twin', timestamp: '2024-01-01T01:00:00+01:00' },
        { id: 'b', timestamp: T6 },
      ],
    });
    const infos = lookup(tileset('a'), tileset('undated'), tileset('jpeg', { format: 'jpg' as TileFormat }), tileset('big', { tileSize: 512 }), tileset('twin'), tileset('b'));
    expect(times(weatherVariables(c, infos)[0])).toEqual([
      [T0, 'a'],
      [T6, 'b'],
    ]);
  });

  test('what is offered is what every keyframe holds: the catalog zooms and bounds narrowed to each tile set', () => {
    const c = catalog({ zooms: [0, 1, 2, 3, 4, 5], bounds: [-180, -80, 180, 80], keyframes: [{ id: 'a', timestamp: T0 }, { id: 'b', timestamp: T6 }] });
    const [v] = weatherVariables(c, lookup(tileset('a', { minzoom: 0, maxzoom: 3, bounds: [-10, -20, 30, 40] as Bounds }), tileset('b', { minzoom: 1, maxzoom: 4, bounds: [0, -30, 40, 30] as Bounds })));
    expect(v.pyramid).toEqual({ name: 'main', tileSize: 256, scale: 1, format: 'png', minzoom: 1, maxzoom: 3, bounds: [0, -20, 30, 30] });
  });

  test('without tile_format or tile_matrix_set the latest keyframe decides, and the keyframes of another format are left out', () => {
    const c = { variables: [{ metadata: { weather_variable: { variable_id: 'x' } }, keyframes: [{ id: 'a', timestamp: T0 }, { id: 'b', timestamp: T6 }] }] };
    const [v] = weatherVariables(c, lookup(tileset('a'), tileset('b', { format: 'webp' as TileFormat, maxzoom: 4 })));
    expect(v).toMatchObject({ title: 'x', description: '', pyramid: { format: 'webp', minzoom: 0, maxzoom: 4 } });
    expect(times(v)).toEqual([[T6, 'b']]);
  });

  test('variables not offered: no variable_id, no usable keyframe (vector tiles among them), disjoint zooms; a name taken keeps the first', () => {
    const c = catalog(
      { id: '', keyframes: [{ id: 'a', timestamp: T0 }] },
      { id: 'unmirrored', keyframes: [{ id: 'gone', timestamp: T0 }] },
      { id: 'vector', format: 'pbf', keyframes: [{ id: 'v', timestamp: T0 }] },
      { id: 'deep', zooms: [5, 6], keyframes: [{ id: 'a', timestamp: T0 }] },
      { id: 'wind:gfs', keyframes: [{ id: 'a', timestamp: T0 }] },
      { id: 'wind.gfs', keyframes: [{ id: 'b', timestamp: T6 }] },
    );
    const vars = weatherVariables(c, lookup(tileset('a'), tileset('b'), tileset('v', { format: 'pbf' as TileFormat })));
    expect(vars.map((v) => [v.variableId, v.name])).toEqual([['wind:gfs', 'wind.gfs']]);
  });

  test('anything but a catalog: no variables', () => {
    for (const c of [undefined, null, 'x', [], { variables: 'x' }, { variables: [null, 1, { keyframes: 'x' }] }]) expect(weatherVariables(c, lookup())).toEqual([]);
  });
});

describe('the WMTS layer', () => {
  const [v] = weatherVariables(catalog({ keyframes: [{ id: 'a', timestamp: T0 }, { id: 'b', timestamp: T6 }, { id: 'c', timestamp: T12 }] }), lookup(tileset('a'), tileset('b'), tileset('c')));

  test('named weather/{name}, the pyramid of the variable, a Time dimension: ISO8601, every keyframe, the latest the Default', () => {
    const { variable, ...layer } = weatherWmtsLayer(v);
    expect(variable).toBe(v);
    expect(layer).toEqual({
      kind: 'tiles',
      id: 'c',
      pyramidName: 'main',
      identifier: 'weather/temperature-2m.gfs',
      title: 'Temperature (C)',
      abstract: 'Air temperature. Pixel values 0 to 255 of channel r are -60 to 60 C, linearly. Variable temperature-2m:gfs of the weather catalog; one tile set per time.',
      bounds: v.pyramid.bounds,
      format: 'png',
      tileSize: 256,
      minzoom: 0,
      maxzoom: 2,
      pyramid: v.pyramid,
      dimensions: [{ identifier: 'Time', title: 'Time', uom: 'ISO8601', default: T12, values: [T0, T6, T12] }],
    });
    expect(weatherLayerId(v)).toBe('weather/temperature-2m.gfs');
  });

  test('in the capabilities: the Dimension after Format, the {Time} variable after {Style}', () => {
    const xml = buildWmtsCapabilities({
      baseUrl: 'https://h',
      key: 'k',
      service: { title: 't', provider: { name: 'p' } },
      layers: [weatherWmtsLayer(v)],
      capabilitiesUrl: 'https://h/c',
    });
    expect(xml).toContain(
      [
        '<Format>image/png</Format>',
        '      <Dimension>',
        '        <ows:Title>Time</ows:Title>',
        '        <ows:Identifier>Time</ows:Identifier>',
        '        <ows:UOM>ISO8601</ows:UOM>',
        `        <Default>${T12}</Default>`,
        `        <Value>${T0}</Value>`,
        `        <Value>${T6}</Value>`,
        `        <Value>${T12}</Value>`,
        '      </Dimension>',
        '      <TileMatrixSetLink>',
      ].join('\n'),
    );
    expect(xml).toContain('template="https://h/wmts/1.0.0/weather/temperature-2m.gfs/{Style}/{Time}/{TileMatrixSet}/{TileMatrix}/{TileRow}/{TileCol}.png?key=k"');
  });
});

describe('the OGC API collection', () => {
  const [v] = weatherVariables(catalog({ keyframes: [{ id: 'a', timestamp: T0 }, { id: 'b', timestamp: T6 }, { id: 'c', timestamp: T12 }] }), lookup(tileset('a'), tileset('b'), tileset('c')));

  test('weather.{name}, a map collection whose temporal extent is the keyframes', () => {
    expect(weatherCollectionId(v)).toBe('weather.temperature-2m.gfs');
    expect(weatherNameOf('weather.temperature-2m.gfs')).toBe('temperature-2m.gfs');
    expect(weatherNameOf('maps.sample')).toBeUndefined();
    expect(weatherNameOf('weather.')).toBeUndefined();
    expect(temporalExtent(v)).toEqual({ interval: [[T0, T12]], trs: 'http://www.opengis.net/def/uom/ISO-8601/0/Gregorian', values: [T0, T6, T12] });
    expect(weatherCollection(v, 'https://h', 'k')).toEqual({
      id: 'weather.temperature-2m.gfs',
      title: 'Temperature',
      description: 'Air temperature. Pixel values 0 to 255 of channel r are -60 to 60 C, linearly. Variable temperature-2m:gfs of the weather catalog; one tile set per time.',
      attribution: 'test',
      dataType: 'map',
      extent: { spatial: { bbox: [[...v.pyramid.bounds]], crs: 'http://www.opengis.net/def/crs/OGC/1.3/CRS84' }, temporal: temporalExtent(v) },
      crs: ['http://www.opengis.net/def/crs/OGC/1.3/CRS84'],
      links: [
        { href: 'https://h/ogc/collections/weather.temperature-2m.gfs?key=k', rel: 'self', type: 'application/json', title: 'Temperature' },
        { href: 'https://h/ogc/collections/weather.temperature-2m.gfs/map/tiles?key=k', rel: 'http://www.opengis.net/def/rel/ogc/1.0/tilesets-map', type: 'application/json', title: 'Map tilesets' },
      ],
    });
  });

  test('one tileset, in the tile matrix set of its tile size', () => {
    expect(weatherTilesetList(v, 'https://h', 'k').tilesets.map((t) => t.tileMatrixSetId)).toEqual(['WebMercatorQuad']);
    expect(weatherTileset(v, 'WebMercatorQuad512', 'https://h', 'k')).toBeUndefined();
    const t = weatherTileset(v, 'WebMercatorQuad', 'https://h', 'k');
    expect(t?.links.find((l) => l.rel === 'item')).toEqual({
      href: 'https://h/ogc/collections/weather.temperature-2m.gfs/map/tiles/WebMercatorQuad/{tileMatrix}/{tileRow}/{tileCol}?key=k',
      rel: 'item',
      type: 'image/png',
      title: 'Tiles',
      templated: true,
    });
    expect(t).toMatchObject({ dataType: 'map', minzoom: 0, maxzoom: 2 });
  });

  test('the keyframe a tile request gets: the latest the time asked for holds, the latest of all without one, none outside', () => {
    const at = (iso: string) => Date.parse(iso);
    expect(keyframeFor(v, undefined)?.time).toBe(T12);
    expect(keyframeFor(v, { start: at(T6), end: at(T6) })?.time).toBe(T6);
    expect(keyframeFor(v, { start: at(T0), end: at(T6) })?.time).toBe(T6);
    expect(keyframeFor(v, { end: at('2024-01-01T05:59:59Z') })?.time).toBe(T0);
    expect(keyframeFor(v, { start: at('2024-01-01T03:00:00Z'), end: at('2024-01-01T03:00:00Z') })).toBeUndefined();
    expect(keyframeFor(v, { start: at('2024-01-02T00:00:00Z') })).toBeUndefined();
    expect(weatherCollectionMeets(v, { start: at('2024-01-01T03:00:00Z'), end: at('2024-01-01T03:00:00Z') })).toBe(true);
    expect(weatherCollectionMeets(v, { start: at('2024-01-01T12:00:01Z') })).toBe(false);
  });
});
