// The admin API's stores: every store the catalog serves with what an operator needs to know of it (kind, format,
// tile size, zooms, bounds, tiles, bytes on disk, publication, origin, the job that fills it), and a store's
// coverage at one zoom as GeoJSON: its mirrored area and the tiles actually present in the store (read from the
// store, not from a plan), so a gap shows on a map.

import { z } from 'zod';
import type { Bounds } from '../../geo/bounds';
import { tileBoundsLonLat, tileRange } from '../../geo/mercator';
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
    .regex(/^\d{1,2}$/)
    .optional()
    .meta({ description: 'Zoom of the tiles listed (default: the deepest zoom with at most 20,000 expected tiles)', type: 'integer' }),
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

const polygon = (b: Bounds): number[][][] => [
  [
    [b[0], b[1]],
    [b[2], b[1]],
    [b[2], b[3]],
    [b[0], b[3]],
    [b[0], b[1]],
  ],
];

export function adminStoreCoverage(ctx: RequestContext, params: z.output<typeof coverageParams>): Reply {
  checkAdminRead(ctx);
  const store = findStore(ctx, params.id);
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
  const features: unknown[] = [{ type: 'Feature', properties: { type: 'mirrored' }, geometry: { type: 'Polygon', coordinates: polygon(info.bounds) } }];
  let present = 0;
  for (const t of store.scan(pyramid, { minzoom: zoom, maxzoom: zoom })) {
    if (t.z !== zoom) continue;
    present++;
    if (present <= COVERAGE_TILES) {
      features.push({ type: 'Feature', properties: { type: 'tile', z: t.z, x: t.x, y: t.y }, geometry: { type: 'Polygon', coordinates: polygon(tileBoundsLonLat(t.z, t.x, t.y)) } });
    }
  }
  return adminJson({ type: 'FeatureCollection', z: zoom, tiles: present, expected: tileCountIn(info.bounds, zoom), truncated: present > COVERAGE_TILES, features });
}
