import { z } from 'zod';
import { id } from '../params';
import { documentReply, notFound, type Reply } from '../reply';
import type { RequestContext } from '../route-table';

// Datasets: one store per dataset (`data/{id}.mbtiles`) holding `features.json`, served byte for byte.

export const dataParams = z.object({ dataId: id('dataset id') });

/** `/data/{dataId}/features.json`: the dataset's GeoJSON FeatureCollection. */
export function dataFeatures(ctx: RequestContext, p: z.output<typeof dataParams>): Reply {
  const { dataId } = p;
  const store = ctx.catalog.documents('data', dataId);
  if (!store) throw notFound(`Unknown dataset: ${dataId}`);
  const doc = store.document('features.json');
  if (!doc) throw notFound(`This dataset has no features.json`);
  return documentReply(doc.data, 'application/json; charset=utf-8', `${store.version}-features`);
}
