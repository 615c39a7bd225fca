import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { XMLParser } from 'fast-xml-parser';
import { buildWmtsCapabilities, findWmtsLayer, wmtsLayersFor, wmtsLimitsOf, wmtsTileMatrixSetOf, wmtsTileTemplate } from '../../src/ogc/wmts';
import type { OwsServiceMetadata, WmtsLayer, WmtsSection } from '../../src/ogc/wmts';
import type { Bounds, TilesetInfo } from '../../src/store/types';
import { gatedTest } from '../helpers/clients';
import { tempDirs } from '../helpers/temp-dirs';

const { tempDir, removeTempDirs } = tempDirs('wmts-caps-');

const SWISS: Bounds = [5.9, 45.8, 10.5, 47.8];
const WORLD: Bounds = [-180, -85.0511287798066, 180, 85.0511287798066];
const BASE = 'http://127.0.0.1:8080';
const KEY = 'k3y&x=1';
const KEY_ENC = 'k3y%26x%3D1';

function info(over: Partial<TilesetInfo>): TilesetInfo {
  return {
    kind: 'maps',
    id: 'sample',
    name: 'Sample',
    description: 'A sample map',
    attribution: '© someone',
    type: 'baselayer',
    format: 'png',
    minzoom: 0,
    maxzoom: 5,
    bounds: SWISS,
    center: [8, 47, 3],
    version: 'v1',
    pyramids: [],
    ...over,
  };
}

const map = info({
  name: 'Sample "map" <with> & \'quotes\'',
  description: 'Desc & <b>',
  pyramids: [
    { name: '512', tileSize: 512, scale: 1, format: 'png', minzoom: 0, maxzoom: 5, bounds: SWISS },
    { name: '256', tileSize: 256, scale: 1, format: 'png', minzoom: 0, maxzoom: 6, bounds: SWISS },
    { name: '512@2x', tileSize: 512, scale: 2, format: 'png', minzoom: 0, maxzoom: 5, bounds: SWISS },
  ],
});
const vector = info({
  kind: 'tiles',
  id: 'v3',
  name: 'Vector',
  format: 'pbf',
  pyramids: [{ name: 'main', tileSize: 512, scale: 1, format: 'pbf', minzoom: 0, maxzoom: 5, bounds: WORLD }],
});
const image = info({
  kind: 'images',
  id: 'scan',
  name: 'Scan',
  description: '',
  format: 'jpg',
  pyramids: [{ name: 'main', tileSize: 256, scale: 1, format: 'jpg', minzoom: 0, maxzoom: 3, bounds: [-180, 60, -4, 85] }],
});
const satellite = info({
  kind: 'tiles',
  id: 'satellite',
  name: 'Satellite',
  format: 'webp',
  pyramids: [{ name: 'main', tileSize: 256, scale: 1, format: 'webp', minzoom: 8, maxzoom: 10, bounds: SWISS }],
});

/** A layer with a Time dimension, as the weather layers will have. */
const timed: WmtsLayer = {
  ...wmtsLayersFor(vector)[0],
  dimensions: [{ identifier: 'Time', title: 'Valid time', uom: 'ISO8601', default: '2024-01-01T06:00:00Z', values: ['2024-01-01T00:00:00Z', '2024-01-01T06:00:00Z'] }],
};
const layers: WmtsLayer[] = [...wmtsLayersFor(map), ...wmtsLayersFor(vector), ...wmtsLayersFor(image)];
const CAPS_URL = `${BASE}/wmts/1.0.0/WMTSCapabilities.xml?key=${KEY_ENC}`;
const SITE = `${BASE}/?key=${KEY_ENC}`;
const service: OwsServiceMetadata = {
  title: 'tilemirror "WMTS" <&>',
  abstract: 'Tiles & more',
  keywords: ['tiles', 'WMTS'],
  fees: 'none',
  accessConstraints: 'an API key',
  provider: {
    name: 'Example Org',
    site: SITE,
    contact: {
      name: 'Ada',
      position: 'Maps',
      role: 'pointOfContact',
      phone: '+41 1',
      fax: '+41 2',
      email: 'maps@example.org',
      address: { deliveryPoint: 'Street 1', city: 'Zurich', administrativeArea: 'ZH', postalCode: '8001', country: 'Switzerland' },
      hours: '9-17',
      instructions: 'email first',
    },
  },
};
const minimal: OwsServiceMetadata = { title: 'T', provider: { name: 'P' } };
const build = (over: Partial<Parameters<typeof buildWmtsCapabilities>[0]> = {}): string =>
  buildWmtsCapabilities({ baseUrl: BASE, key: KEY, service, layers, capabilitiesUrl: CAPS_URL, ...over });
const xml = build();

const parser = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: '@_',
  parseTagValue: false,
  isArray: (name, jpath) =>
    ['Layer', 'TileMatrixLimits', 'ows:Operation', 'ows:Get'].includes(name) ||
    jpath === 'Capabilities.Contents.TileMatrixSet' ||
    jpath === 'Capabilities.Contents.TileMatrixSet.TileMatrix',
});
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- a parsed XML tree is untyped by nature
const doc: any = parser.parse(xml);
// eslint-disable-next-line @typescript-eslint/no-explicit-any
const caps: any = doc.Capabilities;
// eslint-disable-next-line @typescript-eslint/no-explicit-any
const layerNamed = (id: string): any => caps.Contents.Layer.find((l: { 'ows:Identifier': string }) => l['ows:Identifier'] === id);

describe('wmtsLayersFor', () => {
  test('one layer per scale-1 pyramid with distinct identifiers', () => {
    expect(wmtsLayersFor(map).map((l) => [l.identifier, l.title, l.tileSize])).toEqual([
      ['maps/sample', map.name, 512],
      ['maps/sample/256', `${map.name} (256 px)`, 256],
    ]);
    expect(wmtsLayersFor(vector).map((l) => l.identifier)).toEqual(['tiles/v3']);
    expect(wmtsLayersFor(image).map((l) => l.identifier)).toEqual(['images/scan']);
  });
  test('tile matrix set and limits of a layer', () => {
    const [l512, l256] = wmtsLayersFor(map);
    expect(wmtsTileMatrixSetOf(l512)).toBe('GoogleMapsCompatible512-z0-5');
    expect(wmtsTileMatrixSetOf(l256)).toBe('GoogleMapsCompatible256-z0-6');
    expect(wmtsLimitsOf(l512)[3]).toEqual({ tileMatrix: '3', minTileRow: 2, maxTileRow: 2, minTileCol: 4, maxTileCol: 4 });
    expect(wmtsLimitsOf(l256)).toHaveLength(7);
    expect(findWmtsLayer(map, 'maps/sample/256')?.pyramidName).toBe('256');
    expect(findWmtsLayer(map, 'maps/other')).toBeUndefined();
  });
});

describe('capabilities document', () => {
  test('root, namespaces, service identification', () => {
    expect(xml.startsWith('<?xml version="1.0" encoding="UTF-8"?>')).toBe(true);
    expect(caps['@_xmlns']).toBe('http://www.opengis.net/wmts/1.0');
    expect(caps['@_xmlns:ows']).toBe('http://www.opengis.net/ows/1.1');
    expect(caps['@_xmlns:xlink']).toBe('http://www.w3.org/1999/xlink');
    expect(caps['@_version']).toBe('1.0.0');
    expect(caps['@_xsi:schemaLocation']).toBe(
      'http://www.opengis.net/wmts/1.0 http://schemas.opengis.net/wmts/1.0/wmtsGetCapabilities_response.xsd',
    );
    expect(caps['ows:ServiceIdentification']).toEqual({
      'ows:Title': 'tilemirror "WMTS" <&>',
      'ows:Abstract': 'Tiles & more',
      'ows:Keywords': { 'ows:Keyword': ['tiles', 'WMTS'] },
      'ows:ServiceType': 'OGC WMTS',
      'ows:ServiceTypeVersion': '1.0.0',
      'ows:Fees': 'none',
      'ows:AccessConstraints': 'an API key',
    });
    expect(caps.ServiceMetadataURL['@_xlink:href']).toBe(CAPS_URL);
  });

  test('service provider: name, site and contact in the order of owsServiceProvider.xsd', () => {
    expect(xml).toContain(
      [
        '  <ows:ServiceProvider>',
        '    <ows:ProviderName>Example Org</ows:ProviderName>',
        `    <ows:ProviderSite xlink:href="${SITE.replace('&', '&amp;')}"/>`,
        '    <ows:ServiceContact>',
        '      <ows:IndividualName>Ada</ows:IndividualName>',
        '      <ows:PositionName>Maps</ows:PositionName>',
        '      <ows:ContactInfo>',
        '        <ows:Phone>',
        '          <ows:Voice>+41 1</ows:Voice>',
        '          <ows:Facsimile>+41 2</ows:Facsimile>',
        '        </ows:Phone>',
        '        <ows:Address>',
        '          <ows:DeliveryPoint>Street 1</ows:DeliveryPoint>',
        '          <ows:City>Zurich</ows:City>',
        '          <ows:AdministrativeArea>ZH</ows:AdministrativeArea>',
        '          <ows:PostalCode>8001</ows:PostalCode>',
        '          <ows:Country>Switzerland</ows:Country>',
        '          <ows:ElectronicMailAddress>maps@example.org</ows:ElectronicMailAddress>',
        '        </ows:Address>',
        '        <ows:HoursOfService>9-17</ows:HoursOfService>',
        '        <ows:ContactInstructions>email first</ows:ContactInstructions>',
        '      </ows:ContactInfo>',
        '      <ows:Role>pointOfContact</ows:Role>',
        '    </ows:ServiceContact>',
        '  </ows:ServiceProvider>',
      ].join('\n'),
    );
  });

  test('the least service metadata: no optional element, an empty ServiceContact', () => {
    const x = build({ service: minimal, layers: [] });
    expect(x).toContain(
      [
        '  <ows:ServiceIdentification>',
        '    <ows:Title>T</ows:Title>',
        '    <ows:ServiceType>OGC WMTS</ows:ServiceType>',
        '    <ows:ServiceTypeVersion>1.0.0</ows:ServiceTypeVersion>',
        '  </ows:ServiceIdentification>',
        '  <ows:ServiceProvider>',
        '    <ows:ProviderName>P</ows:ProviderName>',
        '    <ows:ServiceContact/>',
        '  </ows:ServiceProvider>',
      ].join('\n'),
    );
  });

  test('user text is escaped, never raw', () => {
    expect(xml).toContain('<ows:Title>Sample &quot;map&quot; &lt;with&gt; &amp; &apos;quotes&apos;</ows:Title>');
    expect(xml).toContain('<ows:Abstract>Desc &amp; &lt;b&gt;</ows:Abstract>');
    expect(xml).not.toContain('<with>');
    expect(layerNamed('maps/sample')['ows:Title']).toBe(map.name);
    // An empty description produces no Abstract element.
    expect(layerNamed('images/scan')['ows:Abstract']).toBeUndefined();
  });

  test('control characters are dropped', () => {
    const x = build({ service: { title: 'a\u0001b\u000bc', provider: { name: 'p\u0002q' } }, layers: [] });
    expect(x).toContain('<ows:Title>abc</ows:Title>');
    expect(x).toContain('<ows:ProviderName>pq</ows:ProviderName>');
  });

  test('operations: one KVP href each (the RESTful capabilities are the ServiceMetadataURL)', () => {
    const ops = caps['ows:OperationsMetadata']['ows:Operation'];
    expect(ops.map((o: { '@_name': string }) => o['@_name'])).toEqual(['GetCapabilities', 'GetTile']);
    const kvp = `${BASE}/wmts?key=${KEY_ENC}&`;
    for (const op of ops) {
      expect(op['ows:DCP']['ows:HTTP']['ows:Get']).toEqual([
        { '@_xlink:href': kvp, 'ows:Constraint': { '@_name': 'GetEncoding', 'ows:AllowedValues': { 'ows:Value': 'KVP' } } },
      ]);
    }
  });

  test('512 map layer', () => {
    const l = layerNamed('maps/sample');
    expect(l['ows:WGS84BoundingBox']).toEqual({
      '@_crs': 'urn:ogc:def:crs:OGC:2:84',
      'ows:LowerCorner': '5.9 45.8',
      'ows:UpperCorner': '10.5 47.8',
    });
    expect(l.Style).toEqual({ '@_isDefault': 'true', 'ows:Identifier': 'default' });
    expect(l.Format).toBe('image/png');
    expect(l.TileMatrixSetLink.TileMatrixSet).toBe('GoogleMapsCompatible512-z0-5');
    const lim = l.TileMatrixSetLink.TileMatrixSetLimits.TileMatrixLimits;
    expect(lim.map((x: { TileMatrix: string }) => x.TileMatrix)).toEqual(['0', '1', '2', '3', '4', '5']);
    expect(lim[3]).toEqual({ TileMatrix: '3', MinTileRow: '2', MaxTileRow: '2', MinTileCol: '4', MaxTileCol: '4' });
    expect(l.ResourceURL).toEqual({
      '@_format': 'image/png',
      '@_resourceType': 'tile',
      '@_template': `${BASE}/wmts/1.0.0/maps/sample/{Style}/{TileMatrixSet}/{TileMatrix}/{TileRow}/{TileCol}.png?key=${KEY_ENC}`,
    });
    expect(l.Dimension).toBeUndefined();
  });

  test('256 map layer, tile set and image templates', () => {
    expect(layerNamed('maps/sample/256').ResourceURL['@_template']).toBe(
      `${BASE}/wmts/1.0.0/maps/sample/256/{Style}/{TileMatrixSet}/{TileMatrix}/{TileRow}/{TileCol}.png?key=${KEY_ENC}`,
    );
    expect(layerNamed('maps/sample/256').TileMatrixSetLink.TileMatrixSet).toBe('GoogleMapsCompatible256-z0-6');
    const v = layerNamed('tiles/v3');
    expect(v.Format).toBe('application/vnd.mapbox-vector-tile');
    expect(v.ResourceURL).toEqual({
      '@_format': 'application/vnd.mapbox-vector-tile',
      '@_resourceType': 'tile',
      '@_template': `${BASE}/wmts/1.0.0/tiles/v3/{Style}/{TileMatrixSet}/{TileMatrix}/{TileRow}/{TileCol}.pbf?key=${KEY_ENC}`,
    });
    expect(v.TileMatrixSetLink.TileMatrixSetLimits.TileMatrixLimits[5]).toEqual({
      TileMatrix: '5',
      MinTileRow: '0',
      MaxTileRow: '31',
      MinTileCol: '0',
      MaxTileCol: '31',
    });
    const i = layerNamed('images/scan');
    expect(i.Format).toBe('image/jpeg');
    expect(i.ResourceURL['@_format']).toBe('image/jpeg');
    expect(i.ResourceURL['@_template']).toBe(`${BASE}/wmts/1.0.0/images/scan/{Style}/{TileMatrixSet}/{TileMatrix}/{TileRow}/{TileCol}.jpg?key=${KEY_ENC}`);
  });

  test('the layer identifier is written into the template segment by segment, percent-encoded', () => {
    const odd = wmtsLayersFor(info({ id: 'a b', pyramids: [{ name: '256', tileSize: 256, scale: 1, format: 'webp', minzoom: 0, maxzoom: 1, bounds: WORLD }] }));
    expect(wmtsTileTemplate(BASE, odd[0], KEY)).toBe(`${BASE}/wmts/1.0.0/maps/a%20b/256/{Style}/{TileMatrixSet}/{TileMatrix}/{TileRow}/{TileCol}.webp?key=${KEY_ENC}`);
  });

  test('one tile matrix set per (size, zoom range), exact numbers', () => {
    const sets = caps.Contents.TileMatrixSet;
    expect(sets.map((s: { 'ows:Identifier': string }) => s['ows:Identifier'])).toEqual([
      'GoogleMapsCompatible512-z0-5',
      'GoogleMapsCompatible256-z0-6',
      'GoogleMapsCompatible256-z0-3',
    ]);
    const [s512, s256] = sets;
    expect(s512['ows:SupportedCRS']).toBe('urn:ogc:def:crs:EPSG::3857');
    expect(s512.WellKnownScaleSet).toBeUndefined();
    expect(s256.WellKnownScaleSet).toBe('urn:ogc:def:wkss:OGC:1.0:GoogleMapsCompatible');
    expect(s256['ows:SupportedCRS']).toBe('urn:ogc:def:crs:EPSG:6.18:3:3857');
    expect(s256.TileMatrix[0]).toEqual({
      'ows:Identifier': '0',
      ScaleDenominator: '559082264.0287178',
      TopLeftCorner: '-20037508.342789244 20037508.342789244',
      TileWidth: '256',
      TileHeight: '256',
      MatrixWidth: '1',
      MatrixHeight: '1',
    });
    expect(s512.TileMatrix[0].ScaleDenominator).toBe('279541132.0143589');
    expect(s512.TileMatrix[0].TileWidth).toBe('512');
    expect(s512.TileMatrix[5]).toMatchObject({ 'ows:Identifier': '5', MatrixWidth: '32', MatrixHeight: '32' });
    expect(s256.TileMatrix).toHaveLength(7);
  });

  test.each([
    [['ServiceIdentification'], ['ows:ServiceIdentification']],
    [['ServiceProvider'], ['ows:ServiceProvider']],
    [['OperationsMetadata'], ['ows:OperationsMetadata']],
    [['Contents'], ['Contents']],
    [['Themes'], []],
    [['Contents', 'Themes'], ['Contents']],
    [['Themes', 'ServiceProvider'], ['ows:ServiceProvider']],
  ] as [WmtsSection[], string[]][])('Sections=%j: only those that exist, in document order, no ServiceMetadataURL', (sections, elements) => {
    const only = parser.parse(build({ sections: new Set(sections) })).Capabilities;
    expect(Object.keys(only).filter((k) => !k.startsWith('@_'))).toEqual(elements);
    expect(only['@_version']).toBe('1.0.0');
  });

  test('no Sections: every section but Themes (none is defined, so none is ever written), and the ServiceMetadataURL', () => {
    expect(Object.keys(caps).filter((k) => !k.startsWith('@_'))).toEqual([
      'ows:ServiceIdentification',
      'ows:ServiceProvider',
      'ows:OperationsMetadata',
      'Contents',
      'ServiceMetadataURL',
    ]);
    expect(build({ sections: new Set(['Themes']) })).not.toContain('Themes');
  });

  test('a layer with a sample dimension: its Dimension element, a {Time} segment after the style in its template', () => {
    const doc = parser.parse(build({ layers: [timed] })).Capabilities;
    const l = doc.Contents.Layer[0];
    expect(l.Dimension).toEqual({ 'ows:Title': 'Valid time', 'ows:Identifier': 'Time', 'ows:UOM': 'ISO8601', Default: '2024-01-01T06:00:00Z', Value: ['2024-01-01T00:00:00Z', '2024-01-01T06:00:00Z'] });
    expect(l.ResourceURL['@_template']).toBe(`${BASE}/wmts/1.0.0/tiles/v3/{Style}/{Time}/{TileMatrixSet}/{TileMatrix}/{TileRow}/{TileCol}.pbf?key=${KEY_ENC}`);
  });

  test('every URL is absolute and carries the key', () => {
    const urls = [...xml.matchAll(/(?:href|template)="([^"]*)"/g)].map((m) => m[1].replace(/&amp;/g, '&'));
    expect(urls.length).toBeGreaterThan(5);
    for (const u of urls) {
      expect(u.startsWith(`${BASE}/`)).toBe(true);
      expect(new URL(u.replace(/[{}]/g, '')).searchParams.get('key')).toBe(KEY);
    }
  });
});

// ---------------------------------------------------------------------------------------------
// Schema validation with xmllint, offline. The WMTS 1.0 XSDs ship in Debian's python3-mapproxy with
// relative imports of OWS 1.1 and XLink, so `xmllint --nonet --schema` needs no catalog.
// The official 2009 schema types Min/MaxTileRow/Col as positiveInteger although the standard says
// they run from 0 (OGC never fixed it: GeoWebCache#250, #411). Every layer that touches row or
// column 0 trips on that, so the full document is checked against a copy with only those four types
// relaxed to nonNegativeInteger, and a layer away from row/col 0 against the untouched schema.

const SCHEMA_DIR = process.env.WMTS_SCHEMA_DIR ?? '/usr/share/python3-mapproxy/test/schemas';
const XSD = 'wmts/1.0/wmtsGetCapabilities_response.xsd';
const schemaTest = gatedTest('xmllint with the WMTS 1.0 XSD', {
  bins: ['xmllint'],
  files: [[path.join(SCHEMA_DIR, XSD)]],
  packages: ['libxml2-utils', 'python3-mapproxy'],
});

function validate(doc: string, schemaRoot: string): { ok: boolean; out: string } {
  const dir = tempDir();
  const file = path.join(dir, 'caps.xml');
  fs.writeFileSync(file, doc);
  const r = spawnSync('xmllint', ['--nonet', '--noout', '--schema', path.join(schemaRoot, XSD), file], { encoding: 'utf8' });
  return { ok: r.status === 0, out: `${r.stdout}${r.stderr}` };
}

let relaxedRoot = '';
/** The schema copy with relaxed limits, made by the first test that needs it (none runs without xmllint). */
function relaxedSchemaRoot(): string {
  if (relaxedRoot) return relaxedRoot;
  relaxedRoot = tempDir('wmts-xsd-');
  fs.cpSync(SCHEMA_DIR, relaxedRoot, { recursive: true });
  const file = path.join(relaxedRoot, XSD);
  const src = fs.readFileSync(file, 'utf8');
  const relaxed = src.replace(/(name="(?:Min|Max)Tile(?:Row|Col)" type=")positiveInteger"/g, '$1nonNegativeInteger"');
  expect(relaxed.match(/nonNegativeInteger/g)).toHaveLength(4);
  fs.writeFileSync(file, relaxed);
  return relaxedRoot;
}
afterAll(removeTempDirs);

describe('XSD validation (xmllint)', () => {
  schemaTest.each([
    ['the least service metadata, no layer', () => build({ service: minimal, layers: [] })],
    ['a layer with a Time dimension', () => build({ layers: [timed] })],
    ...(['ServiceIdentification', 'ServiceProvider', 'OperationsMetadata', 'Contents', 'Themes'] as WmtsSection[]).map(
      (section): [string, () => string] => [`Sections=${section}`, () => build({ sections: new Set([section]) })],
    ),
  ])('%s validates', (_label, doc) => {
    const r = validate(doc(), relaxedSchemaRoot());
    expect(r.out).toContain('validates');
    expect(r.ok).toBe(true);
  });

  schemaTest('full document validates (tile indices from 0 allowed)', () => {
    const r = validate(xml, relaxedSchemaRoot());
    expect(r.out).toContain('validates');
    expect(r.ok).toBe(true);
  });

  schemaTest('the untouched 2009 schema only objects to index 0 in limits', () => {
    const r = validate(xml, SCHEMA_DIR);
    const errors = r.out.split('\n').filter((l) => l.includes('error'));
    expect(errors.length).toBeGreaterThan(0);
    for (const e of errors) expect(e).toMatch(/(Min|Max)Tile(Row|Col).*positiveInteger/);
  });

  schemaTest('a layer away from row/col 0 validates against the untouched schema', () => {
    const doc = build({ service: { ...service, title: 'Satellite' }, layers: wmtsLayersFor(satellite) });
    const r = validate(doc, SCHEMA_DIR);
    expect(r.out).toContain('validates');
    expect(r.ok).toBe(true);
  });
});
