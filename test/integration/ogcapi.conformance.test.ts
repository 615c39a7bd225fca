import { SAMPLE_OGC_CONFORMANCE } from '../fixtures/sample-listings';
import { startServer, type TestServer } from '../helpers/server';

// OGC API - Tiles over HTTP against the sample, class by class of what /ogc/conformance declares, tried as the OGC's
// test suite (ets-ogcapi-tiles10) tries a server: from the landing page, following links (absolute, with the key),
// never building a path the documents do not give. Written from the requirements of OGC API - Common Part 1,
// OGC API - Tiles 1.0 (OGC 20-057) and 2D-TMS 2.0, and what the suite asserts of them. Then every error an /ogc
// route answers: its status, and a problem details document (RFC 9457) in application/problem+json.

let srv: TestServer;
beforeAll(async () => {
  srv = await startServer();
});
afterAll(() => srv.close());

interface Link {
  href: string;
  rel: string;
  type?: string;
  templated?: boolean;
}
interface Limits {
  tileMatrix: string;
  minTileRow: number;
  maxTileRow: number;
  minTileCol: number;
  maxTileCol: number;
}
interface TilesetEntry {
  dataType: string;
  crs: string;
  tileMatrixSetURI?: string;
  tileMatrixSetId: string;
  tileMatrixSetLimits: Limits[];
  links: Link[];
}

const REL = 'http://www.opengis.net/def/rel/ogc/1.0/';
const PROBLEM = 'application/problem+json';

async function getJson<T>(url: string): Promise<{ status: number; type: string | null; body: T }> {
  const r = await fetch(url, { headers: { Accept: 'application/json' } });
  return { status: r.status, type: r.headers.get('content-type'), body: (await r.json()) as T };
}
const links = (doc: { links: Link[] }, rel: string) => doc.links.filter((l) => l.rel === rel);
const one = (doc: { links: Link[] }, rel: string): Link => {
  const found = links(doc, rel);
  if (found.length === 0) throw new Error(`no link rel=${rel} in ${JSON.stringify(doc.links)}`);
  return found[0];
};
/** The tile URL of a templated link for one address. */
const tileUrl = (template: string, m: string, row: number, col: number) =>
  template.replace('{tileMatrix}', m).replace('{tileRow}', String(row)).replace('{tileCol}', String(col));
/** The first, middle and last of a list. */
const firstMiddleLast = <T>(list: T[]): T[] => [...new Set([list[0], list[Math.floor((list.length - 1) / 2)], list[list.length - 1]])];

let landing: { links: Link[] };
let conformsTo: string[];
beforeAll(async () => {
  const l = await getJson<{ links: Link[] }>(`${srv.url}/ogc?key=demo`);
  expect([l.status, l.type]).toEqual([200, 'application/json; charset=utf-8']);
  landing = l.body;
  const c = await getJson<{ conformsTo: string[] }>(one(landing, 'conformance').href);
  expect([c.status, c.type]).toEqual([200, 'application/json; charset=utf-8']);
  conformsTo = c.body.conformsTo;
});

/** Every tileset list the API links: the landing page's (dataset) and each collection's (geodata). */
async function tilesetLists(): Promise<{ from: string; href: string; tilesets: TilesetEntry[] }[]> {
  const hrefs = landing.links.filter((l) => l.rel.startsWith(`${REL}tilesets-`)).map((l) => ({ from: 'landing page', href: l.href }));
  const cols = await getJson<{ collections: ({ id: string } & { links: Link[] })[] }>(one(landing, 'data').href);
  for (const c of cols.body.collections) for (const l of c.links.filter((x) => x.rel.startsWith(`${REL}tilesets-`))) hrefs.push({ from: c.id, href: l.href });
  const out = [];
  for (const { from, href } of hrefs) {
    const r = await getJson<{ tilesets: TilesetEntry[] }>(href);
    expect([from, r.status]).toEqual([from, 200]);
    out.push({ from, href, tilesets: r.body.tilesets });
  }
  return out;
}

test('the declaration: the classes of Common, Tiles and 2D-TMS implemented here, dataset tilesets among them (the sample has vector tile sets)', () => {
  expect(conformsTo).toEqual(SAMPLE_OGC_CONFORMANCE);
});

describe('OGC API - Common: core, landing page, JSON', () => {
  test('/req/landing-page/root-success: links to the API definition, its documentation, the conformance declaration and the data', () => {
    for (const rel of ['self', 'service-desc', 'service-doc', 'conformance', 'data']) expect([rel, links(landing, rel).length]).toEqual([rel, 1]);
  });

  test('/req/landing-page/api-definition-success: the service-desc link answers with the type it names', async () => {
    const desc = one(landing, 'service-desc');
    const r = await fetch(desc.href);
    expect([r.status, r.headers.get('content-type')]).toEqual([200, desc.type]);
    expect(((await r.json()) as { openapi: string }).openapi).toBe('3.1.0');
  });

  test('/req/core/query-param-name-unknown: tolerated (/per/core/query-param-name-tolerance), an unknown parameter is ignored', async () => {
    expect((await fetch(`${srv.url}/ogc/conformance?key=demo&f=json`)).status).toBe(200);
  });
});

describe('OGC API - Tiles', () => {
  test('dataset tilesets (/req/dataset-tilesets/landingpage, /operation): the landing page links the root\'s /tiles, which lists a tileset', async () => {
    const l = one(landing, `${REL}tilesets-vector`);
    expect(new URL(l.href).pathname).toBe('/ogc/tiles');
    const r = await getJson<{ tilesets: TilesetEntry[] }>(l.href);
    expect(r.status).toBe(200);
    expect(r.body.tilesets.length).toBeGreaterThanOrEqual(1);
  });

  test('geodata tilesets (/req/geodata-tilesets/desc-links, /operation): each collection links a list at .../tiles holding a tileset', async () => {
    const cols = await getJson<{ collections: ({ id: string } & { links: Link[] })[] }>(one(landing, 'data').href);
    for (const c of cols.body.collections) {
      const l = c.links.filter((x) => x.rel === `${REL}tilesets-map` || x.rel === `${REL}tilesets-vector`);
      expect([c.id, l.length]).toEqual([c.id, 1]);
      expect([c.id, new URL(l[0].href).pathname]).toEqual([c.id, expect.stringMatching(/\/tiles$/)]);
      const list = await getJson<{ tilesets: unknown[] }>(l[0].href);
      expect([c.id, list.status, list.body.tilesets.length > 0]).toEqual([c.id, 200, true]);
    }
  });

  test('tilesets list (/req/tilesets-list/tileset-links): each entry has dataType, crs, a self and a tiling-scheme link, the registered set\'s URI', async () => {
    for (const { from, tilesets } of await tilesetLists()) {
      for (const t of tilesets) {
        expect([from, t.dataType, t.crs]).toEqual([from, expect.stringMatching(/^(map|vector)$/), 'http://www.opengis.net/def/crs/EPSG/0/3857']);
        expect([from, links(t, 'self').length, links(t, `${REL}tiling-scheme`).length]).toEqual([from, 1, 1]);
        if (t.tileMatrixSetId === 'WebMercatorQuad') expect(t.tileMatrixSetURI).toBe('http://www.opengis.net/def/tilematrixset/OGC/1.0/WebMercatorQuad');
        expect([from, (await fetch(one(t, 'self').href)).status]).toEqual([from, 200]);
      }
    }
  });

  test('tileset (/req/tileset/description): the tiling scheme resolves to a tile matrix set; one templated, typed item link', async () => {
    for (const { from, tilesets } of await tilesetLists()) {
      for (const t of tilesets) {
        const doc = await getJson<{ dataType: string; crs: string; links: Link[] }>(one(t, 'self').href);
        expect([from, doc.status, doc.type]).toEqual([from, 200, 'application/json; charset=utf-8']);
        const item = one(doc.body, 'item');
        expect([from, item.templated, item.type]).toEqual([from, true, expect.stringMatching(/^(image\/(png|jpeg|webp)|application\/vnd\.mapbox-vector-tile)$/)]);
        for (const v of ['{tileMatrix}', '{tileRow}', '{tileCol}']) expect(item.href).toContain(v);
        const tms = await getJson<{ id: string; crs: string; tileMatrices: unknown[] }>(one(doc.body, `${REL}tiling-scheme`).href);
        expect([from, tms.status, tms.body.id, tms.body.tileMatrices.length > 0]).toEqual([from, 200, t.tileMatrixSetId, true]);
      }
    }
  });

  test('core (/req/core/tc-success, /tc-error): the first, middle and last tile matrix of every tileset; a tile in the limits answers 200 under the type its link names (or 204), one past them 400 problem details', async () => {
    let tried = 0;
    for (const { from, tilesets } of await tilesetLists()) {
      for (const t of tilesets) {
        const item = one(t, 'item');
        for (const l of firstMiddleLast(t.tileMatrixSetLimits)) {
          const what = `${from} ${t.tileMatrixSetId} ${l.tileMatrix}`;
          const ok = await fetch(tileUrl(item.href, l.tileMatrix, l.maxTileRow, l.minTileCol));
          expect([what, ok.status === 200 || ok.status === 204]).toEqual([what, true]);
          if (ok.status === 200) {
            expect([what, ok.headers.get('content-type')]).toEqual([what, item.type]);
            expect((await ok.arrayBuffer()).byteLength).toBeGreaterThan(0);
          }
          for (const [row, col] of [
            [l.maxTileRow + 1, l.minTileCol],
            [l.minTileRow, l.maxTileCol + 1],
            [2147483647, 2147483647],
          ]) {
            const out = await fetch(tileUrl(item.href, l.tileMatrix, row, col));
            expect([what, row, col, out.status, out.headers.get('content-type')]).toEqual([what, row, col, 400, PROBLEM]);
          }
          tried++;
        }
      }
    }
    // Every collection's tilesets and the dataset's, up to three matrices each.
    expect(tried).toBeGreaterThanOrEqual(10);
  });
});

describe('2D-TMS 2.0: tile matrix sets in JSON', () => {
  test('the list links each set; each set has its matrices with the members 2D-TMS 2.0 requires', async () => {
    const list = await getJson<{ tileMatrixSets: ({ id: string } & { links: Link[] })[] }>(one(landing, `${REL}tiling-schemes`).href);
    expect(list.body.tileMatrixSets.map((t) => t.id)).toEqual(['WebMercatorQuad', 'WebMercatorQuad512']);
    for (const t of list.body.tileMatrixSets) {
      const tms = await getJson<{ id: string; crs: string; tileMatrices: Record<string, unknown>[] }>(one(t, 'self').href);
      expect([tms.body.id, tms.body.crs]).toEqual([t.id, 'http://www.opengis.net/def/crs/EPSG/0/3857']);
      expect(tms.body.tileMatrices.map((m) => m.id)).toEqual(Array.from({ length: 25 }, (_, z) => String(z)));
      for (const m of tms.body.tileMatrices) {
        for (const member of ['scaleDenominator', 'cellSize', 'pointOfOrigin', 'tileWidth', 'tileHeight', 'matrixWidth', 'matrixHeight']) expect([m.id, member in m]).toEqual([m.id, true]);
      }
    }
  });
});

describe('every error of an /ogc route: its status, and problem details', () => {
  test.each([
    // the key (the server's own)
    ['/ogc', 403, 'Missing key'],
    ['/ogc/conformance?key=nope', 403, 'Invalid key'],
    ['/ogc/collections/tiles.sample-vector/tiles/WebMercatorQuad512/0/0/0', 403, 'Missing key'],
    // unknown collection, tileset, tile matrix set
    ['/ogc/collections/maps.nope?key=demo', 404, 'Unknown collection: maps.nope'],
    ['/ogc/collections/bogus?key=demo', 404, 'Unknown collection: bogus'],
    ['/ogc/collections/maps.nope/map/tiles/WebMercatorQuad/0/0/0?key=demo', 404, 'Unknown collection: maps.nope'],
    ['/ogc/collections/tiles.sample-vector/map/tiles?key=demo', 404, 'Collection tiles.sample-vector has no map tilesets'],
    ['/ogc/collections/maps.sample/tiles/WebMercatorQuad512?key=demo', 404, 'Collection maps.sample has no vector tilesets'],
    ['/ogc/collections/maps.sample/map/tiles/Nope?key=demo', 404, 'Unknown tileset: Nope'],
    ['/ogc/collections/tiles.sample-vector/tiles/WebMercatorQuad/0/0/0?key=demo', 404, 'Unknown tileset: WebMercatorQuad'],
    ['/ogc/tiles/WebMercatorQuad?key=demo', 404, 'Unknown tileset: WebMercatorQuad'],
    ['/ogc/tiles/Nope/0/0/0?key=demo', 404, 'Unknown tileset: Nope'],
    ['/ogc/tileMatrixSets/Nope?key=demo', 404, 'Unknown tile matrix set: Nope'],
    // invalid parameters: a tileMatrix not in the set, a row or column not an integer or outside the matrix or the limits
    ['/ogc/collections/maps.sample/map/tiles/WebMercatorQuad512/x/0/0?key=demo', 400, 'Invalid tileMatrix: expected the identifier of a tile matrix of the set, 0 to 24'],
    ['/ogc/collections/maps.sample/map/tiles/WebMercatorQuad512/25/0/0?key=demo', 400, 'Invalid tileMatrix: expected the identifier of a tile matrix of the set, 0 to 24'],
    ['/ogc/collections/maps.sample/map/tiles/WebMercatorQuad512/1/-1/0?key=demo', 400, 'Invalid tileRow: expected a non-negative integer'],
    ['/ogc/collections/maps.sample/map/tiles/WebMercatorQuad512/1/0/x?key=demo', 400, 'Invalid tileCol: expected a non-negative integer'],
    ['/ogc/collections/maps.sample/map/tiles/WebMercatorQuad512/1/0/2?key=demo', 400, 'Out of bounds: tile 1/2/0 does not exist'],
    ['/ogc/collections/maps.sample/map/tiles/WebMercatorQuad512/6/0/0?key=demo', 400, 'Out of bounds: zoom 6 is outside 0-5'],
    ['/ogc/collections/tiles.sample-terrain/map/tiles/WebMercatorQuad/8/0/0?key=demo', 400, 'Out of bounds: tile 8/0/0'],
    ['/ogc/tiles/WebMercatorQuad512/6/0/0?key=demo', 400, 'Out of bounds: the dataset has no tile matrix 6'],
    ['/ogc/tiles/WebMercatorQuad512/12/0/0?key=demo', 400, 'Out of bounds: tile 12/0/0'],
    ['/ogc/collections/maps%ZZ?key=demo', 400, 'Invalid percent-encoding in the path'],
  ])('%s → %i %s', async (path, status, detail) => {
    const r = await fetch(`${srv.url}${path}`);
    expect([r.status, r.headers.get('content-type'), r.headers.get('cache-control')]).toEqual([status, PROBLEM, 'no-cache']);
    const title = { 400: 'Bad Request', 403: 'Forbidden', 404: 'Not Found' }[status];
    expect(await r.json()).toEqual({ type: 'about:blank', title, status, detail });
  });
});
