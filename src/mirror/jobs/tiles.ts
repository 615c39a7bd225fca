// `tiles/{id}`: one pyramid described by /tiles/{id}/tiles.json (vector or raster, any zoom range).

import { fetchTileJson, center, pyramidFromTileJson, text, tileJsonDoc, tileTemplate, vectorLayers } from './common';
import type { DiscoverContext, Discovered } from './types';

export async function discoverTiles(id: string, ctx: DiscoverContext): Promise<Discovered> {
  const path = `/tiles/${encodeURIComponent(id)}/tiles.json`;
  const found = await fetchTileJson(ctx.client, path, ctx.signal);
  const { tj, url } = found!;
  const pyramid = pyramidFromTileJson('main', tj);
  const extra: Record<string, string> = {};
  // Terrain tile sets name their RGB encoding; the elevation service needs it.
  if (typeof tj.encoding === 'string') extra.encoding = tj.encoding;
  return {
    kind: 'tiles',
    id,
    header: {
      kind: 'tiles',
      name: text(tj.name) ?? id,
      description: text(tj.description),
      attribution: text(tj.attribution),
      center: center(tj.center),
      pyramids: [pyramid],
      vectorLayers: pyramid.format === 'pbf' ? (vectorLayers(tj) ?? []) : undefined,
      extraMetadata: extra,
    },
    sources: [{ pyramid, template: tileTemplate(tj, url) }],
    documents: [tileJsonDoc('tiles.json', tj, ctx.client.base)],
    notes: [],
    prefetched: [],
  };
}
