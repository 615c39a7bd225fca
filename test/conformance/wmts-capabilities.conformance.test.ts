// WMTS 1.0 conformance, GetCapabilities over both bindings and the common operation rules, written from OGC 07-057r7
// (WMTS 1.0 §7.1, §8.1, §10.1, Annex E), OGC 06-121r3 (OWS Common 1.1 §7, §8, §11.5) and the assertions of the OGC
// test suite ets-wmts10 (its test names head each title: wmts:Server.KVP.GET.GetCapabilities.*,
// wmts:Server.RESTful.*, wmts:Server.KVP.GET.Invalid*). Everything is discovered from the server's documents: the
// one input is the KVP GetCapabilities URL of the service, as for the OGC harness, plus the capabilities documents the
// server's index page links (one per resource).
//
// A test that covers many documents or requests reports every failing one, with what was expected and what came.
import { KEY, startServer, type TestServer } from '../helpers/server';
import { gatedTest, missingPartsSync } from '../helpers/clients';
import { assertNoProblems, get, summary, withParams, type Answer } from './lib/http';
import { exceptionCaseProblems, type ExceptionCase } from './lib/ows-exception';
import { getBindings, parseCapabilities, text, type Capabilities } from './lib/wmts-capabilities';
import { capabilitiesEntry, linkedCapabilities } from './lib/wmts';
import { correctedCapabilitiesSchema, validateAll, XMLLINT_CHECK } from './lib/xml-schema';
import { tempDirs } from '../helpers/temp-dirs';

const { tempDir, removeTempDirs } = tempDirs('tilemirror-conformance-');

const xsdTest = gatedTest('xmllint with the WMTS 1.0 and OWS 1.1 XSDs', XMLLINT_CHECK);

const REQUIRED_SECTIONS = ['ServiceIdentification', 'ServiceProvider', 'OperationsMetadata', 'Contents'];
const ALL_SECTIONS = [...REQUIRED_SECTIONS, 'Themes'];

interface CapabilitiesDocument {
  label: string;
  url: string;
  answer: Answer;
  caps?: Capabilities;
}

let server: TestServer;
let scratch: string;
let entry: string;
let service: Capabilities;
let documents: CapabilitiesDocument[];
let capsXsd: string | undefined;

async function fetchDocument(label: string, url: string): Promise<CapabilitiesDocument> {
  const answer = await get(url);
  let caps: Capabilities | undefined;
  try {
    caps = answer.status === 200 ? parseCapabilities(answer.body.toString('utf8')) : undefined;
  } catch {
    caps = undefined;
  }
  return { label, url, answer, caps };
}

/** Every capabilities document the server offers: the service's (KVP, RESTful) and each one its index page links. */
async function discoverDocuments(serverUrl: string, entryUrl: string, caps: Capabilities): Promise<CapabilitiesDocument[]> {
  const linked = await linkedCapabilities(serverUrl);
  const urls = new Map<string, string>([[entryUrl, 'service, KVP GetCapabilities']]);
  for (const u of caps.serviceMetadataUrls) urls.set(u, 'service, RESTful ServiceMetadataURL');
  for (const u of linked) if (![...urls.keys()].some((k) => k === u)) urls.set(u, `linked from the index page`);
  const docs = await Promise.all([...urls].map(([u, label]) => fetchDocument(label, u)));
  // Each resource's document is a service of its own: its advertised KVP GetCapabilities answers too.
  const kvp = docs.flatMap((d) =>
    d.caps && d.url !== entryUrl
      ? getBindings(d.caps, 'GetCapabilities', 'KVP').map((g) => withParams(g.href, [['SERVICE', 'WMTS'], ['REQUEST', 'GetCapabilities']]))
      : [],
  );
  const more = await Promise.all([...new Set(kvp)].filter((u) => !urls.has(u)).map((u) => fetchDocument('KVP GetCapabilities of a linked document', u)));
  return [...docs, ...more];
}

beforeAll(async () => {
  server = await startServer();
  scratch = tempDir();
  entry = capabilitiesEntry(server.url);
  const first = await fetchDocument('service', entry);
  if (!first.caps) throw new Error(`GET ${entry}: ${summary(first.answer)}; every test of this file needs the capabilities`);
  service = first.caps;
  documents = await discoverDocuments(server.url, entry, service);
  if (!missingPartsSync(XMLLINT_CHECK).length) capsXsd = correctedCapabilitiesSchema(scratch);
});

afterAll(async () => {
  await server?.close();
  removeTempDirs();
});

/** The KVP GetCapabilities URL of the service with `query` (raw, as written) appended to the advertised Get href. */
function kvpCapabilities(query: string): string {
  const href = getBindings(service, 'GetCapabilities', 'KVP')[0]?.href ?? entry.split('?')[0] + `?key=${KEY}&`;
  return href + (href.endsWith('?') || href.endsWith('&') ? '' : href.includes('?') ? '&' : '?') + query;
}

async function expectExceptions(requests: { query: string; expected: ExceptionCase['expected'] }[]): Promise<void> {
  const cases = await Promise.all(
    requests.map(async (r) => {
      const url = kvpCapabilities(r.query);
      return { answer: await get(url), expected: r.expected, label: `GET ${url}` };
    }),
  );
  assertNoProblems(await exceptionCaseProblems(cases, scratch), cases.length, 'error answers');
}

function sectionProblems(d: CapabilitiesDocument, required: readonly string[]): string[] {
  if (d.answer.status !== 200) return [`${d.label} ${d.url}: expected 200 with a Capabilities document; got ${summary(d.answer)}`];
  if (!/^(text|application)\/xml$/.test(d.answer.mediaType)) return [`${d.label} ${d.url}: Content-Type ${d.answer.contentType}, expected text/xml or application/xml`];
  const c = d.caps;
  if (!c || c.root !== 'Capabilities') return [`${d.label} ${d.url}: the root element is ${c?.root ?? '(none)'}, expected wmts:Capabilities`];
  const problems: string[] = [];
  if (c.version !== '1.0.0') problems.push(`${d.label} ${d.url}: Capabilities version="${c.version}", expected 1.0.0`);
  for (const s of required) if (!c.sections.includes(s)) problems.push(`${d.label} ${d.url}: no ${s} section (present: ${c.sections.join(', ')})`);
  return problems;
}

describe('WMTS 1.0 GetCapabilities, KVP GET and RESTful (OGC 07-057r7 §7.1, 06-121r3 §7)', () => {
  test('wmts:Server.KVP.GET.GetCapabilities.Request.Mandatory: SERVICE=WMTS&REQUEST=GetCapabilities answers a 1.0.0 Capabilities with ServiceIdentification, ServiceProvider, OperationsMetadata and Contents (07-057r7 §7.1.1)', () => {
    assertNoProblems(sectionProblems(documents[0], REQUIRED_SECTIONS), 1, 'documents');
  });

  test('wmts:Server.RESTful.GetCapabilities.Request.Mandatory: every ServiceMetadataURL answers the complete document and names itself (07-057r7 §7.1.3, §10.1)', async () => {
    const problems: string[] = [];
    if (!service.serviceMetadataUrls.length) problems.push('the service capabilities have no ServiceMetadataURL (07-057r7 §7.1.1: the RESTful binding is found through it)');
    for (const url of service.serviceMetadataUrls) {
      const d = documents.find((x) => x.url === url) ?? (await fetchDocument('ServiceMetadataURL', url));
      problems.push(...sectionProblems(d, REQUIRED_SECTIONS));
      if (d.caps && !d.caps.serviceMetadataUrls.includes(url)) problems.push(`${url}: its ServiceMetadataURL is ${d.caps.serviceMetadataUrls.join(', ') || '(none)'}, expected the URL requested`);
    }
    assertNoProblems(problems, service.serviceMetadataUrls.length, 'ServiceMetadataURLs');
  });

  test('every capabilities document the server links (service KVP and RESTful, each resource) has the four required sections and version 1.0.0 (07-057r7 §7.1.1, ETS check.GetCapabilities.Request.Mandatory)', () => {
    assertNoProblems(documents.flatMap((d) => sectionProblems(d, REQUIRED_SECTIONS)), documents.length, 'documents');
  });

  xsdTest('wmts:Server.KVP.GET.GetCapabilities.Response.XML.Well.Formed / SchemaReferenced / SchemaValid: every capabilities document references and validates against wmtsGetCapabilities_response.xsd (xmllint --nonet)', async () => {
    const docs = documents.filter((d) => d.answer.status === 200);
    const verdicts = await validateAll(docs.map((d) => d.answer.body.toString('utf8')), capsXsd as string, scratch);
    const problems = docs.flatMap((d, i) => {
      const p: string[] = [];
      if (!verdicts[i].valid) p.push(`${d.label} ${d.url} does not validate:\n${verdicts[i].errors.slice(0, 1500)}`);
      if (!/wmts(GetCapabilities_response)?\.xsd/.test(d.caps?.schemaLocation ?? '')) p.push(`${d.label} ${d.url}: xsi:schemaLocation "${d.caps?.schemaLocation ?? ''}" names neither wmts.xsd nor wmtsGetCapabilities_response.xsd`);
      return p;
    });
    assertNoProblems(problems, docs.length, 'documents');
  });

  test('ServiceIdentification: ServiceType "OGC WMTS", ServiceTypeVersion 1.0.0, a Title (06-121r3 §7.4.4 Table 14, 07-057r7 §7.1.1.1) in every document', () => {
    const problems = documents.flatMap((d) => {
      const si = d.caps?.serviceIdentification;
      if (!si) return [`${d.label} ${d.url}: no ServiceIdentification`];
      const p: string[] = [];
      if (text(si.ServiceType) !== 'OGC WMTS') p.push(`${d.url}: ServiceType "${text(si.ServiceType)}", expected "OGC WMTS"`);
      const versions = ([] as unknown[]).concat(si.ServiceTypeVersion ?? []).map(text);
      if (!versions.includes('1.0.0')) p.push(`${d.url}: ServiceTypeVersion ${versions.join(', ') || '(none)'}, expected 1.0.0`);
      if (!text(si.Title)) p.push(`${d.url}: ServiceIdentification has no Title`);
      return p;
    });
    assertNoProblems(problems, documents.length, 'documents');
  });

  test('ServiceIdentification describes the service: Abstract, Keywords, Fees and AccessConstraints (issue Must 3, from the configuration with defaults; 06-121r3 Table 14)', () => {
    const problems = documents.flatMap((d) => {
      const si = d.caps?.serviceIdentification ?? {};
      return ['Abstract', 'Keywords', 'Fees', 'AccessConstraints'].filter((k) => si[k] === undefined).map((k) => `${d.label} ${d.url}: ServiceIdentification has no ${k}`);
    });
    assertNoProblems(problems, documents.length, 'documents');
  });

  test('ServiceProvider: ProviderName, ProviderSite and ServiceContact (06-121r3 §7.4.5 Table 15; ets-wmts10 requires the section)', () => {
    const problems = documents.flatMap((d) => {
      const sp = d.caps?.serviceProvider;
      if (!sp) return [`${d.label} ${d.url}: no ows:ServiceProvider section`];
      const p: string[] = [];
      if (!text(sp.ProviderName)) p.push(`${d.url}: ServiceProvider has no ProviderName`);
      const site = sp.ProviderSite as Record<string, unknown> | undefined;
      if (!site || !String(site['@href'] ?? '')) p.push(`${d.url}: ServiceProvider has no ProviderSite xlink:href`);
      if (sp.ServiceContact === undefined) p.push(`${d.url}: ServiceProvider has no ServiceContact`);
      return p;
    });
    assertNoProblems(problems, documents.length, 'documents');
  });

  test('OperationsMetadata: GetCapabilities and GetTile each with a DCP/HTTP/Get for KVP; wmts:Server.KVP.GET.GetCapabilities.Response.Encoding.Constraint and .OnlineResource (07-057r7 §8.1, 06-121r3 §7.4.6, §11.5.1)', () => {
    const problems = documents.flatMap((d) => {
      const c = d.caps;
      if (!c) return [];
      const p: string[] = [];
      for (const op of ['GetCapabilities', 'GetTile']) {
        const o = c.operations.get(op);
        if (!o) {
          p.push(`${d.url}: OperationsMetadata has no Operation name="${op}"`);
          continue;
        }
        if (!getBindings(c, op, 'KVP').length) p.push(`${d.url}: ${op} has no DCP/HTTP/Get with GetEncoding KVP`);
        for (const g of o.gets) {
          if (!g.encodings.length) p.push(`${d.url}: a Get of ${op} (${g.href}) has no Constraint name="GetEncoding" (KVP or RESTful)`);
          for (const e of g.encodings) if (e !== 'KVP' && e !== 'RESTful') p.push(`${d.url}: ${op} GetEncoding value "${e}", expected KVP or RESTful`);
          if (!/^https?:\/\//.test(g.href)) p.push(`${d.url}: ${op} Get href "${g.href}" is not an http(s) URL`);
          if (g.encodings.includes('KVP') && !/[?&]$/.test(g.href)) p.push(`${d.url}: ${op} KVP Get href "${g.href}" does not end with ? or & (06-121r3 §11.5.1: a URL prefix)`);
        }
      }
      return p;
    });
    assertNoProblems(problems, documents.length, 'documents');
  });

  test('wmts:Server.KVP.GET.GetCapabilities.Response.AdvertisedFormat: an AcceptFormats parameter of GetCapabilities, when advertised, offers an XML format; AcceptFormats=text/xml, or a format no server offers, is answered with the XML document (06-121r3 §7.3.5)', async () => {
    const problems: string[] = [];
    let checked = 0;
    for (const d of documents) {
      const formats = d.caps?.operations.get('GetCapabilities')?.parameters.get('AcceptFormats');
      if (!formats) continue;
      checked++;
      if (!formats.some((f) => /^(application|text)\/xml$/.test(f))) problems.push(`${d.url}: AcceptFormats ${formats.join(', ')} offers no XML format`);
    }
    // Whether advertised or not, the parameter is answered: with a format the server has, or (06-121r3 §7.3.5, Table 5)
    // the document in text/xml when it has none of those asked.
    for (const accept of ['text/xml', 'application/x-bogus-for-test']) {
      const a = await get(kvpCapabilities(`SERVICE=WMTS&REQUEST=GetCapabilities&AcceptFormats=${encodeURIComponent(accept)}`));
      checked++;
      if (a.status !== 200 || !/^(text|application)\/xml$/.test(a.mediaType) || parseCapabilities(a.body.toString('utf8')).root !== 'Capabilities') {
        problems.push(`GET ${a.url}: expected 200 with the Capabilities document in XML; got ${summary(a)}`);
      }
    }
    assertNoProblems(problems, checked, 'AcceptFormats lists and requests');
  });

  test('wmts:Server.KVP.GET.GetCapabilities.Response.Layer.Identifiers.Unique, TileMatrixSet.Identifiers.Unique, TileMatrix.Identifiers.Unique, TileMatrixSet.ScaleDenominators.Unique (07-057r7 Tables 6, 12, 13)', () => {
    const problems = documents.flatMap((d) => {
      const c = d.caps;
      if (!c) return [];
      const p: string[] = [];
      const dup = (ids: string[], what: string): void => {
        const seen = new Set<string>();
        for (const id of ids) {
          if (!id) p.push(`${d.url}: an empty ${what} identifier`);
          else if (seen.has(id)) p.push(`${d.url}: ${what} identifier "${id}" is not unique`);
          seen.add(id);
        }
      };
      dup(c.layers.map((l) => l.id), 'Layer');
      dup(c.tileMatrixSets.map((t) => t.id), 'TileMatrixSet');
      for (const t of c.tileMatrixSets) {
        dup(t.matrices.map((m) => m.id), `TileMatrix (in ${t.id})`);
        dup(t.matrices.map((m) => String(m.scaleDenominator)), `ScaleDenominator (in ${t.id})`);
        if (!t.matrices.length) p.push(`${d.url}: TileMatrixSet ${t.id} has no TileMatrix`);
      }
      return p;
    });
    assertNoProblems(problems, documents.length, 'documents');
  });

  test('wmts:Server.KVP.GET.GetCapabilities.Response.Layer.TileMatrixSet.Valid: every layer has a Style, a Format and TileMatrixSetLinks to sets of Contents, with TileMatrixLimits inside the matrices they name (07-057r7 Tables 6, 7, 13, 14)', () => {
    const problems = documents.flatMap((d) => {
      const c = d.caps;
      if (!c) return [];
      return c.layers.flatMap((l) => {
        const p: string[] = [];
        if (!l.styles.length) p.push(`${d.url}: layer ${l.id} has no Style`);
        if (!l.formats.length) p.push(`${d.url}: layer ${l.id} has no Format`);
        if (!l.links.length) p.push(`${d.url}: layer ${l.id} has no TileMatrixSetLink`);
        for (const link of l.links) {
          const tms = c.tileMatrixSets.find((t) => t.id === link.tms);
          if (!tms) {
            p.push(`${d.url}: layer ${l.id} links TileMatrixSet "${link.tms}", which Contents does not define`);
            continue;
          }
          const named = new Set<string>();
          for (const lim of link.limits ?? []) {
            const m = tms.matrices.find((x) => x.id === lim.matrix);
            if (named.has(lim.matrix)) p.push(`${d.url}: layer ${l.id} limits TileMatrix ${lim.matrix} twice`);
            named.add(lim.matrix);
            if (!m) p.push(`${d.url}: layer ${l.id} limits TileMatrix "${lim.matrix}", which ${tms.id} does not have`);
            else if (!(lim.minRow >= 0 && lim.minRow <= lim.maxRow && lim.maxRow < m.matrixHeight && lim.minCol >= 0 && lim.minCol <= lim.maxCol && lim.maxCol < m.matrixWidth)) {
              p.push(`${d.url}: layer ${l.id} ${tms.id}/${lim.matrix} limits rows ${lim.minRow}-${lim.maxRow} cols ${lim.minCol}-${lim.maxCol} outside the ${m.matrixWidth}x${m.matrixHeight} matrix`);
            }
          }
        }
        return p;
      });
    });
    assertNoProblems(problems, documents.length, 'documents');
  });

  test('wmts:Server.KVP.GET.GetCapabilities.Response.TileMatrixSet.WellKnownScaleSet: a set naming a well-known scale set has its CRS and scale denominators (07-057r7 Annex E)', () => {
    // Annex E: GoogleMapsCompatible is in urn:ogc:def:crs:EPSG:6.18:3:3857 with 559082264.0287178 at level 0, halving;
    // the OGC suite compares SupportedCRS with that URN literally and the denominators within 1e-6.
    const WKSS: Record<string, { crs: string; first: number; halving: boolean }> = {
      'urn:ogc:def:wkss:OGC:1.0:GoogleMapsCompatible': { crs: 'urn:ogc:def:crs:EPSG:6.18:3:3857', first: 559082264.0287178, halving: true },
      'urn:ogc:def:wkss:OGC:1.0:GoogleCRS84Quad': { crs: 'urn:ogc:def:crs:OGC:1.3:CRS84', first: 559082264.0287178, halving: true },
    };
    const problems = documents.flatMap((d) =>
      (d.caps?.tileMatrixSets ?? []).flatMap((t) => {
        if (!t.wellKnownScaleSet) return [];
        const w = WKSS[t.wellKnownScaleSet];
        if (!w) return [];
        const p: string[] = [];
        if (t.supportedCrs !== w.crs) p.push(`${d.url}: ${t.id} names ${t.wellKnownScaleSet} but its SupportedCRS is ${t.supportedCrs}, Annex E (and ets-wmts10) want ${w.crs}`);
        const sorted = t.matrices.map((m) => m.scaleDenominator).sort((a, b) => b - a);
        sorted.forEach((s, i) => {
          const want = w.first / 2 ** i;
          if (Math.abs(s - want) / want > 1e-9 && Math.abs(s - want) > 1e-6) p.push(`${d.url}: ${t.id} scale denominator #${i} is ${s}, ${t.wellKnownScaleSet} has ${want}`);
        });
        return p;
      }),
    );
    assertNoProblems(problems, documents.length, 'documents');
  });

  test('wmts:Server.KVP.GET.GetCapabilities.Response.Theme.LayerRef.Valid: every Theme LayerRef names a layer of Contents, and every LayerRef of the document is one of those checked', () => {
    const problems = documents.flatMap((d) => {
      const refs = d.caps?.themeLayerRefs ?? [];
      const p = refs.filter((r) => !d.caps?.layers.some((l) => l.id === r)).map((r) => `${d.url}: Themes LayerRef "${r}" is no layer`);
      // The document's own LayerRef elements, counted in its text: a document with Themes that the reading above
      // missed would otherwise pass with nothing checked (this server writes no Themes: both counts are 0).
      const inText = (d.answer.body.toString('utf8').match(/<(?:\w+:)?LayerRef[\s>]/g) ?? []).length;
      if (inText !== refs.length) p.push(`${d.url}: ${inText} LayerRef element(s) in the document, ${refs.length} read from Themes`);
      return p;
    });
    assertNoProblems(problems, documents.filter((d) => d.caps).length, 'documents');
  });

  test('RESTful ResourceURL: when the RESTful binding is offered, every Format of every layer has one tile template with {TileMatrix}, {TileRow}, {TileCol} and only variables 07-057r7 §10.2.1 defines (ets-wmts10 isValidTileURLtemplate)', () => {
    const problems = documents.flatMap((d) => {
      const c = d.caps;
      if (!c || !c.layers.some((l) => l.resourceUrls.length)) return [];
      return c.layers.flatMap((l) => {
        const p: string[] = [];
        const known = new Set(['style', 'tilematrixset', 'tilematrix', 'tilerow', 'tilecol', ...l.dimensions.map((x) => x.id.toLowerCase())]);
        for (const f of l.formats) {
          const n = l.resourceUrls.filter((r) => r.resourceType.toLowerCase() === 'tile' && r.format.toLowerCase() === f.toLowerCase()).length;
          if (n !== 1) p.push(`${d.url}: layer ${l.id} has ${n} tile ResourceURLs for Format ${f}, expected 1`);
        }
        for (const r of l.resourceUrls) {
          if (r.resourceType.toLowerCase() === 'tile' && !l.formats.includes(r.format)) p.push(`${d.url}: layer ${l.id} ResourceURL format ${r.format} is not one of its Formats (${l.formats.join(', ')})`);
          if (r.resourceType.toLowerCase() !== 'tile') continue;
          for (const v of ['{TileMatrix}', '{TileRow}', '{TileCol}']) if (!r.template.includes(v)) p.push(`${d.url}: layer ${l.id} template ${r.template} lacks ${v}`);
          for (const m of r.template.matchAll(/\{([^}]+)\}/g)) if (!known.has(m[1].toLowerCase())) p.push(`${d.url}: layer ${l.id} template ${r.template} has unknown variable {${m[1]}}`);
        }
        return p;
      });
    });
    assertNoProblems(problems, documents.length, 'documents');
  });
});

describe('WMTS 1.0 KVP request rules and GetCapabilities parameters (06-121r3 §7.2-7.3, §11.5; 07-057r7 §7.1.2)', () => {
  xsdTest('wmts:Server.KVP.GET.GetCapabilities.Request.NoService: REQUEST=GetCapabilities without SERVICE -> 400 MissingParameterValue, locator service (06-121r3 Table 3)', async () => {
    await expectExceptions([{ query: 'REQUEST=GetCapabilities', expected: { status: 400, code: 'MissingParameterValue', locator: 'service' } }]);
  });

  xsdTest('wmts:Server.KVP.GET.GetCapabilities.Request.InvalidService: SERVICE=BOGUS -> 400 InvalidParameterValue, locator service', async () => {
    await expectExceptions([{ query: 'SERVICE=BOGUS&REQUEST=GetCapabilities', expected: { status: 400, code: 'InvalidParameterValue', locator: 'service' } }]);
  });

  xsdTest('wmts:Server.KVP.GET.InvalidQueryString: service=WMTS&request~GetCapabilities!version~1.0.0 -> 400 MissingParameterValue, locator request', async () => {
    await expectExceptions([{ query: 'service=WMTS&request~GetCapabilities!version~1.0.0', expected: { status: 400, code: 'MissingParameterValue', locator: 'request' } }]);
  });

  xsdTest('06-121r3 Table 3: SERVICE=WMTS without any REQUEST -> 400 MissingParameterValue, locator request', async () => {
    await expectExceptions([{ query: 'SERVICE=WMTS', expected: { status: 400, code: 'MissingParameterValue', locator: 'request' } }]);
  });

  xsdTest('wmts:Server.KVP.GET.InvalidRequest: REQUEST=GetBOGUS -> 400 InvalidParameterValue, locator request', async () => {
    await expectExceptions([{ query: 'SERVICE=WMTS&REQUEST=GetBOGUS', expected: { status: 400, code: 'InvalidParameterValue', locator: 'request' } }]);
  });

  xsdTest('06-121r3 §11.5.2: parameter values are case-sensitive: SERVICE=wmts and REQUEST=getcapabilities -> 400 InvalidParameterValue', async () => {
    await expectExceptions([
      { query: 'SERVICE=wmts&REQUEST=GetCapabilities', expected: { status: 400, code: 'InvalidParameterValue', locator: 'service' } },
      { query: 'SERVICE=WMTS&REQUEST=getcapabilities', expected: { status: 400, code: 'InvalidParameterValue', locator: 'request' } },
    ]);
  });

  xsdTest('wmts:Server.KVP.GET.GetCapabilities.Request.CaseInsensitive.KVP.Names: SERVICE/REQUEST/ACCEPTVERSIONS in any case and order answer the same valid document (06-121r3 §11.5.2)', async () => {
    const names = [
      ['SERVICE', 'RequesT', 'acceptversions'],
      ['SeRvIcE', 'request', 'ACCEPTVERSIONS'],
      ['service', 'REQUEST', 'AcceptVersions'],
    ];
    const queries = names.flatMap(([s, r, v]) => [
      `${s}=WMTS&${r}=GetCapabilities&${v}=1.0.0`,
      `${r}=GetCapabilities&${v}=1.0.0&${s}=WMTS`,
      `${v}=1.0.0&${s}=WMTS&${r}=GetCapabilities`,
    ]);
    const answers = await Promise.all(queries.map((q) => get(kvpCapabilities(q))));
    const problems = answers.flatMap((a) => (a.status === 200 ? [] : [`GET ${a.url}: expected 200 with the capabilities; got ${summary(a)}`]));
    const ok = answers.filter((a) => a.status === 200);
    const verdicts = await validateAll(ok.map((a) => a.body.toString('utf8')), capsXsd as string, scratch);
    verdicts.forEach((v, i) => v.valid || problems.push(`GET ${ok[i].url}: not valid: ${v.errors.slice(0, 500)}`));
    for (const a of ok.slice(1)) if (!a.body.equals(ok[0].body)) problems.push(`GET ${a.url}: the document differs from the one for ${ok[0].url}`);
    assertNoProblems(problems, answers.length, 'requests');
  });

  test('wmts:Server.KVP.GET.GetCapabilities.Request.AcceptVersions.Valid: AcceptVersions=1.0.0 and 2.0.0,1.0.0 answer version 1.0.0 (06-121r3 §7.3.2)', async () => {
    const answers = await Promise.all(['1.0.0', '2.0.0,1.0.0'].map((v) => get(kvpCapabilities(`SERVICE=WMTS&REQUEST=GetCapabilities&AcceptVersions=${v}`))));
    const problems = answers.flatMap((a) => {
      if (a.status !== 200) return [`GET ${a.url}: expected 200 with version 1.0.0; got ${summary(a)}`];
      const v = parseCapabilities(a.body.toString('utf8')).version;
      return v === '1.0.0' ? [] : [`GET ${a.url}: version="${v}", expected 1.0.0`];
    });
    assertNoProblems(problems, answers.length, 'requests');
  });

  xsdTest('wmts:Server.KVP.GET.GetCapabilities.Request.AcceptVersions.Invalid: AcceptVersions=1.1.0,1.2.0 -> 400 VersionNegotiationFailed without locator (06-121r3 §7.3.2, Table 5)', async () => {
    await expectExceptions([{ query: 'SERVICE=WMTS&REQUEST=GetCapabilities&AcceptVersions=1.1.0,1.2.0', expected: { status: 400, code: 'VersionNegotiationFailed', locator: null } }]);
  });

  xsdTest('wmts:Server.KVP.GET.GetCapabilities.Request.Sections.All: Sections=All answers every section (06-121r3 §7.3.3 Table 7)', async () => {
    const a = await get(kvpCapabilities('SERVICE=WMTS&REQUEST=GetCapabilities&Sections=All'));
    assertNoProblems(sectionProblems({ label: 'Sections=All', url: a.url, answer: a, caps: a.status === 200 ? parseCapabilities(a.body.toString('utf8')) : undefined }, REQUIRED_SECTIONS), 1, 'requests');
  });

  xsdTest('wmts:Server.KVP.GET.GetCapabilities.Request.Sections.ServiceIdentification / ServiceProvider / OperationsMetadata / Contents / Themes / Multiple: only the sections asked for, schema-valid (06-121r3 §7.3.3)', async () => {
    const offered = ALL_SECTIONS.filter((s) => service.sections.includes(s));
    const asks = [...offered.map((s) => [s]), ['Contents', 'Themes']];
    const answers = await Promise.all(asks.map((s) => get(kvpCapabilities(`SERVICE=WMTS&REQUEST=GetCapabilities&Sections=${s.join(',')}`))));
    const problems: string[] = [];
    const ok: Answer[] = [];
    answers.forEach((a, i) => {
      if (a.status !== 200) return void problems.push(`GET ${a.url}: expected 200; got ${summary(a)}`);
      ok.push(a);
      const got = parseCapabilities(a.body.toString('utf8')).sections.filter((s) => s !== 'ServiceMetadataURL');
      const want = asks[i].filter((s) => offered.includes(s));
      if (got.join() !== ALL_SECTIONS.filter((s) => want.includes(s)).join()) problems.push(`GET ${a.url}: sections ${got.join(', ') || '(none)'}, expected only ${want.join(', ')}`);
    });
    const verdicts = await validateAll(ok.map((a) => a.body.toString('utf8')), capsXsd as string, scratch);
    verdicts.forEach((v, i) => v.valid || problems.push(`GET ${ok[i].url}: not valid: ${v.errors.slice(0, 500)}`));
    assertNoProblems(problems, answers.length, 'requests');
  });

  xsdTest('wmts:Server.KVP.GET.GetCapabilities.Request.Sections.Invalid and .Missing: Sections=Bogus -> 400 InvalidParameterValue, Sections= -> 400 MissingParameterValue, locator sections', async () => {
    await expectExceptions([
      { query: 'SERVICE=WMTS&REQUEST=GetCapabilities&Sections=Bogus', expected: { status: 400, code: 'InvalidParameterValue', locator: 'sections' } },
      { query: 'service=WMTS&request=GetCapabilities&sections=&acceptversions=1.0.0', expected: { status: 400, code: 'MissingParameterValue', locator: 'sections' } },
    ]);
  });

  xsdTest('wmts:Server.KVP.GET.GetCapabilities.Request.UpdateSequence: with an updateSequence, a greater one -> 400 InvalidUpdateSequence, a lower one -> the document (06-121r3 §7.3.4 Table 8)', async () => {
    const seq = service.updateSequence;
    if (seq === undefined) {
      // None declared (the attribute is absent from the document's text too): Table 8 then asks for the latest
      // document whatever updateSequence the request gives.
      expect(documents[0].answer.body.toString('utf8')).not.toMatch(/updateSequence=/);
      const any = await get(kvpCapabilities('SERVICE=WMTS&REQUEST=GetCapabilities&updateSequence=5'));
      if (any.status !== 200 || parseCapabilities(any.body.toString('utf8')).root !== 'Capabilities') {
        throw new Error(`GET ${any.url}: the server declares no updateSequence, so any value asks for the document (06-121r3 Table 8); got ${summary(any)}`);
      }
      return;
    }
    const greater = /^\d+$/.test(seq) ? String(BigInt(seq) + 1n) : `${seq}~`;
    await expectExceptions([{ query: `SERVICE=WMTS&REQUEST=GetCapabilities&updateSequence=${encodeURIComponent(greater)}`, expected: { status: 400, code: 'InvalidUpdateSequence', locator: null } }]);
    if (!/^\d+$/.test(seq) || seq === '0') return;
    const lower = await get(kvpCapabilities('SERVICE=WMTS&REQUEST=GetCapabilities&updateSequence=0'));
    if (lower.status !== 200) throw new Error(`GET ${lower.url}: an updateSequence below the server's (${seq}) expected 200 with the document; got ${summary(lower)}`);
  });
});

describe('WMTS 1.0 RESTful ServiceMetadata resource (07-057r7 §7.1.3, §10.1; ets-wmts10 CommonOperations.Mandatory.RESTful)', () => {
  test('wmts:Server.RESTful.HTTP.Mandatory: the ServiceMetadataURL with Accept: example/unknown -> 406 Not Acceptable', async () => {
    const answers = await Promise.all(service.serviceMetadataUrls.map((u) => get(u, { Accept: 'example/unknown' })));
    const problems = answers.filter((a) => a.status !== 406).map((a) => `GET ${a.url} (Accept: example/unknown): expected 406; got ${summary(a)}`);
    if (!answers.length) problems.push('no ServiceMetadataURL to request');
    assertNoProblems(problems, answers.length, 'requests');
  });

  test('wmts:Server.RESTful.InvalidQueryString: a bogus resource next to the ServiceMetadataURL -> 404', async () => {
    const bogus = service.serviceMetadataUrls.map((u) => {
      const url = new URL(u);
      url.pathname = url.pathname.endsWith('.xml') ? url.pathname.replace(/\.xml$/, 'Bogus.xml') : `${url.pathname}/Bogus`;
      return url.href;
    });
    const answers = await Promise.all(bogus.map((u) => get(u)));
    const problems = answers.filter((a) => a.status !== 404).map((a) => `GET ${a.url}: expected 404; got ${summary(a)}`);
    if (!answers.length) problems.push('no ServiceMetadataURL to request');
    assertNoProblems(problems, answers.length, 'requests');
  });
});
