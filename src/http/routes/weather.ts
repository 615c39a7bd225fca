import { resolveLocalUrls } from '../../ogc/style';
import { weatherVariables, type WeatherVariable } from '../../ogc/weather-variables';
import type { DocumentStore } from '../../store/mbtiles/document-store';
import type { TileStore } from '../../store/tile-reader';
import { jsonReply, notFound, type Reply } from '../reply';
import type { RequestContext } from '../route-table';

// The weather catalog: `weather/latest.mbtiles` holds `latest.json` as mirrored, its URLs local
// (`tilemirror://tiles/{keyframeId}/...`); they are resolved to this server and the requester's key.
// Its variables are also WMTS layers and OGC API collections (routes/wmts.ts, routes/ogc.ts), read here.

/** The parsed catalog of a weather store; undefined when it has none or it is not JSON. */
function parsedCatalog(store: DocumentStore | undefined): unknown {
  const doc = store?.document('latest.json');
  if (!doc) return undefined;
  try {
    return JSON.parse(doc.data.toString('utf8')) as unknown;
  } catch {
    return undefined;
  }
}

/** `/weather/latest.json` */
export function weatherLatest(ctx: RequestContext): Reply {
  const store = ctx.catalog.documents('weather', 'latest');
  if (!store?.document('latest.json')) throw notFound('No weather catalog is mirrored');
  const catalog = parsedCatalog(store);
  if (catalog === undefined) throw notFound('The mirrored weather catalog is unreadable');
  return jsonReply(resolveLocalUrls(catalog, ctx.baseUrl, ctx.key));
}

/**
 * The variables of a catalog store as last worked out, and the keyframe tile stores they were worked out from.
 * Every weather GetTile asks for the variables: a catalog of 8 variables of 40 keyframes each (24 KB) took 1.8 ms to
 * parse and check, some forty times a whole tile request of the bare server (~40 µs, params.ts). A published store
 * file is never changed in place (a new version is a new DocumentStore or TileStore object), so the result stands
 * while the catalog store and each keyframe's store are the same objects; the WeakMap forgets a store the catalog
 * has let go, as tile-reply.ts's replies do.
 */
const worked = new WeakMap<DocumentStore, { keyframes: Map<string, TileStore | undefined>; variables: WeatherVariable[] }>();

/** The weather variables offered as WMTS layers and OGC API collections; none when no catalog is mirrored. */
export function weatherVariablesOf(ctx: RequestContext): WeatherVariable[] {
  const store = ctx.catalog.documents('weather', 'latest');
  if (!store) return [];
  const last = worked.get(store);
  if (last && [...last.keyframes].every(([id, s]) => ctx.catalog.get('tiles', id) === s)) return last.variables;
  const keyframes = new Map<string, TileStore | undefined>();
  const variables = weatherVariables(parsedCatalog(store), (id) => {
    const s = keyframes.has(id) ? keyframes.get(id) : ctx.catalog.get('tiles', id);
    keyframes.set(id, s);
    return s?.info;
  });
  worked.set(store, { keyframes, variables });
  return variables;
}
