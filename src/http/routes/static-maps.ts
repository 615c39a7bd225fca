import { planStaticMap, parseStaticMapRequest, renderStaticMap, StaticMapError } from '../../services/static-maps';
import { HttpError, type Reply } from '../reply';
import type { Params, RequestContext } from '../route-table';
import { requireStore } from './stores';

/** Bad input found by the service is answered with its status (400, or 404) and message. */
function asHttp(err: unknown): unknown {
  return err instanceof StaticMapError ? new HttpError(err.status, err.message) : err;
}

/** True when If-None-Match names the tag (quoted, weak or not), or is `*`. */
function matches(header: string | undefined, tag: string): boolean {
  return !!header && header.split(',').some((t) => {
    const v = t.trim().replace(/^W\//, '');
    return v === '*' || v === `"${tag}"`;
  });
}

/**
 * `/maps/{mapId}/static/{area}/{width}x{height}[@2x].{format}`: center-based (`lon,lat,zoom`), bounds-based
 * (`minx,miny,maxx,maxy`) or `auto`; paid plans only (403 on free keys), 404 for an unknown map, 400 naming the
 * bad part of the request. The ETag is known before rendering, so a revalidation (304) costs no render.
 */
export async function staticMap(ctx: RequestContext, p: Params): Promise<Reply> {
  if (ctx.plan !== 'paid') throw new HttpError(403, 'Static maps are not available on the free plan');
  const store = requireStore(ctx, 'maps', p.mapId);
  try {
    const request = parseStaticMapRequest({ area: p.area, size: p.size, scale: p.scale, format: p.format }, ctx.query);
    const plan = await planStaticMap(ctx.catalog, store, request);
    const reply: Reply = { status: 200, type: plan.mediaType, cache: 'tile', etag: plan.etag };
    const inm = ctx.headers['if-none-match'];
    if (matches(Array.isArray(inm) ? inm.join(',') : inm, plan.etag)) return reply; // answered 304, no body needed
    return { ...reply, body: await renderStaticMap(plan) };
  } catch (err) {
    throw asHttp(err);
  }
}
