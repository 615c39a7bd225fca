import { parseConfig, ConfigError } from '../../src/config/load';
import { tileUrl, upstreamTileUrl } from '../../src/mirror/discovery/tile-url';
import { UsageError } from '../../src/mirror/errors';
import { configuredJobs } from '../../src/mirror/jobs/jobs-config';
import { ogcExceptionText } from '../../src/mirror/upstream/ogc-exception';
import { failedLine } from '../../src/mirror/engine/result';
import type { Flags } from '../../src/mirror/cli-options';
import { sourceFromFlags } from '../../src/mirror/source-flags';
import { sourceBase, sourceOrigins, splitSourceKey } from '../../src/mirror/discovery/sources';
import { capabilitiesUrl, getMapTemplate, wmsOffer, wmsBase, type WmsSource } from '../../src/mirror/discovery/sources/wms';
import { parseWmsCapabilities, zoomsOfScaleRange } from '../../src/mirror/discovery/sources/wms-capabilities';
import { xyzOrigins, xyzTemplate } from '../../src/mirror/discovery/sources/xyz';
import { validateTile } from '../../src/mirror/upstream/validate';

const H = 20037508.342789244;

describe('tile URLs of XYZ and WMS sources', () => {
  test('{bbox-epsg-3857} is the tile box in metres, west,south,east,north', () => {
    expect(tileUrl('http://w/?BBOX={bbox-epsg-3857}', 0, 0, 0)).toBe(`http://w/?BBOX=${-H},${-H},${H},${H}`);
    expect(tileUrl('http://w/?BBOX={bbox-epsg-3857}', 1, 0, 0)).toBe(`http://w/?BBOX=${-H},0,0,${H}`);
    expect(tileUrl('http://w/?BBOX={bbox-epsg-3857}', 1, 1, 1)).toBe(`http://w/?BBOX=0,${-H},${H},0`);
  });
  test('{s}: one subdomain per tile, (x + y) mod n, the same every time', () => {
    const src = { template: 'https://{s}.tile.example/{z}/{x}/{y}.png', subdomains: ['a', 'b', 'c'] };
    expect(upstreamTileUrl(src, 3, 0, 0)).toBe('https://a.tile.example/3/0/0.png');
    expect(upstreamTileUrl(src, 3, 1, 0)).toBe('https://b.tile.example/3/1/0.png');
    expect(upstreamTileUrl(src, 3, 2, 3)).toBe('https://c.tile.example/3/2/3.png');
    // The same every time: each tile of z3 asked twice, in two orders, against the rule written out here.
    const tiles = Array.from({ length: 64 }, (_, i) => [i % 8, Math.floor(i / 8)] as const);
    const expected = (x: number, y: number): string => `https://${'abc'[(x + y) % 3]}.tile.example/3/${x}/${y}.png`;
    for (const [x, y] of [...tiles, ...[...tiles].reverse()]) expect([x, y, upstreamTileUrl(src, 3, x, y)]).toEqual([x, y, expected(x, y)]);
  });
});

describe('XYZ templates', () => {
  test('scheme tms counts rows from the south, as {-y}', () => {
    expect(xyzTemplate({ type: 'xyz', url: 'http://t/{z}/{x}/{y}.png', scheme: 'tms' })).toBe('http://t/{z}/{x}/{-y}.png');
    expect(xyzTemplate({ type: 'xyz', url: 'http://t/{z}/{x}/{-y}.png' })).toBe('http://t/{z}/{x}/{-y}.png');
    expect(tileUrl(xyzTemplate({ type: 'xyz', url: 'http://t/{z}/{x}/{y}.png', scheme: 'tms' }), 2, 1, 0)).toBe('http://t/2/1/3.png');
  });
  test('misuse is a UsageError saying what to change', () => {
    const bad = (s: Parameters<typeof xyzTemplate>[0]) => () => xyzTemplate(s);
    expect(bad({ type: 'xyz', url: 'http://t/{z}/{x}.png' })).toThrow(/needs \{z\}, \{x\} and \{y\}/);
    expect(bad({ type: 'xyz', url: 'http://{s}.t/{z}/{x}/{y}.png' })).toThrow(/give its subdomains \(--subdomains a,b,c\)/);
    expect(bad({ type: 'xyz', url: 'http://t/{z}/{x}/{y}.png', subdomains: ['a'] })).toThrow(/no \{s\}/);
    expect(bad({ type: 'xyz', url: 'http://t/{z}/{x}/{-y}.png', scheme: 'tms' })).toThrow(/either \{-y\} in the template or scheme tms/);
    expect(bad({ type: 'xyz', url: 'ftp://t/{z}/{x}/{y}.png' })).toThrow(UsageError);
  });
  test('{s} in the host: the base is the first subdomain\'s origin and the key goes to every subdomain host', () => {
    const { source, key } = splitSourceKey({ type: 'xyz' as const, url: 'https://{s}.tile.example:8443/{z}/{x}/{y}.png?key=SECRET&style=x', subdomains: ['a', 'b'] });
    expect(key).toBe('SECRET');
    expect(source.url).toBe('https://{s}.tile.example:8443/{z}/{x}/{y}.png?style=x');
    expect(sourceBase(source)).toBe('https://a.tile.example:8443');
    expect(sourceOrigins(source)).toEqual(['https://a.tile.example:8443', 'https://b.tile.example:8443']);
    expect(xyzOrigins({ type: 'xyz', url: 'http://t.example/{z}/{x}/{y}' })).toEqual(['http://t.example']);
    // Other sources keep refusing a host with braces.
    expect(() => sourceBase({ type: 'tilejson', url: 'https://{s}.example/tiles.json' })).toThrow(UsageError);
  });
});

const CAPS_111 = `<?xml version="1.0"?>
<!DOCTYPE WMT_MS_Capabilities SYSTEM "http://schemas.opengis.net/wms/1.1.1/WMS_MS_Capabilities.dtd"[ <!ELEMENT VendorSpecificCapabilities EMPTY> ]>
<WMT_MS_Capabilities version="1.1.1">
  <Service><Name>OGC:WMS</Name><Title>Old WMS</Title></Service>
  <Capability>
    <Request><GetMap><Format>image/png</Format><Format>image/jpeg</Format><Format>image/gif</Format>
      <DCPType><HTTP><Get><OnlineResource xmlns:xlink="http://www.w3.org/1999/xlink" xlink:href="http://internal:8080/wms?"/></Get></HTTP></DCPType></GetMap></Request>
    <Layer>
      <Title>Root</Title>
      <SRS>EPSG:4326</SRS><SRS>EPSG:900913</SRS>
      <LatLonBoundingBox minx="-180" miny="-90" maxx="180" maxy="90" />
      <Layer>
        <Name>roads</Name><Title>Roads</Title>
        <LatLonBoundingBox minx="5.9" miny="45.8" maxx="10.5" maxy="47.8" />
        <ScaleHint min="${5e7 * 0.00028 * Math.SQRT2}" max="${3e8 * 0.00028 * Math.SQRT2}" />
      </Layer>
      <Layer><Name>base</Name><Title>Base</Title></Layer>
    </Layer>
  </Capability>
</WMT_MS_Capabilities>`;

const CAPS_130 = `<?xml version="1.0"?>
<WMS_Capabilities xmlns="http://www.opengis.net/wms" xmlns:xlink="http://www.w3.org/1999/xlink" version="1.3.0">
  <Service><Name>WMS</Name><Title>New WMS</Title></Service>
  <Capability>
    <Request><GetMap><Format>image/png</Format><Format>image/png; mode=8bit</Format><Format>application/pdf</Format></GetMap></Request>
    <Layer>
      <Title>Root</Title>
      <CRS>EPSG:3857</CRS>
      <Attribution><Title>© Example Mapping</Title></Attribution>
      <MaxScaleDenominator>300000000</MaxScaleDenominator>
      <Layer>
        <Name>parcels</Name><Title>Parcels</Title><Abstract>Land</Abstract>
        <CRS>EPSG:2056</CRS>
        <EX_GeographicBoundingBox><westBoundLongitude>5.9</westBoundLongitude><eastBoundLongitude>10.5</eastBoundLongitude><southBoundLatitude>45.8</southBoundLatitude><northBoundLatitude>89</northBoundLatitude></EX_GeographicBoundingBox>
        <MinScaleDenominator>1000</MinScaleDenominator>
        <MaxScaleDenominator>5000000</MaxScaleDenominator>
      </Layer>
      <Layer><Name>world</Name><Title>World</Title></Layer>
    </Layer>
  </Capability>
</WMS_Capabilities>`;

describe('WMS capabilities', () => {
  test('1.1.1: layers with inherited SRS, bounds from LatLonBoundingBox, ScaleHint (pixel diagonals) as scale denominators', () => {
    const caps = parseWmsCapabilities(CAPS_111);
    expect(caps.version).toBe('1.1.1');
    expect(caps.formats).toEqual(['image/png', 'image/jpeg', 'image/gif']);
    expect([...caps.layers.keys()]).toEqual(['roads', 'base']);
    const roads = caps.layers.get('roads')!;
    expect(roads.crs).toEqual(['EPSG:4326', 'EPSG:900913']);
    expect(roads.bounds).toEqual([5.9, 45.8, 10.5, 47.8]);
    expect(roads.minScale).toBeCloseTo(5e7, 0);
    expect(roads.maxScale).toBeCloseTo(3e8, 0);
    // The root's box, clipped to Web Mercator's latitudes.
    expect(caps.layers.get('base')!.bounds).toEqual([-180, -85.0511287798066, 180, 85.0511287798066]);
  });
  test('1.3.0: CRS added up, scale range and attribution inherited unless the layer has its own', () => {
    const caps = parseWmsCapabilities(CAPS_130);
    const parcels = caps.layers.get('parcels')!;
    expect(parcels).toMatchObject({ title: 'Parcels', abstract: 'Land', crs: ['EPSG:3857', 'EPSG:2056'], minScale: 1000, maxScale: 5000000, attribution: '© Example Mapping' });
    expect(parcels.bounds).toEqual([5.9, 45.8, 10.5, 85.0511287798066]);
    expect(caps.layers.get('world')).toMatchObject({ maxScale: 300000000, attribution: '© Example Mapping', bounds: undefined });
  });
  test('an exception report or another document is an error with its text', () => {
    expect(() => parseWmsCapabilities('<ServiceExceptionReport><ServiceException>no such map</ServiceException></ServiceExceptionReport>')).toThrow(/exception: no such map/);
    expect(() => parseWmsCapabilities('<html><body>login</body></html>')).toThrow(/not WMS capabilities/);
  });
  test('scale ranges to zooms (0.28 mm pixels; z0 is 1:559082264 at 256 px, 1:279541132 at 512 px)', () => {
    expect(zoomsOfScaleRange(5e7, 3e8, 256)).toEqual({ minzoom: 1, maxzoom: 3 });
    expect(zoomsOfScaleRange(5e7, 3e8, 512)).toEqual({ minzoom: 0, maxzoom: 2 });
    expect(zoomsOfScaleRange(undefined, undefined, 256)).toEqual({ minzoom: 0, maxzoom: undefined });
    // A range ending exactly on a zoom's scale holds that zoom (rounded values get 1e-6 of slack).
    expect(zoomsOfScaleRange(69885283.0035897, 559082264.028717, 256)).toEqual({ minzoom: 0, maxzoom: 3 });
    expect(zoomsOfScaleRange(1e8, 1.2e8, 256)).toBe('empty');
  });
});

const src = (o: Partial<WmsSource> = {}): WmsSource => ({ type: 'wms', url: 'http://w.example/wms?MAP=/x.map', layers: 'parcels', ...o });

describe('planning a WMS source', () => {
  const caps130 = parseWmsCapabilities(CAPS_130);
  const caps111 = parseWmsCapabilities(CAPS_111);
  test('the layer\'s scale range gives the zooms and is named in a note', () => {
    const p = wmsOffer(caps130, src(), undefined);
    // z6 (1:8,735,660) is beyond MaxScaleDenominator 1:5,000,000: z7 (1:4,367,830) is the first zoom drawn.
    expect(p).toMatchObject({ minzoom: 7, maxzoom: 19, crs: 'EPSG:3857', format: 'image/png', attribution: '© Example Mapping', bounds: [5.9, 45.8, 10.5, 85.0511287798066] });
    expect(p.notes.join('\n')).toContain("the layers' scale range (parcels 1:1000 to 1:5000000) draws them at z7-19 (256 px tiles): mirrored z7-19");
  });
  test('without a scale range the request must give the zooms', () => {
    expect(() => wmsOffer(caps111, src({ layers: 'base' }), undefined)).toThrow(/have no scale range: give --zoom MIN-MAX/);
    expect(wmsOffer(caps111, src({ layers: 'base' }), [0, 4])).toMatchObject({ minzoom: 0, maxzoom: 4, crs: 'EPSG:900913' });
    expect(() => wmsOffer(caps130, src({ layers: 'world' }), undefined)).toThrow(/have no smallest scale/);
    expect(() => wmsOffer(caps130, src(), [0, 5])).toThrow(/zooms 0-5 requested, but the WMS draws parcels only at z7-19/);
  });
  test('a missing layer, an unoffered format, a format that is no tile, no Web Mercator: UsageErrors naming what there is', () => {
    expect(() => wmsOffer(caps130, src({ layers: 'parcels,nope' }), [0, 9])).toThrow(/the WMS has no layer "nope" \(its layers: parcels, world\)/);
    expect(() => wmsOffer(caps130, src({ format: 'image/jpeg' }), [8, 9])).toThrow(/does not offer --format image\/jpeg for GetMap \(offered: image\/png, image\/png; mode=8bit, application\/pdf\)/);
    expect(() => wmsOffer(caps130, src({ format: 'application/pdf' }), [8, 9])).toThrow(/stored as png, jpeg or webp/);
    const no3857 = parseWmsCapabilities(CAPS_111.replace('<SRS>EPSG:900913</SRS>', ''));
    expect(() => wmsOffer(no3857, src({ layers: 'roads' }), [1, 2])).toThrow(/does not offer layer roads in Web Mercator/);
    expect(() => wmsOffer(caps130, src({ layers: 'parcels' }), [8, 9])).not.toThrow();
    expect(wmsOffer(caps130, src({ format: 'IMAGE/PNG; mode=8bit' }), [8, 9]).format).toBe('image/png; mode=8bit');
  });
  test('GetMap and GetCapabilities URLs: the service URL\'s own parameters kept, the WMS ones set', () => {
    expect(wmsBase('http://w/wms?service=WMS&request=GetCapabilities&MAP=/x.map&version=1.1.1')).toBe('http://w/wms?MAP=/x.map&');
    expect(wmsBase('http://w/wms')).toBe('http://w/wms?');
    expect(capabilitiesUrl({ url: 'http://w/wms?MAP=/x.map' })).toBe('http://w/wms?MAP=/x.map&SERVICE=WMS&REQUEST=GetCapabilities&VERSION=1.3.0');
    const t111 = getMapTemplate({ url: 'http://w/wms?MAP=/x.map', version: '1.1.1', layers: ['a b', 'c'], styles: '', format: 'image/png', crs: 'EPSG:3857', tileSize: 512 });
    expect(t111).toBe('http://w/wms?MAP=/x.map&SERVICE=WMS&VERSION=1.1.1&REQUEST=GetMap&LAYERS=a%20b,c&STYLES=&SRS=EPSG:3857&BBOX={bbox-epsg-3857}&WIDTH=512&HEIGHT=512&FORMAT=image%2Fpng&TRANSPARENT=TRUE');
    const t130 = getMapTemplate({ url: 'http://w/wms', version: '1.3.0', layers: ['a'], styles: 'dark', format: 'image/jpeg', crs: 'EPSG:3857', tileSize: 256 });
    expect(t130).toBe('http://w/wms?SERVICE=WMS&VERSION=1.3.0&REQUEST=GetMap&LAYERS=a&STYLES=dark&CRS=EPSG:3857&BBOX={bbox-epsg-3857}&WIDTH=256&HEIGHT=256&FORMAT=image%2Fjpeg');
  });
});

describe('OGC exceptions in place of a tile', () => {
  const se111 = Buffer.from(`<?xml version="1.0"?>
<!DOCTYPE ServiceExceptionReport SYSTEM "http://schemas.opengis.net/wms/1.1.1/exception_1_1_1.dtd">
<ServiceExceptionReport version="1.1.1">
    <ServiceException code="LayerNotDefined">unknown layer: nope</ServiceException>
</ServiceExceptionReport>`);
  test('the text (with its code) of WMS 1.1.1, 1.3.0 and OWS reports; other bodies are not exceptions', () => {
    expect(ogcExceptionText(se111)).toBe('[LayerNotDefined] unknown layer: nope');
    expect(ogcExceptionText(Buffer.from('<ogc:ServiceExceptionReport xmlns:ogc="http://www.opengis.net/ogc"><ogc:ServiceException><![CDATA[Could not get any sources: a & b]]></ogc:ServiceException></ogc:ServiceExceptionReport>'))).toBe('Could not get any sources: a & b');
    expect(ogcExceptionText(Buffer.from('<ows:ExceptionReport><ows:Exception exceptionCode="TileOutOfRange"><ows:ExceptionText>row 9 &gt; 7</ows:ExceptionText></ows:Exception></ows:ExceptionReport>'))).toBe('[TileOutOfRange] row 9 > 7');
    expect(ogcExceptionText(Buffer.from('<html><body>ServiceExceptionReport</body></html>'))).toBeUndefined();
    expect(ogcExceptionText(Buffer.from([0x89, 0x50, 0x4e, 0x47]))).toBeUndefined();
  });
  test('a ServiceException with HTTP 200 whose code names a fault in the request is a permanent failure of the tile, with its text', () => {
    for (const type of ['application/vnd.ogc.se_xml', 'text/xml; charset=utf-8', 'image/png']) {
      const v = validateTile({ status: 200, headers: { 'content-type': type }, body: se111 }, 'png');
      expect(v).toEqual({ kind: 'bad', retry: false, reason: 'the server answered with an OGC exception: [LayerNotDefined] unknown layer: nope' });
    }
    const outOfRange = Buffer.from('<ows:ExceptionReport><ows:Exception exceptionCode="TileOutOfRange"><ows:ExceptionText>row 9</ows:ExceptionText></ows:Exception></ows:ExceptionReport>');
    expect(validateTile({ status: 200, headers: {}, body: outOfRange }, 'png')).toMatchObject({ kind: 'bad', retry: false });
  });
  test('one without a code, or with NoApplicableCode, is the server\'s own trouble: retried', () => {
    const mapproxy = Buffer.from('<?xml version="1.0"?><ServiceExceptionReport version="1.1.1"><ServiceException>Could not get any sources</ServiceException></ServiceExceptionReport>');
    const noCode = Buffer.from('<ows:ExceptionReport><ows:Exception exceptionCode="NoApplicableCode"><ows:ExceptionText>backend timeout</ows:ExceptionText></ows:Exception></ows:ExceptionReport>');
    expect(validateTile({ status: 200, headers: { 'content-type': 'application/vnd.ogc.se_xml' }, body: mapproxy }, 'png')).toEqual({
      kind: 'bad',
      retry: true,
      reason: 'the server answered with an OGC exception: Could not get any sources',
    });
    expect(validateTile({ status: 200, headers: {}, body: noCode }, 'png')).toEqual({
      kind: 'bad',
      retry: true,
      reason: 'the server answered with an OGC exception: [NoApplicableCode] backend timeout',
    });
  });
  test('the summary says whether a rerun can help', () => {
    expect(failedLine(3, 0)).toBe('3 tiles failed; run the same command again to retry them');
    expect(failedLine(3, 3)).toMatch(/^3 tiles failed permanently .*a rerun will not help/);
    expect(failedLine(5, 2)).toBe('5 tiles failed, 2 of them permanently (a rerun will not help those); run the same command again to retry the other 3');
  });
});

describe('the --source-* flags and the job form', () => {
  const flags = (f: Partial<Flags>): Flags => ({ data: 'mirror', bbox: [], area: [], concurrency: 8, timeout: 30, failureBudget: 100, ...f });
  const given = (...names: (keyof Flags)[]) => (n: keyof Flags) => names.includes(n);
  test('each source from its flags', () => {
    expect(sourceFromFlags(flags({ sourceXyz: 'http://{s}.t/{z}/{x}/{y}.png', subdomains: ['a', 'b'], scheme: 'tms' }), given('sourceXyz', 'subdomains', 'scheme'))).toEqual({ type: 'xyz', url: 'http://{s}.t/{z}/{x}/{y}.png', subdomains: ['a', 'b'], scheme: 'tms' });
    expect(sourceFromFlags(flags({ sourceWms: 'http://w/wms', layers: 'a,b', styles: '', format: { mime: 'image/jpeg' }, wmsVersion: '1.1.1', tileSize: 512 }), given('sourceWms', 'layers', 'styles', 'format', 'wmsVersion', 'tileSize'))).toEqual({
      type: 'wms', url: 'http://w/wms', layers: 'a,b', styles: '', format: 'image/jpeg', version: '1.1.1', tileSize: 512,
    });
    // --wms-version's default is no misuse without --source-wms.
    expect(sourceFromFlags(flags({ wmsVersion: '1.3.0' }), given())).toBeUndefined();
  });
  test('misuse names the flag', () => {
    expect(() => sourceFromFlags(flags({ sourceXyz: 'http://t/{z}/{x}/{y}', sourceWms: 'http://w' }), given())).toThrow('give one source, not --source-xyz and --source-wms');
    expect(() => sourceFromFlags(flags({ sourceWms: 'http://w' }), given('sourceWms'))).toThrow('--source-wms needs --layers');
    expect(() => sourceFromFlags(flags({ sourceXyz: 'http://t/{z}/{x}/{y}', layers: 'a' }), given('sourceXyz', 'layers'))).toThrow('--layers goes with --source-wms');
    expect(() => sourceFromFlags(flags({ sourceWms: 'http://w', layers: 'a', subdomains: ['a'] }), given('sourceWms', 'layers', 'subdomains'))).toThrow('--subdomains goes with --source-xyz');
    expect(() => sourceFromFlags(flags({ sourceWms: 'http://w', layers: 'a', format: ['png'] }), given('sourceWms', 'layers', 'format'))).toThrow(/--format is the GetMap MIME type/);
    expect(() => sourceFromFlags(flags({ sourceXyz: 'http://t/{z}/{x}/{y}', format: { mime: 'image/png' } }), given('sourceXyz', 'format'))).toThrow(/goes with --source-wms/);
    expect(() => sourceFromFlags(flags({ scheme: 'tms' }), given('scheme'))).toThrow('--scheme goes with --source-xyz');
    expect(() => sourceFromFlags(flags({ format: { mime: 'image/png' } }), given('format'))).toThrow(/--format image\/png \(a MIME type\) goes with --source-wms/);
    expect(sourceFromFlags(flags({ format: ['png', 'webp'] }), given('format'))).toBeUndefined();
  });
  test('source: {xyz: ...} and {wms: ...} in a job', () => {
    const config = parseConfig(
      {
        mirror: {
          jobs: [
            { name: 'osm', resources: ['tiles/osm'], zoom: [0, 5], source: { xyz: 'https://{s}.tile.example/{z}/{x}/{y}.png?key=K1', subdomains: ['a', 'b', 'c'], scheme: 'xyz' } },
            { name: 'wms', resources: ['tiles/parcels'], zoom: [8, 12], source: { wms: 'https://w.example/wms?MAP=x', layers: ['parcels', 'roads'], styles: ['', 'dark'], format: 'image/jpeg', version: '1.1.1', tileSize: 512 } },
          ],
        },
      },
      'test',
      '/tmp',
    );
    const [osm, wms] = configuredJobs(config, {});
    expect(osm).toMatchObject({ upstream: 'https://a.tile.example', key: 'K1', source: { type: 'xyz', url: 'https://{s}.tile.example/{z}/{x}/{y}.png', subdomains: ['a', 'b', 'c'], scheme: 'xyz' } });
    expect(wms).toMatchObject({ upstream: 'https://w.example', source: { type: 'wms', url: 'https://w.example/wms?MAP=x', layers: 'parcels,roads', styles: ',dark', format: 'image/jpeg', version: '1.1.1', tileSize: 512 } });
    const bad = (source: unknown) => () => configuredJobs(parseConfig({ mirror: { jobs: [{ name: 'j', resources: ['tiles/j'], source }] } }, 'test', '/tmp'), {});
    expect(bad({ xyz: 'https://{s}.t/{z}/{x}/{y}.png' })).toThrow(/mirror.jobs\[0\].source: .*give its subdomains/);
    expect(bad({ wms: 'https://w/wms', layers: 'a', tileSize: 300 })).toThrow(ConfigError);
    expect(bad({ wms: 'https://w/wms', layers: 'a', format: 'png' })).toThrow(/a MIME type/);
  });
});
