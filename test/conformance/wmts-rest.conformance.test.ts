// WMTS 1.0 conformance, GetTile over the RESTful binding, written from OGC 07-057r7 (§7.2.3, §10.2, Table 32) and the
// assertions of ets-wmts10 (wmts:Server.RESTful.GetTile.*, their names head the titles). The tiles are addressed
// through the ResourceURL templates of the RESTful ServiceMetadata document (the ServiceMetadataURL of the service):
// every layer, every Format, every linked tile matrix set, at the first, middle and last TileMatrix of its limits.
// Errors: 07-057r7 §7.2.3 leaves RESTful errors to HTTP (ets-wmts10 asks for an error status, and counts 404 with an
// ExceptionReport naming the code and locator as best practice); the issue asks every WMTS error to be an OWS 1.1
// ExceptionReport, so a 400 or 404 with a schema-valid report and the KVP binding's code and locator is expected.
import { startServer, type TestServer } from '../helpers/server';
import { gatedTest } from '../helpers/clients';
import { assertNoProblems, get, mapLimit, summary, TILE_CONCURRENCY } from './lib/http';
import { exceptionCaseProblems, type ExceptionCase, type ExpectedException } from './lib/ows-exception';
import { middleTile, pick, POSITIONS, type Position } from './lib/sampling';
import { tileProblems } from './lib/tile-content';
import type { Capabilities } from './lib/wmts-capabilities';
import { baseCases, capabilitiesEntry, caseLabel, defaultDimensions, fetchCapabilities, fillTemplate, restVars, tileCases, tileTemplates, type TileCase } from './lib/wmts';
import { XMLLINT_CHECK } from './lib/xml-schema';
import { tempDirs } from '../helpers/temp-dirs';

const { tempDir, removeTempDirs } = tempDirs('tilemirror-conformance-');

const xsdTest = gatedTest('xmllint with the OWS 1.1 ExceptionReport XSD', XMLLINT_CHECK);

let server: TestServer;
let scratch: string;
let caps: Capabilities;

beforeAll(async () => {
  server = await startServer();
  scratch = tempDir();
  const kvp = (await fetchCapabilities(capabilitiesEntry(server.url))).caps;
  const restful = kvp.serviceMetadataUrls[0];
  if (!restful) throw new Error('the capabilities have no ServiceMetadataURL: the RESTful binding cannot be found (07-057r7 §7.1.1)');
  caps = (await fetchCapabilities(restful)).caps;
});

afterAll(async () => {
  await server?.close();
  removeTempDirs();
});

interface RestRequest {
  url: string;
  c: TileCase;
}

/** The URL of a case through each of its layer's templates for its format, with `change` over its variables. */
function restRequests(cases: readonly TileCase[], change: (c: TileCase) => Record<string, string> = () => ({})): { requests: RestRequest[]; problems: string[] } {
  const problems: string[] = [];
  const requests = cases.flatMap((c) => {
    const templates = tileTemplates(c.layer, c.format);
    if (!templates.length) problems.push(`layer ${c.layer.id} has no ResourceURL resourceType="tile" for Format ${c.format} (07-057r7 §10.2.1; ets-wmts10 RESTful.GetTile.Mandatory)`);
    return templates.map((t) => ({ url: fillTemplate(t, restVars(c, change(c))), c }));
  });
  return { requests, problems };
}

async function tileRequestProblems(requests: readonly RestRequest[]): Promise<string[]> {
  const problems = await mapLimit(requests, TILE_CONCURRENCY, async ({ url, c }) => {
    const a = await get(url);
    const label = `GET ${url} (${caseLabel(c)})`;
    if (a.status === 204) return [`${label}: 204 No Content; WMTS 1.0 has no empty answer: 07-057r7 §7.2.3 and ets-wmts10 want a tile in the requested Format for every address inside TileMatrixSetLimits`];
    if (a.status !== 200) return [`${label}: expected 200 with a ${c.format} tile; got ${summary(a)}`];
    return tileProblems(a, { format: c.format, width: c.range.tileWidth, height: c.range.tileHeight }, label);
  });
  return problems.flat();
}

function dimensionLayers(c: Capabilities): Capabilities['layers'] {
  const layers = c.layers.filter((l) => l.dimensions.length);
  if (!layers.length) throw new Error('no layer of the RESTful capabilities has a <Dimension>; expected the weather variables as layers with a Time dimension and a {Time} template variable (07-057r7 Table 9, §10.2.1)');
  return layers;
}

const ERROR_STATUS = [400, 404] as const;

/** Spoils the middle tile of each layer through each template, expects a 400/404 ExceptionReport. */
async function expectRestErrors(change: (c: TileCase, template: string) => { vars?: Record<string, string>; url?: string } | undefined, expected: (c: TileCase, template: string) => ExpectedException): Promise<void> {
  const cases: ExceptionCase[] = [];
  const requests = baseCases(caps).flatMap((c) =>
    tileTemplates(c.layer, c.format).flatMap((t) => {
      const ch = change(c, t);
      if (!ch) return [];
      return [{ url: ch.url ?? fillTemplate(t, restVars(c, ch.vars)), c, t }];
    }),
  );
  cases.push(...(await mapLimit(requests, TILE_CONCURRENCY, async ({ url, c, t }) => ({ answer: await get(url), expected: expected(c, t), label: `GET ${url} (${c.layer.id})` }))));
  assertNoProblems(await exceptionCaseProblems(cases, scratch), cases.length, 'requests');
}

const restError = (code: string | string[], locator?: string): ExpectedException => ({ status: ERROR_STATUS, code, locator });
const variableIn = (template: string, name: string): boolean => new RegExp(`\\{${name}\\}`, 'i').test(template);

describe('WMTS 1.0 GetTile, RESTful: every layer, format, tile matrix set through its ResourceURL templates (07-057r7 §10.2.1)', () => {
  test.each(POSITIONS.map((p) => [p]))(
    'wmts:Server.RESTful.GetTile.Mandatory, Valid.Tile.Format, Valid.Tile.Size: the %s TileMatrix of every layer x Format x TileMatrixSetLink through every tile ResourceURL answers 200, Content-Type = the format, a tile of that format and TileWidth x TileHeight',
    async (position) => {
      const cases = tileCases(caps, position as Position);
      if (!cases.length) throw new Error('the RESTful capabilities advertise no layer with a format and a tile matrix set');
      const { requests, problems } = restRequests(cases);
      problems.push(...(await tileRequestProblems(requests)));
      assertNoProblems(problems, requests.length, 'tile requests');
    },
  );

  test('wmts:Server.RESTful.GetTile.Optional, Default.SampleDimension, Current.SampleDimension: a dimension variable of the template answers each advertised Value (first, middle, last), "default" and, where Current, "current" (07-057r7 Table 9, §10.2.1)', async () => {
    const requests: RestRequest[] = [];
    for (const layer of dimensionLayers(caps)) {
      const c = tileCases(caps, 'first').find((x) => x.layer === layer);
      if (!c) continue;
      const mid = { ...c, ...middleTile(c.range) };
      for (const d of layer.dimensions) {
        const values = [...new Set((['first', 'middle', 'last'] as const).map((p) => pick(d.values, p)).filter((v): v is string => v !== undefined))];
        if (d.default !== undefined) values.push('default');
        if (d.current) values.push('current');
        for (const v of values) requests.push(...restRequests([{ ...mid, dimensions: { ...defaultDimensions(layer), [d.id]: v } }]).requests);
      }
    }
    assertNoProblems(await tileRequestProblems(requests), requests.length, 'requests of layers with dimensions');
  });

  test('wmts:Server.RESTful.GetTile.Missing: a template variable left empty -> an HTTP error status (400 or 404), never a tile', async () => {
    const requests = baseCases(caps).flatMap((c) =>
      tileTemplates(c.layer, c.format).flatMap((t) =>
        ['Style', 'TileMatrixSet', 'TileMatrix', 'TileRow', 'TileCol'].filter((v) => variableIn(t, v)).map((v) => ({ url: fillTemplate(t, restVars(c, { [v]: '' })), c, v })),
      ),
    );
    const problems = (
      await mapLimit(requests, TILE_CONCURRENCY, async ({ url, v }) => {
        const a = await get(url);
        return ERROR_STATUS.includes(a.status as 400 | 404) ? [] : [`GET ${url} ({${v}} empty): expected 400 or 404; got ${summary(a)}`];
      })
    ).flat();
    assertNoProblems(problems, requests.length, 'requests');
  });
});

describe('WMTS 1.0 GetTile, RESTful: errors as OWS 1.1 ExceptionReports with 400 or 404 (07-057r7 §7.2.3, Table 23; issue Must 1)', () => {
  xsdTest('wmts:Server.RESTful.GetTile.Invalid.TileMatrix: {TileMatrix}=BogusForTest -> 400/404, InvalidParameterValue, locator TileMatrix', async () => {
    await expectRestErrors(() => ({ vars: { TileMatrix: 'BogusForTest' } }), () => restError('InvalidParameterValue', 'TileMatrix'));
  });

  xsdTest('wmts:Server.RESTful.GetTile.Invalid.Tile.Row.TileMatrixSetLimits: {TileRow} = MaxTileRow + 1 -> 400/404, TileOutOfRange, locator TileRow', async () => {
    await expectRestErrors((c) => ({ vars: { TileRow: String(c.range.maxRow + 1) } }), () => restError('TileOutOfRange', 'TileRow'));
  });

  xsdTest('wmts:Server.RESTful.GetTile.Invalid.Tile.Col.TileMatrixSetLimits: {TileCol} = MaxTileCol + 1 -> 400/404, TileOutOfRange, locator TileCol', async () => {
    await expectRestErrors((c) => ({ vars: { TileCol: String(c.range.maxCol + 1) } }), () => restError('TileOutOfRange', 'TileCol'));
  });

  xsdTest('07-057r7 Table 23: {TileRow} = MatrixHeight and {TileCol} = MatrixWidth (outside the matrix) -> 400/404, TileOutOfRange', async () => {
    await expectRestErrors((c) => ({ vars: { TileRow: String(c.range.matrixHeight) } }), () => restError('TileOutOfRange', 'TileRow'));
    await expectRestErrors((c) => ({ vars: { TileCol: String(c.range.matrixWidth) } }), () => restError('TileOutOfRange', 'TileCol'));
  });

  xsdTest('06-121r3 Table 25: {TileRow}=x and {TileCol}=x (not integers) -> 400/404, InvalidParameterValue (or TileOutOfRange), locator the variable', async () => {
    await expectRestErrors(() => ({ vars: { TileRow: 'x' } }), () => restError(['InvalidParameterValue', 'TileOutOfRange'], 'TileRow'));
    await expectRestErrors(() => ({ vars: { TileCol: 'x' } }), () => restError(['InvalidParameterValue', 'TileOutOfRange'], 'TileCol'));
  });

  xsdTest('wmts:Server.RESTful.GetTile.Invalid.TileMatrixSet: {TileMatrixSet}=BogusForTest (templates with the variable) -> 400/404, InvalidParameterValue, locator TileMatrixSet', async () => {
    await expectRestErrors((_c, t) => (variableIn(t, 'TileMatrixSet') ? { vars: { TileMatrixSet: 'BogusForTest' } } : undefined), () => restError('InvalidParameterValue', 'TileMatrixSet'));
  });

  xsdTest('wmts:Server.RESTful.GetTile.Invalid.Tile.Style: {Style}=BogusForTest (templates with the variable) -> 400/404, InvalidParameterValue, locator Style', async () => {
    await expectRestErrors((_c, t) => (variableIn(t, 'Style') ? { vars: { Style: 'BogusForTest' } } : undefined), () => restError('InvalidParameterValue', 'Style'));
  });

  xsdTest('wmts:Server.RESTful.GetTile.Invalid.Layer: the layer identifier in the template replaced by BogusForTest -> 400/404, InvalidParameterValue, locator layer', async () => {
    await expectRestErrors(
      (c, t) => {
        const url = fillTemplate(t, restVars(c));
        for (const form of [c.layer.id, encodeURIComponent(c.layer.id)]) if (url.includes(form)) return { url: url.replace(form, 'BogusForTest') };
        return undefined; // the template does not spell the layer out (ets-wmts10 skips such a template)
      },
      () => restError('InvalidParameterValue', 'layer'),
    );
  });

  xsdTest('wmts:Server.RESTful.GetTile.Invalid.SampleDimension.Value: a dimension variable with a value not advertised -> 400/404, InvalidParameterValue, locator the dimension', async () => {
    dimensionLayers(caps);
    await expectRestErrors(
      (c, t) => {
        const d = c.layer.dimensions.find((x) => variableIn(t, x.id));
        return d ? { vars: { [d.id]: 'BogusForTest' } } : undefined;
      },
      (c, t) => restError('InvalidParameterValue', c.layer.dimensions.find((x) => variableIn(t, x.id))?.id),
    );
  });
});
