// Every WMTS capabilities document the server publishes (whole, and each Section alone) validates against the OGC WMTS 1.0 schema
// (wmtsGetCapabilities_response.xsd, with OWS 1.1 and XLink beside it, as shipped by Debian's
// python3-mapproxy), offline: xmllint --nonet, and the schema's imports are all relative paths.
// (wmts.xsd, the all-in-one schema, also pulls in GetFeatureInfo and GML 3.1.1, which are not shipped.)
//
// One known erratum of the 2009 schema is corrected first: it types MinTileRow, MaxTileRow, MinTileCol and
// MaxTileCol of TileMatrixLimits as xs:positiveInteger although the standard (07-057r7, table 14 and its
// annotation "From 0 to maxTileRow") counts rows and columns from 0, so any layer whose limits include the
// first row or column (every world layer) would fail (GeoWebCache#250, #411: reported to the OGC, never fixed).
// The corrected copy is written to a temporary directory and imports the shipped OWS/XLink schemas.
// Valid is not the same as usable: the client tests check that. The WMTS routes' errors, OWS 1.1 ExceptionReports,
// are validated against owsExceptionReport.xsd beside it.
import { existsSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { type InteropServer, startInteropServer } from './helpers';
import { gatedTest } from '../helpers/clients';
import { fetchOk } from '../helpers/fetch';
import { assertOk, clientEnv, run } from '../helpers/run';
import { tempDirs } from '../helpers/temp-dirs';
import { correctedSchema, findSchema } from '../helpers/wmts-schema';

const { tempDir, removeTempDirs } = tempDirs('tilemirror-xmllint-');

describe('WMTS documents validate against the WMTS 1.0 and OWS 1.1 XSDs (xmllint, offline)', () => {
  const clientTest = gatedTest('xmllint with the WMTS 1.0 XSD', {
    bins: ['xmllint', 'dpkg'],
    packages: ['libxml2-utils', 'python3-mapproxy'],
  });
  let server: InteropServer;
  let tmp: string;
  let capabilitiesXsd: string | undefined;
  let exceptionXsd: string | undefined;

  beforeAll(async () => {
    server = await startInteropServer();
    tmp = tempDir();
    const shipped = await findSchema();
    capabilitiesXsd = shipped && correctedSchema(shipped, tmp);
    exceptionXsd = shipped && path.resolve(path.dirname(shipped), '..', '..', 'ows', '1.1.0', 'owsExceptionReport.xsd');
  });
  afterAll(async () => {
    await server?.close();
    removeTempDirs();
  });

  /** xmllint's verdict on a document against a schema, failing the test with its errors. */
  async function expectValid(label: string, url: string, body: string | Buffer, xsd: string | undefined): Promise<void> {
    if (!xsd || !existsSync(xsd)) throw new Error(`python3-mapproxy is installed but the schema ${xsd ?? ''} was not found (dpkg -L python3-mapproxy)`);
    const file = path.join(tmp, `${label.replace(/[^\w]+/g, '_')}.xml`);
    writeFileSync(file, body);
    const r = await run('xmllint', ['--noout', '--nonet', '--schema', xsd, file], { env: clientEnv(), timeoutMs: 30_000 });
    // A schema that could not be loaded makes xmllint skip validation with a warning: treat as failure.
    expect(r.stderr).not.toMatch(/failed to load|I\/O error|Skipping the import/);
    if (r.code !== 0) throw new Error(`${label} (${url}) does not validate:\n${r.stderr.slice(0, 4000)}`);
    assertOk(r);
    expect(r.stderr).toMatch(/validates/);
  }

  const documents: [string, string][] = [
    ['map (per resource)', '/maps/sample/WMTSCapabilities.xml'],
    ['tile set (per resource)', '/tiles/sample-terrain/WMTSCapabilities.xml'],
    ['vector tile set (per resource)', '/tiles/sample-vector/WMTSCapabilities.xml'],
    ['image (per resource)', '/images/sample-image/WMTSCapabilities.xml'],
    ['service-wide, RESTful', '/wmts/1.0.0/WMTSCapabilities.xml'],
    ['service-wide, KVP GetCapabilities', '/wmts?SERVICE=WMTS&REQUEST=GetCapabilities'],
    ['service-wide, KVP GetCapabilities as OWSLib asks', '/wmts?service=WMTS&request=GetCapabilities&version=1.0.0'],
    ['map, as OWSLib asks', '/maps/sample/WMTSCapabilities.xml?service=WMTS&request=GetCapabilities&version=1.0.0'],
    ['service-wide, AcceptVersions and Sections=All', '/wmts?SERVICE=WMTS&REQUEST=GetCapabilities&AcceptVersions=1.0.0&Sections=All'],
    ['the weather variables (layers with a Time dimension)', '/weather/WMTSCapabilities.xml'],
    ['service-wide, a Time made the Default', '/wmts/1.0.0/WMTSCapabilities.xml?TIME=2024-01-01T00:00:00Z'],
    ...['ServiceIdentification', 'ServiceProvider', 'OperationsMetadata', 'Contents', 'Themes', 'Contents,Themes'].map(
      (sections): [string, string] => [`service-wide, Sections=${sections}`, `/wmts?SERVICE=WMTS&REQUEST=GetCapabilities&Sections=${sections}`],
    ),
  ];

  clientTest.each(documents)('capabilities, %s: %s', async (label, route) => {
    const url = `${server.url}${route}${route.includes('?') ? '&' : '?'}key=demo`;
    const { body, contentType } = await fetchOk(url);
    expect(contentType).toMatch(/^(text|application)\/xml\b/);
    await expectValid(label, url, body, capabilitiesXsd);
  });

  // Every error of the WMTS routes is an OWS 1.1 ExceptionReport: a sample of each binding and status validated
  // against owsExceptionReport.xsd as shipped (the full table of cases runs in test/integration/documents.test.ts).
  const reports: [string, string, number][] = [
    ['KVP without parameters', '/wmts?key=demo', 400],
    ['KVP version negotiation', '/wmts?SERVICE=WMTS&REQUEST=GetCapabilities&AcceptVersions=1.1.0,1.2.0&key=demo', 400],
    ['KVP GetFeatureInfo', '/wmts?SERVICE=WMTS&REQUEST=GetFeatureInfo&VERSION=1.0.0&key=demo', 501],
    [
      'KVP row out of range',
      '/wmts?SERVICE=WMTS&REQUEST=GetTile&VERSION=1.0.0&LAYER=maps/sample&STYLE=default&FORMAT=image/png&TILEMATRIXSET=GoogleMapsCompatible512-z0-5&TILEMATRIX=3&TILEROW=8&TILECOL=3&key=demo',
      400,
    ],
    ['RESTful unknown layer', '/wmts/1.0.0/BogusForTest/default/GoogleMapsCompatible512-z0-5/3/2/4.png?key=demo', 404],
    ['RESTful missing segment', '/wmts/1.0.0/maps/sample/default//3/2/4.png?key=demo', 404],
    ['refused key', '/maps/sample/WMTSCapabilities.xml?key=nope', 403],
    [
      'KVP Time not advertised',
      '/wmts?SERVICE=WMTS&REQUEST=GetTile&VERSION=1.0.0&LAYER=weather/temperature-2m.sample&STYLE=default&FORMAT=image/png&TILEMATRIXSET=GoogleMapsCompatible256-z0-2&TILEMATRIX=1&TILEROW=0&TILECOL=1&TIME=2024-01-01T03:00:00Z&key=demo',
      400,
    ],
    ['RESTful Time not advertised', '/wmts/1.0.0/weather/temperature-2m.sample/default/2024-01-01T03:00:00Z/GoogleMapsCompatible256-z0-2/1/0/1.png?key=demo', 404],
  ];

  clientTest.each(reports)('exception report, %s: %s', async (label, route, status) => {
    const url = `${server.url}${route}`;
    const res = await fetch(url);
    expect([res.status, res.headers.get('content-type')]).toEqual([status, 'application/xml; charset=utf-8']);
    await expectValid(label, url, await res.text(), exceptionXsd);
  });
});
