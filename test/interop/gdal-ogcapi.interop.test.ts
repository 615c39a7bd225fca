// GDAL's OGCAPI driver (GDAL 3.6) against the served OGC API - Tiles: gdal_translate a tile's footprint from
// the maps.sample collection and compare the pixels with the tile stored in the .mbtiles file.
//
// The tile matrix set identifiers are read from the served documents (collection -> tilesets-map list ->
// tileset -> tiling-scheme), never assumed. GDAL keeps the query string of the URL it is given (?key=demo)
// and adds it to every request it makes.
//
// GDAL before 3.8 takes the collection's extent.spatial.bbox, which OGC API Common requires in CRS84
// degrees, as coordinates of the tile matrix set's CRS (metres here): the raster comes out 360 m wide
// around (0,0) and the open fails ("Computed -srcwin ... has negative width"). GDAL 3.8 reprojects it
// (OSGeo/gdal#8130). A server cannot work around that without breaking the standard (and newer GDAL), so
// with GDAL < 3.8 the extent is passed as -oo MINX/MINY/MAXX/MAXY (in metres), as interop.md advises, and
// the tests relying on the collection's extent are skipped.
// -oo TILEMATRIXSET=<id> selects the tileset whose tileMatrixSetURI *contains* <id>, the last such one
// in the list: 'WebMercatorQuad' is inside '...WebMercatorQuad512' too, so this also checks the order.
import path from 'node:path';
import {
  GDAL_CHECK,
  MERCATOR_HALF,
  clientGate,
  gdalAtLeast,
  expectSamePixels,
  fetchJson,
  gdalinfo,
  gdalTranslateTile,
  makeTempDir,
  pickTile,
  readMetadata,
  readStoredTile,
  startInteropServer,
  storePath,
  withKey,
  type InteropServer,
} from './helpers';

const MAP_STORE = storePath('maps/sample.mbtiles');
const REL_TILESETS_MAP = 'http://www.opengis.net/def/rel/ogc/1.0/tilesets-map';
const REL_TILING_SCHEME = 'http://www.opengis.net/def/rel/ogc/1.0/tiling-scheme';
/** GDAL reads the collection's CRS84 bbox as such (else it needs -oo MINX.. in the tile matrix set's CRS). */
const GDAL_READS_CRS84_BBOX = gdalAtLeast(3, 8);
const testWithCollectionExtent = GDAL_READS_CRS84_BBOX ? test : test.skip;
const WORLD_EXTENT = [`MINX=${-MERCATOR_HALF}`, `MINY=${-MERCATOR_HALF}`, `MAXX=${MERCATOR_HALF}`, `MAXY=${MERCATOR_HALF}`];

interface Link {
  rel: string;
  href: string;
  type?: string;
}
interface MapTileset {
  /** Identifier of the tile matrix set (as GDAL's TILEMATRIXSET option matches it against tileMatrixSetURI). */
  tmsId: string;
  tileMatrixSetURI: string;
  tileSize: number;
  /** The store pyramid holding these tiles: undefined for the main (512 px) one. */
  pyramid: string | undefined;
}

function link(links: Link[] | undefined, rel: string, what: string): Link {
  const found = (links ?? []).filter((l) => l.rel === rel);
  const l = found.find((x) => x.type === 'application/json') ?? found[0];
  if (!l) throw new Error(`${what}: no link rel=${rel} (links: ${(links ?? []).map((x) => x.rel).join(', ')})`);
  return l;
}

describe('GDAL OGCAPI driver reads the served OGC API - Tiles', () => {
  const available = clientGate('GDAL OGCAPI driver', GDAL_CHECK);
  let server: InteropServer;
  let tmp: { dir: string; cleanup: () => void };
  let mapMax: number;
  let tilesets: MapTileset[];

  const absolute = (href: string) => withKey(new URL(href, `${server.url}/`).toString());
  const collection = () => `OGCAPI:${server.url}/ogc/collections/maps.sample?key=demo`;

  beforeAll(async () => {
    server = await startInteropServer();
    tmp = makeTempDir('gdal-ogcapi');
    mapMax = Number(readMetadata(MAP_STORE).maxzoom);

    // Walk the documents as GDAL does, to learn the tile matrix sets offered for the map.
    const coll = await fetchJson<{ links: Link[] }>(`${server.url}/ogc/collections/maps.sample?key=demo`);
    const list = await fetchJson<{ tilesets: { dataType: string; tileMatrixSetURI: string; links: Link[] }[] }>(
      absolute(link(coll.links, REL_TILESETS_MAP, 'collection maps.sample').href),
    );
    tilesets = [];
    for (const ts of list.tilesets.filter((t) => t.dataType === 'map')) {
      const doc = await fetchJson<{ links: Link[] }>(absolute(link(ts.links, 'self', 'tileset list entry').href));
      const tms = await fetchJson<Record<string, unknown>>(absolute(link(doc.links, REL_TILING_SCHEME, 'tileset').href));
      const matrices = (tms.tileMatrices ?? tms.tileMatrix) as { tileWidth: number }[];
      const tileSize = matrices[0].tileWidth;
      tilesets.push({
        tmsId: String(tms.id ?? tms.identifier),
        tileMatrixSetURI: ts.tileMatrixSetURI,
        tileSize,
        pyramid: tileSize === 512 ? undefined : String(tileSize),
      });
    }
  });
  afterAll(async () => {
    await server?.close();
    tmp?.cleanup();
  });

  let n = 0;
  const out = (label: string) => path.join(tmp.dir, `${++n}-${label.replace(/[^\w.-]+/g, '_')}.png`);

  test('the collection offers map tilesets of 512 px and 256 px tiles', () => {
    expect(tilesets.map((t) => t.tileSize).sort()).toEqual(expect.arrayContaining([256, 512]));
  });

  test('gdalinfo opens the collection as a Web Mercator raster', async () => {
    if (!available()) return;
    const info = await gdalinfo(collection(), GDAL_READS_CRS84_BBOX ? [] : WORLD_EXTENT, tmp.dir);
    expect(info.coordinateSystem?.wkt).toMatch(/Pseudo-Mercator|3857/);
    expect(info.bands.length).toBeGreaterThanOrEqual(3);
  });

  test('each map tileset, selected with -oo TILEMATRIXSET=<id> and a world extent (-oo MINX..MAXY)', async () => {
    if (!available()) return;
    for (const ts of tilesets) {
      const tile = pickTile(MAP_STORE, mapMax, { pyramid: ts.pyramid });
      const label = `ogcapi-${ts.tmsId}-bbox`;
      const file = out(label);
      await gdalTranslateTile(collection(), tile, ts.tileSize, file, {
        openOptions: ['API=TILES', `TILEMATRIXSET=${ts.tmsId}`, ...WORLD_EXTENT],
      });
      await expectSamePixels(file, readStoredTile(MAP_STORE, tile, ts.pyramid), `${label} (tile ${tile.z}/${tile.x}/${tile.y})`);
    }
  });

  testWithCollectionExtent('each map tileset, selected with -oo TILEMATRIXSET=<id>, extent from the collection', async () => {
    if (!available()) return;
    for (const ts of tilesets) {
      const tile = pickTile(MAP_STORE, mapMax, { pyramid: ts.pyramid });
      const label = `ogcapi-${ts.tmsId}`;
      const file = out(label);
      await gdalTranslateTile(collection(), tile, ts.tileSize, file, { openOptions: [`TILEMATRIXSET=${ts.tmsId}`] });
      await expectSamePixels(file, readStoredTile(MAP_STORE, tile, ts.pyramid), `${label} (tile ${tile.z}/${tile.x}/${tile.y})`);
    }
  });

  test('default tileset (only the extent given for GDAL < 3.8): a tile at the max zoom and one from an overview', async () => {
    if (!available()) return;
    const oo = GDAL_READS_CRS84_BBOX ? [] : WORLD_EXTENT;
    const info = await gdalinfo(collection(), oo, tmp.dir);
    // Which tileset GDAL chose shows in its pixel size at full resolution.
    const chosen = tilesets.find((t) => Math.abs(info.geoTransform[1] - (2 * Math.PI * 6378137) / t.tileSize / 2 ** mapMax) < 1e-6);
    expect(chosen).toBeDefined();
    for (const z of [mapMax, Math.max(0, mapMax - 2)]) {
      const tile = pickTile(MAP_STORE, z, { pyramid: chosen!.pyramid });
      const file = out(`ogcapi-default-z${z}`);
      await gdalTranslateTile(collection(), tile, chosen!.tileSize, file, { openOptions: oo });
      await expectSamePixels(file, readStoredTile(MAP_STORE, tile, chosen!.pyramid), `default tileset (tile ${tile.z}/${tile.x}/${tile.y})`);
    }
  });
});
