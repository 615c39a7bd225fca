import { documentReply, notFound, type Reply } from '../reply';
import type { Params, RequestContext } from '../route-table';

// Datasets: one store per dataset (`data/{id}.mbtiles`) holding `features.json`, served byte for byte.

/** `/data/{dataId}/features.json`: the dataset's GeoJSON FeatureCollection. */
export function dataFeatures(ctx: RequestContext, p: Params): Reply {
  const id = p.dataId ?? '';
  const store = ctx.catalog.documents('data', id);
  if (!store) throw notFound(`Unknown dataset: ${id}`);
  const doc = store.document('features.json');
  if (!doc) throw notFound(`This dataset has no features.json`);
  return documentReply(doc.data, 'application/json; charset=utf-8', `${store.version}-features`);
}
