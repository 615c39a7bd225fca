// @camptocamp/ogc-client (the OGC client of geospatial web apps such as GeoNetwork UI) as a WMTS 1.0 and OGC API -
// Tiles client, run by ogc-client.interop.test.ts with node (ogc-client is ESM-only; jest runs CommonJS).
//
//   node test/interop/ogc-client.mjs <base url> <key> map=z/x/y map256=z/x/y vector=z/x/y weather=z/x/y time=<ISO time>
//
// Reads /wmts/1.0.0/WMTSCapabilities.xml?key=… with WmtsEndpoint and /ogc?key=… with OgcApiEndpoint, and prints, as
// one JSON document, what ogc-client read and the tiles fetched from the URLs it built (bodies in base64), for the
// test to compare with the stored tiles:
//   - WMTS: getTileUrl for maps/sample (tile `map`), tiles/sample-vector (`vector`) and the weather layer (`weather`) at
//     its Time Default, at every Time value ogc-client read and at `time`. ogc-client 1.3's getTileUrl has no dimension
//     parameter and leaves `{Time}` in a RESTful template: this script fills it, as an application has to.
//   - OGC API: getMapTilesetUrl / getVectorTilesetUrl for each tile matrix set of the endpoint. ogc-client 1.3 stops
//     at the tileset: this script reads the tileset's `item` link (a template) and fills {tileMatrix}/{tileRow}/{tileCol},
//     as a map library's OGC tile source does (WebMercatorQuad512 with `map` or `vector`, WebMercatorQuad with `map256`).
// Every HTTP request made in this process (by ogc-client and by this script) is listed with its answer's status.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';

const [baseArg, key, ...rest] = process.argv.slice(2);
const args = Object.fromEntries(rest.map((a) => [a.slice(0, a.indexOf('=')), a.slice(a.indexOf('=') + 1)]));
const TILE_ARGS = ['map', 'map256', 'vector', 'weather'];
if (!baseArg || !key || !args.time || TILE_ARGS.some((k) => !/^\d+\/\d+\/\d+$/.test(args[k] ?? ''))) {
  console.error('usage: ogc-client.mjs <base url> <key> map=z/x/y map256=z/x/y vector=z/x/y weather=z/x/y time=<ISO time>');
  process.exit(2);
}
const base = baseArg.replace(/\/+$/, '');
const tileArg = (name) => {
  const [z, x, y] = args[name].split('/').map(Number);
  return { z, x, y };
};

// Every request, whoever makes it: ogc-client calls the global fetch at call time (its node build installs node-fetch
// only where there is no global fetch), so wrapping it here sees its requests too.
const requests = [];
const nativeFetch = globalThis.fetch;
globalThis.fetch = async (input, init) => {
  const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
  const entry = { method: init?.method ?? 'GET', url, status: 0 };
  requests.push(entry);
  const res = await nativeFetch(input, init);
  entry.status = res.status;
  return res;
};

const require = createRequire(import.meta.url);
const { version } = JSON.parse(readFileSync(require.resolve('@camptocamp/ogc-client/package.json'), 'utf8'));
const { WmtsEndpoint, OgcApiEndpoint } = await import('@camptocamp/ogc-client');

/** GET: status, media type, encoding as sent, and the body as the fetch API hands it (a gzip Content-Encoding undone). */
async function getTile(url) {
  const res = await fetch(url);
  const body = Buffer.from(await res.arrayBuffer());
  return {
    status: res.status,
    contentType: res.headers.get('content-type'),
    contentEncoding: res.headers.get('content-encoding'),
    body: body.toString('base64'),
  };
}

/** A promise's value, or its error's message (ogc-client rejects with an Error for what it cannot do). */
async function settle(promise) {
  try {
    return { value: await promise };
  } catch (e) {
    return { error: e instanceof Error ? e.message : String(e) };
  }
}

// ---------------------------------------------------------------------------------------------
// WMTS
// ---------------------------------------------------------------------------------------------

const wmts = await new WmtsEndpoint(`${base}/wmts/1.0.0/WMTSCapabilities.xml?key=${encodeURIComponent(key)}`).isReady();
const layers = wmts.getLayers();
const matrixSets = wmts.getMatrixSets();

/** The TileMatrix of ogc-client's matrix set at zoom z of a Web Mercator pyramid, found by its scale denominator. */
function matrixAtZoom(set, z) {
  const tileWidth = set.tileMatrices[0].tileWidth;
  const want = (2 * Math.PI * 6378137) / tileWidth / 0.00028 / 2 ** z;
  const m = set.tileMatrices.find((tm) => Math.abs(tm.scaleDenominator - want) / want < 1e-6);
  if (!m) throw new Error(`matrix set ${set.identifier} has no matrix at zoom ${z}`);
  return m;
}

async function wmtsTile(label, layerName, t, time) {
  const layer = wmts.getLayerByName(layerName);
  if (!layer) throw new Error(`ogc-client read no layer ${layerName}`);
  const set = wmts.getMatrixSetByIdentifier(layer.matrixSets[0].identifier);
  const matrix = matrixAtZoom(set, t.z);
  const built = wmts.getTileUrl(layerName, layer.defaultStyle, set.identifier, matrix.identifier, t.y, t.x);
  const url = time === undefined ? built : built.replace(/\{Time\}/gi, time);
  return { label, layer: layerName, ...t, time, matrixSet: set.identifier, tileMatrix: matrix.identifier, built, url, ...(await getTile(url)) };
}

const WEATHER = 'weather/temperature-2m.sample';
const weatherLayer = wmts.getLayerByName(WEATHER);
const timeDimension = (weatherLayer?.dimensions ?? []).find((d) => d.identifier.toLowerCase() === 'time');
const defaultTime = wmts.getDefaultDimensions(WEATHER)?.Time;
const times = [
  ...(defaultTime ? [{ time: defaultTime, from: 'ogc-client Default' }] : []),
  ...(timeDimension?.values ?? []).map((time) => ({ time, from: 'ogc-client values' })),
  { time: args.time, from: 'argument' },
].filter((t, i, all) => all.findIndex((u) => u.time === t.time) === i);

const wmtsTiles = [await wmtsTile('map', 'maps/sample', tileArg('map')), await wmtsTile('vector', 'tiles/sample-vector', tileArg('vector'))];
for (const t of times) wmtsTiles.push({ ...(await wmtsTile('weather', WEATHER, tileArg('weather'), t.time)), timeFrom: t.from });

// ---------------------------------------------------------------------------------------------
// OGC API - Tiles
// ---------------------------------------------------------------------------------------------

const ogc = new OgcApiEndpoint(`${base}/ogc?key=${encodeURIComponent(key)}`);
const tileMatrixSets = await ogc.tileMatrixSets;
const TILE_FOR_SET = { map: { WebMercatorQuad512: 'map', WebMercatorQuad: 'map256' }, vector: { WebMercatorQuad512: 'vector' } };

async function collectionInfo(id) {
  const info = await ogc.getCollectionInfo(id);
  const { title, mapTileFormats, vectorTileFormats, supportedTileMatrixSets } = info;
  return { id: info.id, title, mapTileFormats, vectorTileFormats, supportedTileMatrixSets };
}

/** For each tile matrix set: the tileset URL ogc-client finds (or its error), and a tile read through the tileset's item template. */
async function tilesets(id, kind) {
  const out = [];
  for (const set of tileMatrixSets) {
    const found = await settle(kind === 'map' ? ogc.getMapTilesetUrl(id, set) : ogc.getVectorTilesetUrl(id, set));
    const entry = { collection: id, kind, tileMatrixSet: set, tilesetUrl: found.value, error: found.error };
    const tileName = TILE_FOR_SET[kind][set];
    if (found.value && tileName) {
      const res = await fetch(found.value, { headers: { Accept: 'application/json' } });
      const tileset = await res.json();
      const item = (tileset.links ?? []).find((l) => l.rel === 'item');
      const t = tileArg(tileName);
      entry.itemTemplate = item?.href;
      entry.itemType = item?.type;
      if (item) {
        const url = item.href.replace('{tileMatrix}', String(t.z)).replace('{tileRow}', String(t.y)).replace('{tileCol}', String(t.x));
        entry.tile = { label: tileName, ...t, url, ...(await getTile(url)) };
      }
    }
    out.push(entry);
  }
  return out;
}

const ogcReport = {
  info: await ogc.info,
  conformanceClasses: await ogc.conformanceClasses,
  allCollections: await ogc.allCollections,
  hasTiles: await ogc.hasTiles,
  hasFeatures: await ogc.hasFeatures,
  hasRecords: await ogc.hasRecords,
  tileMatrixSets,
  mapTileCollections: await ogc.mapTileCollections,
  vectorTileCollections: await ogc.vectorTileCollections,
  collections: [await collectionInfo('maps.sample'), await collectionInfo('tiles.sample-vector')],
  tilesets: [...(await tilesets('maps.sample', 'map')), ...(await tilesets('tiles.sample-vector', 'vector'))],
};

process.stdout.write(
  JSON.stringify({
    ogcClientVersion: version,
    wmts: { info: wmts.getServiceInfo(), layers, matrixSets, weatherDefaultDimensions: wmts.getDefaultDimensions(WEATHER), tiles: wmtsTiles },
    ogc: ogcReport,
    requests,
  }) + '\n',
);
