// OWSLib (Debian python3-owslib, run with /usr/bin/python3) as a WMTS client: WebMapTileService reads the
// capabilities (OWSLib appends ?service=WMTS&request=GetCapabilities&version=1.0.0 even to
// WMTSCapabilities.xml), then each tile is fetched with gettile() (KVP) and through the RESTful ResourceURL,
// and both are compared with the tile stored in the .mbtiles file. OWSLib's reading of the service identification
// and provider is checked too.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import {
  type InteropServer,
  KEYFRAMES,
  MAP_STORE,
  matrixIdForZoom,
  mercatorScaleDenominator,
  startInteropServer,
  TERRAIN_STORE,
  WEATHER_LAYER,
} from './helpers';
import { gatedTest, SYSTEM_PYTHON } from '../helpers/clients';
import { expectSamePixels } from '../helpers/pixels';
import { assertOk, clientEnv, run } from '../helpers/run';
import { pickTile, readMetadata, readStoredTile, type TileAddress } from '../helpers/stored-tiles';
import { tempDirs } from '../helpers/temp-dirs';

const { tempDir, removeTempDirs } = tempDirs('tilemirror-owslib-');

const SCRIPT = path.join(__dirname, 'owslib_wmts.py');

interface Fetched {
  url?: string | null;
  file?: string;
  bytes?: number;
  contentType?: string;
  error?: string;
  traceback?: string;
}
interface OwsReport {
  url: string;
  identification: { type: string; version: string; title: string; abstract: string | null; keywords: string[]; fees: string | null; accessconstraints: string | null };
  provider: { name: string | null; url: string | null };
  restonly: boolean;
  operations: string[];
  layers: Record<
    string,
    {
      formats: string[];
      styles: string[];
      tilematrixsets: string[];
      boundingBoxWGS84: number[] | null;
      resourceURLs: unknown[];
      dimensionsFrom: 'owslib' | 'capabilities document';
      dimensions: { identifier: string; uom: string | null; default: string | null; current: string | null; values: string[] }[];
    }
  >;
  tilematrixsets: Record<
    string,
    {
      crs: string;
      matrices: {
        identifier: string;
        scaledenominator: number;
        topleftcorner: number[] | null;
        tilewidth: number;
        tileheight: number;
        matrixwidth: number;
        matrixheight: number;
      }[];
    }
  >;
  tiles: { spec: string; kvp: Fetched; rest: Fetched }[];
}

interface Wanted {
  layer: string;
  tile: TileAddress;
  tileSize: number;
  store: string;
  pyramid?: string;
}

describe('OWSLib WebMapTileService', () => {
  const clientTest = gatedTest('OWSLib', {
    bins: [SYSTEM_PYTHON],
    pythonModules: ['owslib.wmts'],
    packages: ['python3-owslib'],
  });
  let server: InteropServer;
  let tmp: string;
  let mapMax: number;

  beforeAll(async () => {
    server = await startInteropServer();
    tmp = tempDir();
    mapMax = Number(readMetadata(MAP_STORE).maxzoom);
  });
  afterAll(async () => {
    await server?.close();
    removeTempDirs();
  });

  async function owslib(capsUrl: string, specs: string[]): Promise<OwsReport> {
    const r = assertOk(await run(SYSTEM_PYTHON, [SCRIPT, capsUrl, tmp, ...specs], { env: clientEnv(), timeoutMs: 60_000 }));
    return JSON.parse(r.stdout) as OwsReport;
  }

  /** Reads the capabilities with OWSLib, checks what it understood, fetches the wanted tiles both ways. */
  async function checkService(capsUrl: string, wanted: Wanted[]): Promise<OwsReport> {
    // First pass: learn the matrix set and matrix identifiers from OWSLib's own reading.
    const first = await owslib(capsUrl, []);
    expect(first.identification.type).toMatch(/WMTS/);
    expect(first.identification.version).toBe('1.0.0');
    expect(first.operations).toEqual(expect.arrayContaining(['GetCapabilities', 'GetTile']));

    const specs = wanted.map((w) => {
      const layer = first.layers[w.layer];
      if (!layer) throw new Error(`OWSLib found no layer ${w.layer} (layers: ${Object.keys(first.layers).join(', ')})`);
      expect(layer.formats).toContain('image/png');
      expect(layer.styles.length).toBeGreaterThan(0);
      const setId = layer.tilematrixsets.find((id) => first.tilematrixsets[id]?.matrices[0]?.tilewidth === w.tileSize);
      if (!setId) throw new Error(`layer ${w.layer}: no linked tile matrix set of ${w.tileSize} px (${layer.tilematrixsets.join(', ')})`);
      const set = first.tilematrixsets[setId];
      // As published: EPSG::3857, or the versioned URN of the GoogleMapsCompatible well-known scale set.
      expect(set.crs).toMatch(/EPSG:(?:[\d.]*:)*3857$/);
      // OWSLib reads the matrices as published: 0.28 mm pixel scales, the Web Mercator top-left corner.
      const id = matrixIdForZoom(
        {
          identifier: setId,
          supportedCRS: set.crs,
          matrices: set.matrices.map((m) => ({ identifier: m.identifier, scaleDenominator: m.scaledenominator, tileWidth: m.tilewidth, tileHeight: m.tileheight })),
        },
        w.tile.z,
      );
      const m = set.matrices.find((x) => x.identifier === id)!;
      expect(m.scaledenominator / mercatorScaleDenominator(w.tile.z, w.tileSize)).toBeCloseTo(1, 9);
      expect(m.topleftcorner?.[0]).toBeCloseTo(-20037508.342789244, 3);
      expect(m.topleftcorner?.[1]).toBeCloseTo(20037508.342789244, 3);
      expect(m.matrixwidth).toBe(2 ** w.tile.z);
      return `${w.layer}|${setId}|${id}|${w.tile.y}|${w.tile.x}`;
    });

    const report = await owslib(capsUrl, specs);
    for (const [i, w] of wanted.entries()) {
      const t = report.tiles[i];
      const label = `${w.layer} ${w.tile.z}/${w.tile.x}/${w.tile.y}`;
      for (const [how, f] of [
        ['gettile (KVP)', t.kvp],
        ['ResourceURL (REST)', t.rest],
      ] as const) {
        if (f.error || !f.file) throw new Error(`OWSLib ${how} for ${label} failed: ${f.error}\n${f.traceback ?? ''}`);
        expect(f.contentType).toMatch(/^image\/png/);
        await expectSamePixels(f.file, readStoredTile(w.store, w.tile, w.pyramid), `OWSLib ${how} ${label}`);
      }
    }
    return report;
  }

  clientTest('per-map capabilities: layers maps/sample (512 px) and maps/sample/256', async () => {
    await checkService(`${server.url}/maps/sample/WMTSCapabilities.xml?key=demo`, [
      { layer: 'maps/sample', tile: pickTile(MAP_STORE, mapMax), tileSize: 512, store: MAP_STORE },
      { layer: 'maps/sample', tile: pickTile(MAP_STORE, Math.max(0, mapMax - 2)), tileSize: 512, store: MAP_STORE },
      { layer: 'maps/sample/256', tile: pickTile(MAP_STORE, mapMax, { pyramid: '256' }), tileSize: 256, store: MAP_STORE, pyramid: '256' },
    ]);
  });

  clientTest('service-wide capabilities (KVP GetCapabilities URL): map and terrain layers', async () => {
    const meta = readMetadata(TERRAIN_STORE);
    const bounds = meta.bounds.split(',').map(Number) as [number, number, number, number];
    const report = await checkService(`${server.url}/wmts?SERVICE=WMTS&REQUEST=GetCapabilities&key=demo`, [
      { layer: 'maps/sample', tile: pickTile(MAP_STORE, mapMax), tileSize: 512, store: MAP_STORE },
      { layer: 'tiles/sample-terrain', tile: pickTile(TERRAIN_STORE, Number(meta.maxzoom), { inside: bounds }), tileSize: 256, store: TERRAIN_STORE },
    ]);
    expect(Object.keys(report.layers)).toEqual(expect.arrayContaining(['maps/sample', 'maps/sample/256', 'tiles/sample-terrain']));
    // The service metadata of the configuration (defaults here): identification and provider.
    expect(report.identification).toMatchObject({ title: 'tilemirror', fees: 'none', accessconstraints: 'none' });
    expect(report.identification.abstract).toMatch(/mirrored/);
    expect(report.identification.keywords).toEqual(['WMTS', 'map tiles', 'offline', 'tilemirror']);
    expect(report.provider).toEqual({ name: 'tilemirror', url: `${server.url}/?key=demo` });
  });

  clientTest('the weather layer: its Time dimension (values, the latest the default), a tile at each time by gettile(Time=...) and by the {Time} of the ResourceURL, each the keyframe\'s stored tile', async () => {
    for (const caps of [`${server.url}/wmts/1.0.0/WMTSCapabilities.xml?key=demo`, `${server.url}/weather/WMTSCapabilities.xml?key=demo`]) {
      const first = await owslib(caps, []);
      const layer = first.layers[WEATHER_LAYER];
      if (!layer) throw new Error(`OWSLib found no layer ${WEATHER_LAYER} in ${caps} (layers: ${Object.keys(first.layers).join(', ')})`);
      // OWSLib 0.27 parses no WMTS <Dimension>: the script reads them from the document OWSLib fetched; a later
      // OWSLib's own `dimensions` would be taken instead.
      expect(['owslib', 'capabilities document']).toContain(layer.dimensionsFrom);
      expect(layer.dimensions).toEqual([{ identifier: 'Time', uom: 'ISO8601', default: KEYFRAMES[1].time, current: null, values: KEYFRAMES.map((k) => k.time) }]);
      const [setId] = layer.tilematrixsets;
      const tile = pickTile(KEYFRAMES[0].store, 2);
      const report = await owslib(caps, KEYFRAMES.map((k) => `${WEATHER_LAYER}|${setId}|2|${tile.y}|${tile.x}|Time=${k.time}`));
      const files: string[] = [];
      for (const [i, k] of KEYFRAMES.entries()) {
        for (const [how, f] of [
          ['gettile (KVP)', report.tiles[i].kvp],
          ['ResourceURL (REST)', report.tiles[i].rest],
        ] as const) {
          if (f.error || !f.file) throw new Error(`OWSLib ${how} for ${WEATHER_LAYER} at ${k.time} failed: ${f.error}\n${f.traceback ?? ''}`);
          expect(f.contentType).toMatch(/^image\/png/);
          await expectSamePixels(f.file, readStoredTile(k.store, tile), `OWSLib ${how} ${WEATHER_LAYER} ${k.time}`);
          files.push(f.file);
        }
      }
      // The two times are two pictures.
      expect(readFileSync(files[0]).equals(readFileSync(files[2]))).toBe(false);
    }
  });
});
