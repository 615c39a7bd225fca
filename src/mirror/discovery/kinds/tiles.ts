// `tiles/{id}`: one pyramid described by /tiles/{id}/tiles.json (vector or raster, any zoom range).

import { fetchTileJson, pyramidFromTileJson, tileJsonDoc, tilesetHeader, tileTemplate } from '../upstream-tilejson';
import type { DiscoverContext, Discovered } from '../types';

export async function discoverTiles(id: string, ctx: DiscoverContext): Promise<Discovered> {
  const path = `/tiles/${encodeURIComponent(id)}/tiles.json`;
  const found = await fetchTileJson(ctx.client, path, ctx.signal);
  const { tj, url } = found!;
  const pyramid = pyramidFromTileJson('main', tj);
  return {
    kind: 'tiles',
    id,
    header: tilesetHeader(id, tj, pyramid),
    pyramids: [{ pyramid, template: tileTemplate(tj, url) }],
    documents: [tileJsonDoc('tiles.json', tj, ctx.client.base)],
    notes: [],
  };
}
