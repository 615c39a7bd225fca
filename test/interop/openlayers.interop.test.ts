// OpenLayers 10 as a WMTS client. ol is ESM-only and jest runs CommonJS, so ol-capabilities.mjs runs in its
// own node process: it parses the capabilities with WMTSCapabilities (jsdom's DOMParser), builds the source
// with optionsFromCapabilities and prints the URL its tileUrlFunction makes for each tile. This test fetches
// those URLs and compares the pixels with the tile stored in the .mbtiles file.
import path from 'node:path';
import {
  type InteropServer,
  KEYFRAMES,
  layerMatrixSet,
  MAP_STORE,
  startInteropServer,
  summarizeCapabilities,
  TERRAIN_STORE,
  WEATHER_LAYER,
} from './helpers';
import { fetchOk, fetchText } from '../helpers/fetch';
import { expectSamePixels } from '../helpers/pixels';
import { assertOk, clientEnv, run } from '../helpers/run';
import { pickTile, readMetadata, readStoredTile, type TileAddress } from '../helpers/stored-tiles';

const SCRIPT = path.join(__dirname, 'ol-capabilities.mjs');

interface OlReport {
  layer: string;
  matrixSet: string;
  requestEncoding: string;
  format: string;
  style: string;
  tileSize: number;
  projection: string;
  /** The layer's dimensions as optionsFromCapabilities took them (their Defaults). */
  dimensions: Record<string, string>;
  urls: { z: number; x: number; y: number; matrixId: string; url: string }[];
}

async function openLayers(capsUrl: string, layer: string, matrixSet: string, encoding: 'KVP' | 'REST' | '-', tiles: TileAddress[], dimensions: Record<string, string> = {}): Promise<OlReport> {
  const dims = Object.entries(dimensions).map(([k, v]) => `${k}=${v}`);
  const r = assertOk(
    await run(process.execPath, [SCRIPT, capsUrl, layer, matrixSet, encoding, ...dims, ...tiles.map((t) => `${t.z}/${t.x}/${t.y}`)], {
      env: clientEnv(),
      cwd: path.resolve(__dirname, '..', '..'),
      timeoutMs: 60_000,
    }),
  );
  return JSON.parse(r.stdout) as OlReport;
}

describe('OpenLayers WMTS source from the served capabilities', () => {
  // ol and jsdom are devDependencies: always present where the suite runs, nothing to skip.
  let server: InteropServer;
  let mapMax: number;

  beforeAll(async () => {
    server = await startInteropServer();
    mapMax = Number(readMetadata(MAP_STORE).maxzoom);
  });
  afterAll(async () => {
    await server?.close();
  });

  const mapCaps = () => `${server.url}/maps/sample/WMTSCapabilities.xml?key=demo`;

  async function check(
    capsUrl: string,
    layer: string,
    tileSize: number,
    encoding: 'KVP' | 'REST' | '-',
    tiles: TileAddress[],
    store: string,
    pyramid?: string,
  ): Promise<OlReport> {
    const caps = summarizeCapabilities(await fetchText(capsUrl));
    const set = layerMatrixSet(caps, layer, tileSize);
    const report = await openLayers(capsUrl, layer, set.identifier, encoding, tiles);
    expect(report.matrixSet).toBe(set.identifier);
    expect(report.tileSize).toBe(tileSize);
    expect(report.projection).toBe('EPSG:3857');
    expect(report.format).toBe('image/png');
    if (encoding !== '-') expect(report.requestEncoding).toBe(encoding);
    for (const u of report.urls) {
      const t = { z: u.z, x: u.x, y: u.y };
      const { body, contentType } = await fetchOk(u.url);
      expect(contentType).toMatch(/^image\/png/);
      await expectSamePixels(body, readStoredTile(store, t, pyramid), `OpenLayers ${report.requestEncoding} ${layer} ${t.z}/${t.x}/${t.y} (${u.url})`);
    }
    return report;
  }

  test.each(['-', 'KVP', 'REST'] as const)('layer maps/sample, 512 px set, requestEncoding %s', async (encoding) => {
    const tiles = [pickTile(MAP_STORE, mapMax), pickTile(MAP_STORE, Math.max(0, mapMax - 2)), { z: 0, x: 0, y: 0 }];
    await check(mapCaps(), 'maps/sample', 512, encoding, tiles, MAP_STORE);
  });

  test.each(['-', 'KVP', 'REST'] as const)('layer maps/sample/256, 256 px set, requestEncoding %s', async (encoding) => {
    const tiles = [pickTile(MAP_STORE, mapMax, { pyramid: '256' }), pickTile(MAP_STORE, Math.max(0, mapMax - 1), { pyramid: '256' })];
    await check(mapCaps(), 'maps/sample/256', 256, encoding, tiles, MAP_STORE, '256');
  });

  test('service-wide capabilities, terrain layer (tile matrix set limits)', async () => {
    const meta = readMetadata(TERRAIN_STORE);
    const bounds = meta.bounds.split(',').map(Number) as [number, number, number, number];
    const tile = pickTile(TERRAIN_STORE, Number(meta.maxzoom), { inside: bounds });
    await check(`${server.url}/wmts/1.0.0/WMTSCapabilities.xml?key=demo`, 'tiles/sample-terrain', 256, '-', [tile], TERRAIN_STORE);
  });

  test.each(['KVP', 'REST'] as const)('the weather layer, requestEncoding %s: its Time Default (the latest keyframe), and the other time set with updateDimensions', async (encoding) => {
    const caps = `${server.url}/weather/WMTSCapabilities.xml?key=demo`;
    const set = layerMatrixSet(summarizeCapabilities(await fetchText(caps)), WEATHER_LAYER, 256);
    const tile = pickTile(KEYFRAMES[0].store, 2);
    for (const [k, dims] of [
      [KEYFRAMES[1], {}],
      [KEYFRAMES[0], { Time: KEYFRAMES[0].time }],
    ] as const) {
      const report = await openLayers(caps, WEATHER_LAYER, set.identifier, encoding, [tile], dims);
      expect(report.dimensions).toEqual({ Time: KEYFRAMES[1].time });
      const { body } = await fetchOk(report.urls[0].url);
      await expectSamePixels(body, readStoredTile(k.store, tile), `OpenLayers ${encoding} ${WEATHER_LAYER} at ${k.time} (${report.urls[0].url})`);
    }
  });
});
