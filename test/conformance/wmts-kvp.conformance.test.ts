// WMTS 1.0 conformance, GetTile over the KVP GET binding, written from OGC 07-057r7 (§7.2, §8.2, Tables 9, 23, 24,
// 29) and 06-121r3 (§8, §11.5), and the assertions of ets-wmts10 (wmts:Server.KVP.GET.GetTile.*, their names head
// the titles). Every layer the capabilities advertise, every Format it lists, every tile matrix set it links, at
// the first, middle and last TileMatrix of its TileMatrixSetLimits; every error case, each with the status,
// exceptionCode and locator the standard gives, as a schema-valid OWS 1.1 ExceptionReport.
import { startServer, type TestServer } from '../helpers/server';
import { gatedTest } from '../helpers/clients';
import { assertNoProblems, get, mapLimit, summary, TILE_CONCURRENCY } from './lib/http';
import { exceptionCaseProblems, type ExceptionCase, type ExpectedException } from './lib/ows-exception';
import { middleTile, pick, POSITIONS, type Position } from './lib/sampling';
import { tileProblems } from './lib/tile-content';
import type { Capabilities } from './lib/wmts-capabilities';
import {
  baseCases,
  linkedCapabilities,
  capabilitiesEntry,
  defaultDimensions,
  fetchCapabilities,
  GETTILE_PARAMS,
  kvpTilePrefix,
  kvpTileUrl,
  layerMatrices,
  styleOf,
  tileCases,
  type TileCase,
} from './lib/wmts';
import { XMLLINT_CHECK } from './lib/xml-schema';
import { tempDirs } from '../helpers/temp-dirs';

const { tempDir, removeTempDirs } = tempDirs('tilemirror-conformance-');

const xsdTest = gatedTest('xmllint with the OWS 1.1 ExceptionReport XSD', XMLLINT_CHECK);

let server: TestServer;
let scratch: string;
/** A WMTS service of the server: the entry's, and each one a linked capabilities document describes. */
interface Service {
  url: string;
  caps: Capabilities;
  /** The KVP GetTile Get href the document advertises. */
  prefix: string;
}

/** A tile case with the service it was built from. */
type KvpCase = TileCase & { service: Service };

let services: Service[];
let allLayers: Capabilities['layers'];
let allSets: Capabilities['tileMatrixSets'];

beforeAll(async () => {
  server = await startServer();
  scratch = tempDir();
  const urls = [capabilitiesEntry(server.url), ...(await linkedCapabilities(server.url))];
  services = [];
  for (const url of urls) {
    const { caps } = await fetchCapabilities(url);
    const prefix = kvpTilePrefix(caps);
    if (!prefix) throw new Error(`${url} advertises no KVP Get binding for GetTile (OperationsMetadata/GetTile/DCP/HTTP/Get, GetEncoding KVP)`);
    services.push({ url, caps, prefix });
  }
  allLayers = services.flatMap((s) => s.caps.layers);
  allSets = services.flatMap((s) => s.caps.tileMatrixSets);
});

/** Each case once: a linked document repeating the service's binding and layers gives the same requests. */
function unique(cases: KvpCase[]): KvpCase[] {
  return [...new Map(cases.map((c) => [kvpTileUrl(c.service.prefix, c), c])).values()];
}
const allTileCases = (position: Position): KvpCase[] => unique(services.flatMap((service) => tileCases(service.caps, position).map((c) => ({ ...c, service }))));
const allBaseCases = (): KvpCase[] => unique(services.flatMap((service) => baseCases(service.caps).map((c) => ({ ...c, service }))));
const urlOf = (c: KvpCase, change: Record<string, string | null> = {}): string => kvpTileUrl(c.service.prefix, c, change);

afterAll(async () => {
  await server?.close();
  removeTempDirs();
});

/** Requests every case's tile and collects what is wrong: not 200, not the advertised format, not the matrix's size. */
async function tileCaseProblems(cases: readonly KvpCase[]): Promise<string[]> {
  const problems = await mapLimit(cases, TILE_CONCURRENCY, async (c) => {
    const u = urlOf(c);
    const a = await get(u);
    const label = `GET ${u}`;
    if (a.status === 204) return [`${label}: 204 No Content; WMTS 1.0 has no empty answer: 07-057r7 §7.2.2.2 and ets-wmts10 want a tile in the requested Format for every address inside TileMatrixSetLimits`];
    if (a.status !== 200) return [`${label}: expected 200 with a ${c.format} tile; got ${summary(a)}`];
    return tileProblems(a, { format: c.format, width: c.range.tileWidth, height: c.range.tileHeight }, label);
  });
  return problems.flat();
}

async function errorCases(cases: readonly KvpCase[], change: (c: KvpCase) => Record<string, string | null> | undefined, expected: ExpectedException | ((c: KvpCase) => ExpectedException)): Promise<ExceptionCase[]> {
  const applicable = cases.flatMap((c) => {
    const ch = change(c);
    return ch ? [{ c, url: urlOf(c, ch) }] : [];
  });
  return mapLimit(applicable, TILE_CONCURRENCY, async ({ c, url }) => ({
    answer: await get(url),
    expected: typeof expected === 'function' ? expected(c) : expected,
    label: `GET ${url} (${c.layer.id})`,
  }));
}

async function expectErrors(change: (c: KvpCase) => Record<string, string | null> | undefined, expected: ExpectedException | ((c: KvpCase) => ExpectedException)): Promise<void> {
  const cases = await errorCases(allBaseCases(), change, expected);
  if (!cases.length) throw new Error('no layer of the capabilities allows this request to be built');
  assertNoProblems(await exceptionCaseProblems(cases, scratch), cases.length, 'requests');
}

/** The layers with sample dimensions; none is a failure: the weather layers carry a Time dimension (issue Must 6). */
function dimensionLayers(): Capabilities['layers'] {
  const layers = allLayers.filter((l) => l.dimensions.length);
  if (!layers.length) throw new Error('no layer of the capabilities has a <Dimension>; expected the weather variables as layers with a Time dimension (07-057r7 Table 9)');
  return layers;
}

const invalid = (locator: string): ExpectedException => ({ status: 400, code: 'InvalidParameterValue', locator });
const outOfRange = (locator: string): ExpectedException => ({ status: 400, code: 'TileOutOfRange', locator });

describe('WMTS 1.0 GetTile, KVP GET: every layer, format, tile matrix set (07-057r7 §7.2, Table 29)', () => {
  test.each(POSITIONS.map((p) => [p]))(
    'wmts:Server.KVP.GET.GetTile.Mandatory, Valid.Tile.Format, Valid.Tile.Size: the %s TileMatrix of every layer x Format x TileMatrixSetLink answers 200, Content-Type = Format, a tile of that format and TileWidth x TileHeight',
    async (position) => {
      const cases = allTileCases(position as Position);
      if (!cases.length) throw new Error('the capabilities advertise no layer with a format and a tile matrix set');
      assertNoProblems(await tileCaseProblems(cases), cases.length, 'tile requests');
    },
  );

  test('06-121r3 §11.5.2: GetTile parameter names in lower and upper case answer the same tile', async () => {
    const problems: string[] = [];
    for (const c of allBaseCases()) {
      const prefix = c.service.prefix;
      const plain = urlOf(c);
      const query = plain.slice(prefix.length);
      const [a, lower, upper] = await Promise.all([plain, prefix + query.replace(/(^|&)([^=&]+)=/g, (_m, s: string, k: string) => `${s}${k.toLowerCase()}=`), prefix + query.replace(/(^|&)([^=&]+)=/g, (_m, s: string, k: string) => `${s}${k.toUpperCase()}=`)].map((u) => get(u)));
      for (const x of [lower, upper]) if (x.status !== a.status || !x.body.equals(a.body)) problems.push(`GET ${x.url}: ${summary(x)}, but ${a.url} answered ${summary(a)}`);
      if (a.status !== 200) problems.push(`GET ${a.url}: expected 200; got ${summary(a)}`);
    }
    assertNoProblems(problems, allBaseCases().length, 'layers');
  });

  test('wmts:Server.KVP.GET.GetTile.Optional, Default.SampleDimension, Current.SampleDimension: a layer with sample dimensions answers each advertised Value (first, middle, last), no value, "default" and, where Current, "current" (07-057r7 Table 9)', async () => {
    const requests: { url: string; c: TileCase }[] = [];
    dimensionLayers();
    for (const c of allTileCases('first').filter((x, i, all) => x.layer.dimensions.length && all.findIndex((y) => y.layer === x.layer) === i)) {
      const layer = c.layer;
      const prefix = c.service.prefix;
      const mid = { ...c, ...middleTile(c.range) };
      for (const d of layer.dimensions) {
        const values = [...new Set((['first', 'middle', 'last'] as const).map((p) => pick(d.values, p)).filter((v): v is string => v !== undefined))];
        for (const v of values) requests.push({ url: kvpTileUrl(prefix, { ...mid, dimensions: { ...defaultDimensions(layer), [d.id]: v } }), c: mid });
        if (d.default !== undefined) {
          requests.push({ url: kvpTileUrl(prefix, { ...mid, dimensions: {} }), c: mid });
          requests.push({ url: kvpTileUrl(prefix, { ...mid, dimensions: { ...defaultDimensions(layer), [d.id]: 'default' } }), c: mid });
        }
        if (d.current) requests.push({ url: kvpTileUrl(prefix, { ...mid, dimensions: { ...defaultDimensions(layer), [d.id]: 'current' } }), c: mid });
      }
    }
    const problems = await mapLimit(requests, TILE_CONCURRENCY, async ({ url, c }) => {
      const a = await get(url);
      if (a.status !== 200) return [`GET ${url}: expected 200 with a ${c.format} tile; got ${summary(a)}`];
      return tileProblems(a, { format: c.format, width: c.range.tileWidth, height: c.range.tileHeight }, `GET ${url}`);
    });
    assertNoProblems(problems.flat(), requests.length, 'requests of layers with dimensions');
  });
});

describe('WMTS 1.0 GetTile, KVP GET: exceptions (07-057r7 Tables 23-24, 06-121r3 §8; one request per layer)', () => {
  xsdTest.each(GETTILE_PARAMS.map((p) => [p]))(
    'wmts:Server.KVP.GET.GetTile.Missing: without %s -> 400 MissingParameterValue, locator the parameter (07-057r7 Table 29: mandatory)',
    async (param) => {
      await expectErrors(() => ({ [param as string]: null }), { status: 400, code: 'MissingParameterValue', locator: param as string });
    },
  );

  const invalidValues: [string, (c: KvpCase) => Record<string, string> | undefined, ExpectedException | ((c: KvpCase) => ExpectedException)][] = [
    ['wmts:Server.KVP.GET.InvalidService (GetTile): Service=BOGUS -> 400 InvalidParameterValue, locator service', () => ({ Service: 'BOGUS' }), invalid('service')],
    ['wmts:Server.KVP.GET.InvalidRequest (GetTile): Request=GetBOGUS -> 400 InvalidParameterValue, locator request', () => ({ Request: 'GetBOGUS' }), invalid('request')],
    ['06-121r3 Table 25: Version=9.9.9 (not a version the service offers) -> 400 InvalidParameterValue, locator version', () => ({ Version: '9.9.9' }), invalid('version')],
    ['06-121r3 §11.5.2: values are case-sensitive: Request=gettile -> 400 InvalidParameterValue, locator request', () => ({ Request: 'gettile' }), invalid('request')],
    ['wmts:Server.KVP.GET.GetTile.Invalid.Layer: Layer=BogusForTest -> 400 InvalidParameterValue, locator layer', () => ({ Layer: 'BogusForTest' }), invalid('layer')],
    ['wmts:Server.KVP.GET.GetTile.Invalid.Tile.Style: Style=BogusForTest -> 400 InvalidParameterValue, locator style', () => ({ Style: 'BogusForTest' }), invalid('style')],
    ['wmts:Server.KVP.GET.GetTile.Invalid.Tile.Format: Format=image/bogus -> 400 InvalidParameterValue, locator format', () => ({ Format: 'image/bogus' }), invalid('format')],
    [
      '07-057r7 Table 29: a Format of another layer that this layer does not list -> 400 InvalidParameterValue, locator format',
      (c) => {
        const other = allLayers.flatMap((l) => l.formats).find((f) => !c.layer.formats.includes(f));
        return other ? { Format: other } : undefined;
      },
      invalid('format'),
    ],
    ['wmts:Server.KVP.GET.GetTile.Invalid.TileMatrixSet: TileMatrixSet=BogusForTest -> 400 InvalidParameterValue, locator TileMatrixSet', () => ({ TileMatrixSet: 'BogusForTest' }), invalid('TileMatrixSet')],
    [
      '07-057r7 Table 29: a TileMatrixSet the layer does not link -> 400 InvalidParameterValue, locator TileMatrixSet',
      (c) => {
        const other = allSets.find((t) => !c.layer.links.some((k) => k.tms === t.id));
        return other ? { TileMatrixSet: other.id } : undefined;
      },
      invalid('TileMatrixSet'),
    ],
    ['wmts:Server.KVP.GET.GetTile.Invalid.TileMatrix: TileMatrix=BogusForTest -> 400 InvalidParameterValue, locator TileMatrix', () => ({ TileMatrix: 'BogusForTest' }), invalid('TileMatrix')],
    ['06-121r3 Table 25: TileRow=x (not an integer) -> 400 InvalidParameterValue, locator TileRow', () => ({ TileRow: 'x' }), invalid('TileRow')],
    ['06-121r3 Table 25: TileCol=x (not an integer) -> 400 InvalidParameterValue, locator TileCol', () => ({ TileCol: 'x' }), invalid('TileCol')],
    ['wmts:Server.KVP.GET.GetTile.Invalid.Tile.Row.TileMatrixSetLimits: TileRow = MaxTileRow + 1 -> 400 TileOutOfRange, locator TileRow', (c) => ({ TileRow: String(c.range.maxRow + 1) }), outOfRange('TileRow')],
    ['wmts:Server.KVP.GET.GetTile.Invalid.Tile.Col.TileMatrixSetLimits: TileCol = MaxTileCol + 1 -> 400 TileOutOfRange, locator TileCol', (c) => ({ TileCol: String(c.range.maxCol + 1) }), outOfRange('TileCol')],
    ['07-057r7 Table 23: TileRow = MinTileRow - 1 (where the limits start above 0) -> 400 TileOutOfRange, locator TileRow', (c) => (c.range.minRow > 0 ? { TileRow: String(c.range.minRow - 1) } : undefined), outOfRange('TileRow')],
    ['07-057r7 Table 23: TileCol = MinTileCol - 1 (where the limits start above 0) -> 400 TileOutOfRange, locator TileCol', (c) => (c.range.minCol > 0 ? { TileCol: String(c.range.minCol - 1) } : undefined), outOfRange('TileCol')],
    ['07-057r7 Table 23: TileRow = MatrixHeight (outside the matrix) -> 400 TileOutOfRange, locator TileRow', (c) => ({ TileRow: String(c.range.matrixHeight) }), outOfRange('TileRow')],
    ['07-057r7 Table 23: TileCol = MatrixWidth (outside the matrix) -> 400 TileOutOfRange, locator TileCol', (c) => ({ TileCol: String(c.range.matrixWidth) }), outOfRange('TileCol')],
    ['07-057r7 Table 23: TileRow=-1 -> 400 TileOutOfRange (or InvalidParameterValue), locator TileRow', () => ({ TileRow: '-1' }), { status: 400, code: ['TileOutOfRange', 'InvalidParameterValue'], locator: 'TileRow' }],
    ['07-057r7 Table 23: TileCol=-1 -> 400 TileOutOfRange (or InvalidParameterValue), locator TileCol', () => ({ TileCol: '-1' }), { status: 400, code: ['TileOutOfRange', 'InvalidParameterValue'], locator: 'TileCol' }],
  ];

  xsdTest.each(invalidValues)('%s', async (_title, change, expected) => {
    await expectErrors(change, expected);
  });

  xsdTest('wmts:Server.KVP.GET.GetTile.Invalid.SampleDimension.Value: a dimension value not advertised -> 400 InvalidParameterValue, locator the dimension (07-057r7 Table 29)', async () => {
    dimensionLayers();
    const withDims = allBaseCases().filter((c) => c.layer.dimensions.length);
    const cases = (
      await Promise.all(
        withDims.map((c) =>
          errorCases([c], (x) => ({ [x.layer.dimensions[0].id]: 'BogusForTest' }), invalid(c.layer.dimensions[0].id)),
        ),
      )
    ).flat();
    assertNoProblems(await exceptionCaseProblems(cases, scratch), cases.length, 'requests');
  });

  xsdTest('07-057r7 Table 23: a TileMatrix the layer leaves out (one of its set that its TileMatrixSetLimits leave out, 17-083r4: not available; or, where its set holds only the zooms it has, a matrix another set of the capabilities defines) -> 400 TileOutOfRange or InvalidParameterValue', async () => {
    // This server gives each layer a set of exactly its zooms, limits for each: the first kind never occurs here, so
    // the matrix a client could still name (another set's, a zoom this layer does not have) is asked instead.
    const otherMatrices = [...new Set(allSets.flatMap((t) => t.matrices.map((m) => m.id)))];
    const cases = allBaseCases().flatMap((c) => {
      const { ranges } = layerMatrices(c.service.caps, c.tms.id, c.layer);
      const own = new Set(c.tms.matrices.map((m) => m.id));
      const missing = c.tms.matrices.find((m) => !ranges.some((r) => r.matrix === m.id))?.id ?? otherMatrices.find((id) => !own.has(id));
      return missing ? [{ ...c, range: { ...c.range, matrix: missing }, row: 0, col: 0, style: styleOf(c.layer) }] : [];
    });
    if (!cases.length) throw new Error('no layer leaves out a TileMatrix: every set of the capabilities holds the same matrices and every layer offers them all');
    const answers = await mapLimit(cases, TILE_CONCURRENCY, async (c) => {
      const url = urlOf(c);
      return { answer: await get(url), expected: { status: 400, code: ['TileOutOfRange', 'InvalidParameterValue'] }, label: `GET ${url} (${c.layer.id})` } satisfies ExceptionCase;
    });
    assertNoProblems(await exceptionCaseProblems(answers, scratch), answers.length, 'requests');
  });
});
