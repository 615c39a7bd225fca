// GDAL's OGCAPI driver against the served OGC API - Tiles: gdal_translate a tile's footprint from the maps.sample
// collection and compare the pixels with the tile stored in the .mbtiles file. Two GDALs run the same tests:
// the system's (Debian bookworm: 3.6) and Debian trixie's (3.10) from the root filesystem that
// test/setup/gdal-trixie.sh makes, run with chroot (it shares the network, so it reaches the server on 127.0.0.1).
//
// The tile matrix set identifiers are read from the served documents (collection -> tilesets-map list ->
// tileset -> tiling-scheme), never assumed. GDAL keeps the query string of the URL it is given (?key=demo)
// and adds it to every request it makes.
//
// GDAL before 3.8 takes the collection's extent.spatial.bbox, which OGC API Common requires in CRS84
// degrees, as coordinates of the tile matrix set's CRS (metres here): the raster comes out 360 m wide
// around (0,0) and the open fails ("Computed -srcwin ... has negative width"). GDAL 3.8 reprojects it
// (OSGeo/gdal#8130). A server cannot work around that without breaking the standard (and newer GDAL), so
// GDAL < 3.8 is given the extent as -oo MINX/MINY/MAXX/MAXY (in metres), as interop.md advises, and a test
// pins the failure without it; GDAL >= 3.8 reads the extent from the collection, with no work-around.
// -oo TILEMATRIXSET=<id> selects the tileset whose tileMatrixSetURI *contains* <id>, the last such one
// in the list: 'WebMercatorQuad' is inside '...WebMercatorQuad512' too, so this also checks the order.
//
// Whether a GDAL runs is decided when this file loads (gdalTest): a GDAL that cannot run fails its tests
// under CI (CI=true or TILEMIRROR_REQUIRE_CLIENTS) and is a visible skip elsewhere.
//
// Then a server configured with grids besides Web Mercator (`grids`): GDAL reads the map in WorldCRS84Quad and in
// EuropeanETRS89_LAEAQuad (a CRS whose axes are northing first), and a tile-aligned window it reads has the pixels
// of the server's own tile. An operator's grid (Swiss LV95) it cannot select: see the test.
import path from 'node:path';
import {
  chrootGdal,
  type Gdal,
  gdalAtLeast,
  gdalinfo,
  gdalinfoFailing,
  gdalTest,
  gdalTranslateTile,
  gdalTranslateWindow,
  type InteropServer,
  MAP_STORE,
  startInteropServer,
  systemGdal,
} from './helpers';
import { fetchJson, fetchOk, withKey } from '../helpers/fetch';
import { LV95 } from '../helpers/grids';
import { expectSamePixels } from '../helpers/pixels';
import { MERCATOR_HALF, pickTile, readMetadata, readStoredTile } from '../helpers/stored-tiles';
import { tempDirs } from '../helpers/temp-dirs';

const REL_TILESETS_MAP = 'http://www.opengis.net/def/rel/ogc/1.0/tilesets-map';
const REL_TILING_SCHEME = 'http://www.opengis.net/def/rel/ogc/1.0/tiling-scheme';
const WORLD_EXTENT = [`MINX=${-MERCATOR_HALF}`, `MINY=${-MERCATOR_HALF}`, `MAXX=${MERCATOR_HALF}`, `MAXY=${MERCATOR_HALF}`];
/** Earth's circumference at the equator in Web Mercator metres. */
const WORLD_WIDTH = 2 * Math.PI * 6378137;

/** The GDALs under test, and the oldest version each must be (trixie's is there to test GDAL >= 3.8). */
const GDALS: { gdal: Gdal; atLeast?: [number, number] }[] = [{ gdal: systemGdal() }, { gdal: chrootGdal(), atLeast: [3, 8] }];

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
  let server: InteropServer;
  let mapMax: number;
  let tilesets: MapTileset[];

  const absolute = (href: string) => withKey(new URL(href, `${server.url}/`).toString());
  const collection = () => `OGCAPI:${server.url}/ogc/collections/maps.sample?key=demo`;

  beforeAll(async () => {
    server = await startInteropServer();
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
  });

  test('the collection offers map tilesets of 512 px and 256 px tiles', () => {
    expect(tilesets.map((t) => t.tileSize).sort()).toEqual(expect.arrayContaining([256, 512]));
  });

  describe.each(GDALS)('$gdal.label', ({ gdal, atLeast }) => {
    const it = gdalTest(gdal);
    /** GDAL reads the collection's CRS84 bbox as such (else it needs -oo MINX.. in the tile matrix set's CRS). */
    const readsCrs84Bbox = gdalAtLeast(gdal, 3, 8);
    const extent = readsCrs84Bbox ? [] : WORLD_EXTENT;
    const extentNote = readsCrs84Bbox ? 'extent from the collection' : 'extent given as -oo MINX..MAXY';
    // Created by the first test that writes (a GDAL that cannot run may have no place to write to).
    const temp = tempDirs('tilemirror-gdal-ogcapi-', gdal.tempBase);
    let tmp: string | undefined;
    const dir = () => (tmp ??= temp.tempDir());
    let n = 0;
    const out = (label: string) => path.join(dir(), `${++n}-${label.replace(/[^\w.-]+/g, '_')}.png`);
    afterAll(temp.removeTempDirs);

    if (atLeast) {
      it(`is GDAL ${atLeast.join('.')} or later`, () => {
        if (!gdal.version || !gdalAtLeast(gdal, atLeast[0], atLeast[1])) throw new Error(`${gdal.label}: too old for these tests`);
      });
    }

    it(`gdalinfo opens the collection as a Web Mercator raster (${extentNote})`, async () => {
      const info = await gdalinfo(collection(), extent, dir(), gdal);
      expect(info.coordinateSystem?.wkt).toMatch(/Pseudo-Mercator|3857/);
      expect(info.bands.length).toBeGreaterThanOrEqual(3);
    });

    /** For each map tileset, selected with -oo TILEMATRIXSET=<id> (and `more`), a tile at the max zoom equals the stored one. */
    const eachTileset = async (more: string[], suffix: string) => {
      for (const ts of tilesets) {
        const tile = pickTile(MAP_STORE, mapMax, { pyramid: ts.pyramid });
        const label = `ogcapi-${ts.tmsId}${suffix}`;
        const file = out(label);
        await gdalTranslateTile(collection(), tile, ts.tileSize, file, { openOptions: [`TILEMATRIXSET=${ts.tmsId}`, ...more], gdal });
        await expectSamePixels(file, readStoredTile(MAP_STORE, tile, ts.pyramid), `${label} (tile ${tile.z}/${tile.x}/${tile.y})`);
      }
    };

    it('each map tileset, selected with -oo TILEMATRIXSET=<id> and a world extent (-oo MINX..MAXY)', () =>
      eachTileset(['API=TILES', ...WORLD_EXTENT], '-bbox'));

    if (readsCrs84Bbox) {
      it('each map tileset, selected with -oo TILEMATRIXSET=<id>, extent from the collection', () => eachTileset([], ''));
    } else {
      // The reason for the work-around: when this starts to pass, the system GDAL reads the extent itself.
      it('without -oo MINX..MAXY the open fails: GDAL < 3.8 reads the CRS84 bbox as metres', async () => {
        const r = await gdalinfoFailing(collection(), [], dir(), gdal);
        expect(r.stderr).toMatch(/Computed -srcwin .* has negative width/);
      });
    }

    it(`default tileset (${extentNote}): a tile at the max zoom and one from an overview`, async () => {
      const info = await gdalinfo(collection(), extent, dir(), gdal);
      // Which tileset GDAL chose shows in its pixel size at full resolution.
      const chosen = tilesets.find((t) => Math.abs(info.geoTransform[1] - WORLD_WIDTH / t.tileSize / 2 ** mapMax) < 1e-6);
      if (!chosen) throw new Error(`pixel size ${info.geoTransform[1]} matches no tileset at zoom ${mapMax}`);
      for (const z of [mapMax, Math.max(0, mapMax - 2)]) {
        const tile = pickTile(MAP_STORE, z, { pyramid: chosen.pyramid });
        const file = out(`ogcapi-default-z${z}`);
        await gdalTranslateTile(collection(), tile, chosen.tileSize, file, { openOptions: extent, gdal });
        await expectSamePixels(file, readStoredTile(MAP_STORE, tile, chosen.pyramid), `default tileset (tile ${tile.z}/${tile.x}/${tile.y})`);
      }
    });
  });
});

describe('GDAL OGCAPI driver reads the map in the configured grids besides Web Mercator', () => {
  let server: InteropServer;
  const collection = () => `OGCAPI:${server.url}/ogc/collections/maps.sample?key=demo`;
  /** The server's own tile of a grid, as it answers it (the bytes GDAL is to have decoded). */
  const serverTile = async (grid: string, m: number, row: number, col: number): Promise<Buffer> =>
    (await fetchOk(`${server.url}/ogc/collections/maps.sample/map/tiles/${grid}/${m}/${row}/${col}?key=demo`)).body;

  beforeAll(async () => {
    server = await startInteropServer({ grids: ['WorldCRS84Quad', 'EuropeanETRS89_LAEAQuad', LV95] });
  });
  afterAll(async () => {
    await server?.close();
  });

  describe.each(GDALS)('$gdal.label', ({ gdal }) => {
    const it = gdalTest(gdal);
    const temp = tempDirs('tilemirror-gdal-ogcapi-grids-', gdal.tempBase);
    let tmp: string | undefined;
    const dir = () => (tmp ??= temp.tempDir());
    let n = 0;
    const out = (label: string) => path.join(dir(), `${++n}-${label.replace(/[^\w.-]+/g, '_')}.png`);
    afterAll(temp.removeTempDirs);

    // GDAL names the set's CRS, OGC's CRS84: WGS 84 (EPSG:4326's datum and degrees) with longitude first.
    const CRS84_WKT = /^GEOGCRS\["WGS 84 \(CRS84\)"[\s\S]*ELLIPSOID\["WGS 84",6378137,298\.257223563[\s\S]*ID\["OGC","CRS84"\]\]$/;

    it('offered WorldCRS84Quad, GDAL opens the collection in it unasked (its OGCAPI driver prefers that set), in CRS84', async () => {
      const info = await gdalinfo(collection(), [], dir(), gdal);
      expect(info.coordinateSystem?.wkt).toMatch(CRS84_WKT);
      // The collection's bounds in degrees, at the cell size of one of the set's matrices (0.703125° halved k
      // times; to 1e-6 of a halving: GDAL crops the matrix to the bounds, which leaves a pixel a hair off).
      expect(info.geoTransform[0]).toBe(-180);
      expect(info.geoTransform[3]).toBeCloseTo(85.0511287798066, 6);
      const halvings = Math.log2(0.703125 / info.geoTransform[1]);
      expect(Math.abs(halvings - Math.round(halvings))).toBeLessThan(1e-6);
    });

    it('WorldCRS84Quad: a tile-aligned window of matrix 2 has the pixels of the server\'s tile 2/1/4 (0°E to 45°E, 0° to 45°N)', async () => {
      const oo = ['TILEMATRIXSET=WorldCRS84Quad', 'TILEMATRIX=2'];
      const info = await gdalinfo(collection(), oo, dir(), gdal);
      expect(info.coordinateSystem?.wkt).toMatch(CRS84_WKT);
      expect(info.geoTransform[1]).toBe(0.17578125);
      const file = out('crs84-2-1-4');
      await gdalTranslateWindow(collection(), [0, 0, 45, 45], { width: 256, height: 256 }, file, { openOptions: oo, gdal });
      await expectSamePixels(file, await serverTile('WorldCRS84Quad', 2, 1, 4), `${gdal.label} WorldCRS84Quad 2/1/4`);
    });

    it('EuropeanETRS89_LAEAQuad (origin northing first): a tile-aligned window of matrix 2 has the pixels of the server\'s tile 2/1/1', async () => {
      // The extent in the set's metres: GDAL before 3.8 reads the collection's CRS84 bbox as such (see above).
      const oo = ['TILEMATRIXSET=EuropeanETRS89_LAEAQuad', 'TILEMATRIX=2', 'MINX=2000000', 'MINY=1000000', 'MAXX=6500000', 'MAXY=5500000'];
      const info = await gdalinfo(collection(), oo, dir(), gdal);
      expect(info.coordinateSystem?.wkt).toMatch(/ID\["EPSG",3035\]\]$/);
      // Easting 2000000, northing 5500000: GDAL swapped the origin back from the CRS's axis order.
      expect(info.geoTransform.slice(0, 4)).toEqual([2000000, 4394.53125, 0, 5500000]);
      const span = 4394.53125 * 256;
      const file = out('laea-2-1-1');
      await gdalTranslateWindow(collection(), [2000000 + span, 5500000 - 2 * span, 2000000 + 2 * span, 5500000 - span], { width: 256, height: 256 }, file, { openOptions: oo, gdal });
      await expectSamePixels(file, await serverTile('EuropeanETRS89_LAEAQuad', 2, 1, 1), `${gdal.label} EuropeanETRS89_LAEAQuad 2/1/1`);
    });

    it("an operator's grid (LV95) it cannot select: TILEMATRIXSET is matched against tileMatrixSetURI, which a set on no register has not", async () => {
      // The server offers it (the tileset and its tiles answer); GDAL up to 3.10 at least finds no tileset to open.
      expect((await fetchOk(`${server.url}/ogc/collections/maps.sample/map/tiles/LV95?key=demo`)).contentType).toMatch(/json/);
      const r = await gdalinfoFailing(collection(), ['TILEMATRIXSET=LV95'], dir(), gdal);
      expect(r.stderr).toMatch(/Cannot find tilematrixset/);
    });
  });
});
