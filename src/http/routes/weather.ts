import { resolveLocalUrls } from '../../ogc/style';
import { jsonReply, notFound, type Reply } from '../reply';
import type { RequestContext } from '../route-table';

// The weather catalog: `weather/latest.mbtiles` holds `latest.json` as mirrored, its URLs local
// (`tilemirror://tiles/{keyframeId}/...`); they are resolved to this server and the requester's key.

/** `/weather/latest.json` */
export function weatherLatest(ctx: RequestContext): Reply {
  const store = ctx.catalog.documents('weather', 'latest');
  const doc = store?.document('latest.json');
  if (!doc) throw notFound('No weather catalog is mirrored');
  let catalog: unknown;
  try {
    catalog = JSON.parse(doc.data.toString('utf8'));
  } catch {
    throw notFound('The mirrored weather catalog is unreadable');
  }
  return jsonReply(resolveLocalUrls(catalog, ctx.baseUrl, ctx.key));
}
