import { resolveLocalUrls } from '../../ogc/style';
import type { WeatherVariable } from '../../ogc/weather-variables';
import { jsonReply, notFound, type Reply } from '../reply';
import type { RequestContext } from '../route-table';

// The weather catalog (services/weather.ts): `latest.json` as mirrored, its local URLs resolved to this server and
// the requester's key. Its variables are also WMTS layers and OGC API collections (routes/wmts.ts, routes/ogc.ts).

/** `/weather/latest.json` */
export function weatherLatest(ctx: RequestContext): Reply {
  if (!ctx.catalog.documents('weather', 'latest')?.document('latest.json')) throw notFound('No weather catalog is mirrored');
  const catalog = ctx.services.weather.latest();
  if (catalog === undefined) throw notFound('The mirrored weather catalog is unreadable');
  return jsonReply(resolveLocalUrls(catalog, ctx.baseUrl, ctx.key));
}

/** The weather variables offered as WMTS layers and OGC API collections; none when no catalog is mirrored. */
export function weatherVariablesOf(ctx: RequestContext): WeatherVariable[] {
  return ctx.services.weather.variables();
}
