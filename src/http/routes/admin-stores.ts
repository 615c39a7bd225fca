// The admin API's stores: every store the catalog serves with what an operator needs to know of it (kind, format,
// tile size, zooms, bounds, tiles, bytes on disk, publication, origin, the job that fills it, the grids besides Web
// Mercator it is offered in), and a store's coverage at one zoom as GeoJSON: its mirrored area and the tiles
// actually present in the store (read from the store, not from a plan), so a gap shows on a map; with `grid`, the
// tiles kept in that grid at one matrix (services/wms/kept-grid-tiles.ts), drawn in lon/lat (ogc/coverage.ts).

import { z } from 'zod';
import type { Bounds } from '../../geo/bounds';
import type { GridMatrix } from '../../geo/grids';
import { tileBoundsLonLat, tileRange } from '../../geo/mercator';
import { boxRing, defaultGridMatrix, gridCoverage, gridTileOutlines, mirroredFeature } from '../../ogc/coverage';
import { gridSource } from '../../ogc/grid-tilesets';
import { boundsInGrid } from '../../services/wms/grid-bounds';
import { matrixTileRange } from '../../services/wms/grid-prerender';
import type { TileStore } from '../../store/tile-reader';
import type { ResourceKind } from '../../store/types';
import { ServiceError } from '../../errors';
import { badRequest, type Reply } from '../reply';
import type { RequestContext } from '../route-table';
import { adminJson, checkAdminRead } from './admin-auth';

/** Most tile features in one coverage answer; `z` defaults to the deepest zoom whose expected tiles stay under it. */
export const COVERAGE_TILES = 20_000;

export const coverageParams = z.object({
  id: z.string().min(1).max(300).meta({ description: 'The store: its path under the data directory without extension, URL-encoded (maps%2Fsample)' }),
  z: z
    .string()
    // Its own message: zod's ("Invalid string: ...") would not name the parameter (route-table.ts issueMessage).
    .regex(/^\d{1,2}$/, { error: 'Invalid z: expected a zoom (or matrix) of one or two digits' })
    .optional()
    .meta({
      description:
        'Zoom of the tiles listed (default: the deepest zoom with at most 20,000 expected tiles); with `grid`, the matrix (default: the deepest with at most 20,000 tiles kept)',
      type: 'integer',
    }),
  grid: z
    .string()
    .min(1)
    .max(100)
    .optional()
    .meta({ description: "A grid besides Web Mercator the store is offered in (the store's `grids`): the tiles kept in it are listed" }),
});

/** The configured job whose resources include the store, or null. */
function jobOf(ctx: RequestContext, kind: ResourceKind, id: string): string | null {
  // The job that mirrors the store (a render job writes render stores, not this one).
  return ctx.config.mirror.jobs.find((j) => j.kind !== 'render' && j.resources.some((r) => r === `${kind}/${id}`))?.name ?? null;
}

function tileCountIn(bounds: Bounds, zoom: number): number {
  const r = tileRange(bounds, zoom);
  return (r.maxX - r.minX + 1) * (r.maxY - r.minY + 1);
}

export function adminStores(ctx: RequestContext): Reply {
  checkAdminRead(ctx);
  const published = new Map(ctx.catalog.versions().map((v) => [`${v.kind}/${v.id}`, v]));
  const stores = ctx.catalog.list().map((info) => {
    const id = `${info.kind}/${info.id}`;
    const store = ctx.catalog.get(info.kind, info.id);
    const facts = store ? store.facts() : { tiles: null, bytes: 0, origin: { type: 'imported' as const } };
    const version = published.get(id);
    const gridPyramid = gridSource(info);
    return {
      id,
      kind: info.kind,
      format: info.format,
      storage: store?.file.endsWith('.pmtiles') ? 'pmtiles' : 'mbtiles',
      tileSize: info.pyramids[0]?.tileSize ?? 256,
      minzoom: info.minzoom,
      maxzoom: info.maxzoom,
      bounds: info.bounds,
      tiles: facts.tiles,
      bytes: facts.bytes,
      publishedAt: version ? new Date(version.publishedMs).toISOString() : null,
      version: info.version ?? null,
      origin: facts.origin,
      job: jobOf(ctx, info.kind, info.id),
      // As WMTS and OGC API offer its raster tiles.
      grids: gridPyramid ? ctx.services.gridTiles.gridsFor(gridPyramid.bounds).map((g) => g.id) : [],
      // Relative to the server, as the console fetches it (and a proxy's prefix stays the console's business).
      coverage: `/admin/api/stores/${encodeURIComponent(id)}/coverage`,
    };
  });
  return adminJson({ stores });
}

function findStore(ctx: RequestContext, id: string): TileStore {
  const slash = id.indexOf('/');
  const store = slash > 0 ? ctx.catalog.get(id.slice(0, slash) as ResourceKind, id.slice(slash + 1)) : undefined;
  if (!store) throw new ServiceError('not-found', `No store ${id}`);
  return store;
}

export function adminStoreCoverage(ctx: RequestContext, params: z.output<typeof coverageParams>): Reply | Promise<Reply> {
  checkAdminRead(ctx);
  const store = findStore(ctx, params.id);
  if (params.grid !== undefined) return gridCoverageReply(ctx, store, params.grid, params.z);
  const { info } = store;
  let zoom: number;
  if (params.z !== undefined) {
    zoom = Number(params.z);
    if (zoom < info.minzoom || zoom > info.maxzoom) throw badRequest(`Invalid z: ${params.z} is outside the store's zooms ${info.minzoom}-${info.maxzoom}`);
  } else {
    zoom = info.minzoom;
    while (zoom < info.maxzoom && tileCountIn(info.bounds, zoom + 1) <= COVERAGE_TILES) zoom++;
  }
  const pyramid = info.pyramids[0]?.name ?? 'main';
  const features: unknown[] = [mirroredFeature(info.bounds)];
  let present = 0;
  for (const t of store.scan(pyramid, { minzoom: zoom, maxzoom: zoom })) {
    if (t.z !== zoom) continue;
    present++;
    if (present <= COVERAGE_TILES) {
      features.push({ type: 'Feature', properties: { type: 'tile', z: t.z, x: t.x, y: t.y }, geometry: { type: 'Polygon', coordinates: [boxRing(tileBoundsLonLat(t.z, t.x, t.y))] } });
    }
  }
  return adminJson({ type: 'FeatureCollection', z: zoom, tiles: present, expected: tileCountIn(info.bounds, zoom), truncated: present > COVERAGE_TILES, features });
}

/**
 * The coverage in a grid besides Web Mercator: the tiles kept in it at matrix `z` (png, drawn from the store's main
 * raster pyramid, ogc/grid-tilesets.ts gridSource, as every route and `tilemirror render --grid` draw them), their
 * outlines carried to lon/lat by PROJ.
 */
async function gridCoverageReply(ctx: RequestContext, store: TileStore, gridId: string, z: string | undefined): Promise<Reply> {
  const { info } = store;
  const pyramid = gridSource(info);
  const grid = pyramid && ctx.services.gridTiles.gridsFor(pyramid.bounds).find((g) => g.id === gridId);
  if (!pyramid || !grid) throw new ServiceError('not-found', `${info.kind}/${info.id} is not offered in a grid ${gridId}`);
  const kept = ctx.services.keptGridTiles;
  const source = { store, pyramidName: pyramid.name, name: `${info.kind}/${info.id}` };
  const counts = await kept.counts(source, grid, 'png');
  let matrix: GridMatrix;
  if (z === undefined) {
    matrix = defaultGridMatrix(grid, counts, COVERAGE_TILES);
  } else {
    const asked = grid.matrices.find((m) => Number(m.id) === Number(z));
    const ids = grid.matrices.map((m) => m.id);
    if (!asked) throw badRequest(`Invalid z: ${z} is not a matrix of ${grid.id} (${ids[0]}-${ids[ids.length - 1]})`);
    matrix = asked;
  }
  const tiles = await kept.tilesAt(source, grid, matrix, 'png', COVERAGE_TILES);
  const range = matrixTileRange(grid, matrix, await boundsInGrid(kept.transform, grid, info.bounds));
  const outlines = gridTileOutlines(grid, matrix, tiles);
  const lonLat = grid.epsg === 4326 || tiles.length === 0 ? outlines : await kept.transform(outlines.xs, outlines.ys, grid.epsg, 4326);
  const input = {
    grid,
    matrix,
    bounds: info.bounds,
    tiles,
    kept: counts.find((c) => c.zoom === Number(matrix.id))?.tiles ?? 0,
    expected: (range.maxCol - range.minCol + 1) * (range.maxRow - range.minRow + 1),
  };
  return adminJson(gridCoverage(input, outlines, lonLat));
}
