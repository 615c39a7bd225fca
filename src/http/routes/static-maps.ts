import { z } from 'zod';
import { ServiceError } from '../../errors';
import { parseStaticMapRequest } from '../../services/static-maps';
import { id, scale2x } from '../params';
import { answer, type Reply } from '../reply';
import type { RequestContext } from '../route-table';
import { requireStore } from './stores';

// The service's errors go through as they are: bad input (StaticMapError, `invalid` or `not-found`, its message
// naming the bad part), a full render queue or no room for more answers in memory (`too-busy`, with Retry-After),
// a render its client abandoned (`abandoned`: nobody reads the answer, and it is no server error to log).

// The grammar of the area (parsed into a view), size, path and markers is the static-map service's
// (services/static-maps/request.ts):
// it parses them with messages naming the bad part. The schema types and documents them; `meta` says what the
// service enforces.
const text = (description: string, meta: Record<string, unknown> = {}) => z.string().optional().meta({ description, ...meta });
const repeated = (description: string) => z.array(z.string()).optional().meta({ description });
export const staticMapParams = z.object({
  mapId: id('map id'),
  area: z.string().meta({ description: '`{lon},{lat},{zoom}` (center-based), `{minx},{miny},{maxx},{maxy}` (bounds-based) or `auto`', examples: ['8.5,47.4,4', '5,45,11,48', 'auto'] }),
  size: z.string().meta({ description: '`{width}x{height}` in pixels, each 1 to 2048', pattern: '^\\d+x\\d+$', examples: ['512x256'] }),
  scale: scale2x('only @2x'),
  format: z.string().meta({ enum: ['png', 'jpg', 'webp'], description: 'image format' }),
  path: repeated('a path drawn over the map: `[fill:|stroke:|width:|shortest:<value>|]...` then `enc:<polyline>` or `x,y|x,y...`; repeatable'),
  markers: repeated('markers drawn over the map: `[icon:|anchor:|scale:<value>|]...` then `x,y[,text]|...`; repeatable'),
  latlng: text('coordinates are latitude,longitude', { type: 'boolean', default: false }),
  attribution: text('where the attribution goes', { enum: ['bottomright', 'bottomleft', 'topleft', 'topright', 'false'], default: 'bottomright' }),
  padding: text('minimum margin as a fraction of the size (bounds-based and auto)', { type: 'number', minimum: 0, default: 0.1 }),
  shortest: text('draw shortest paths, across the dateline', { type: 'boolean', default: false }),
  fill: text('deprecated: polygon fill colour; use `path`', { deprecated: true }),
  stroke: text('deprecated: polygon stroke colour; use `path`', { deprecated: true }),
  width: text('deprecated: stroke width in pixels; use `path`', { type: 'number', deprecated: true }),
  encodedpath: text('deprecated: a path as an encoded polyline; use `path`', { deprecated: true }),
});

/** True when If-None-Match names the tag (quoted, weak or not), or is `*`. */
function matches(header: string | undefined, tag: string): boolean {
  return !!header && header.split(',').some((t) => {
    const v = t.trim().replace(/^W\//, '');
    return v === '*' || v === `"${tag}"`;
  });
}

/**
 * `/maps/{mapId}/static/{area}/{width}x{height}[@2x].{format}`: center-based (`lon,lat,zoom`), bounds-based
 * (`minx,miny,maxx,maxy`) or `auto`; the paid tier only (`forbidden` on free keys), not found for an unknown map,
 * invalid naming the bad part of the request. The ETag is known before rendering, so a revalidation (answered not
 * modified by the edge, headers.ts) costs no render.
 */
export async function staticMap(ctx: RequestContext, p: z.output<typeof staticMapParams>): Promise<Reply> {
  if (ctx.tier !== 'paid') throw new ServiceError('forbidden', 'Static maps are not available on the free plan');
  const store = requireStore(ctx, 'maps', p.mapId);
  const { staticMaps, renderedTiles } = ctx.services;
  const request = parseStaticMapRequest({ area: p.area, size: p.size, scale: p.scale, format: p.format }, ctx.query);
  const layout = await staticMaps.layout(store, request, renderedTiles.staticBase(store));
  const reply = answer({ type: layout.mediaType, cache: 'tile', etag: layout.etag });
  const inm = ctx.headers['if-none-match'];
  if (matches(Array.isArray(inm) ? inm.join(',') : inm, layout.etag)) return reply; // not modified: no body needed
  // The body is new and big (over a megabyte at 4096 px), and a slow reader keeps it: rendered only with room for it.
  await ctx.reserveAnswer();
  return { ...reply, body: await staticMaps.render(layout, ctx.signal) };
}
