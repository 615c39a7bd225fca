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
import path from 'node:path';
import {
  chrootGdal,
  type Gdal,
  gdalAtLeast,
  gdalinfo,
  gdalinfoFailing,
  gdalTest,
  gdalTranslateTile,
  type InteropServer,
  MAP_STORE,
  startInteropServer,
  systemGdal,
} from './helpers';
import { fetchJson, withKey } from '../helpers/fetch';
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
