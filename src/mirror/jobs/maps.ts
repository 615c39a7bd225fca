// `maps/{id}`: the map's raster pyramids (512 px from /maps/{id}/tiles.json, 256 px from /maps/{id}/256/tiles.json
// when the upstream has it) and its style.json, whose upstream URLs become local ones. The tile sets, fonts and
// sprites the style uses are separate resources: they are named in the notes for the operator to mirror.

import { UpstreamError } from '../client';
import { rewriteDocument, styleReferences } from '../rewrite';
import { center, fetchTileJson, pyramidFromTileJson, text, tileJsonDoc, tileTemplate } from './common';
import type { DiscoverContext, Discovered, PyramidSource, StoredDoc } from './types';

export async function discoverMap(id: string, ctx: DiscoverContext): Promise<Discovered> {
  const { client, signal } = ctx;
  const base = `/maps/${encodeURIComponent(id)}`;
  const main = await fetchTileJson(client, `${base}/tiles.json`, signal);
  const small = await fetchTileJson(client, `${base}/256/tiles.json`, signal, true);
  const sources: PyramidSource[] = [];
  const documents: StoredDoc[] = [];
  const { tj, url } = main!;
  // Names and sizes follow the served API: '512' is /maps/{id}/..., '256' is /maps/{id}/256/...
  sources.push({ pyramid: { ...pyramidFromTileJson('512', tj, 512), tileSize: 512 }, template: tileTemplate(tj, url) });
  documents.push(tileJsonDoc('tiles.json', tj, client.base));
  if (small) {
    sources.push({ pyramid: { ...pyramidFromTileJson('256', small.tj, 256), tileSize: 256 }, template: tileTemplate(small.tj, small.url) });
    documents.push(tileJsonDoc('256/tiles.json', small.tj, client.base));
  }
  if (sources.some((s) => s.pyramid.format === 'pbf')) throw new UpstreamError(`maps/${id}: a map's tiles must be raster, the upstream says pbf`);

  const notes: string[] = [];
  const style = await client.getJson<unknown>(client.resolve(`${base}/style.json`), signal, true);
  if (style !== undefined) {
    if (!style || typeof style !== 'object') throw new UpstreamError(`maps/${id}: style.json is not a JSON object`);
    const local = rewriteDocument(style, client.base);
    documents.push({ path: 'style.json', contentType: 'application/json', data: JSON.stringify(local) });
    const refs = styleReferences(local);
    if (refs.resources.length) notes.push(`the style uses ${refs.resources.join(', ')}: mirror ${refs.resources.length > 1 ? 'them' : 'it'} too for the style to work offline`);
    if (refs.glyphs) notes.push(`the style uses glyphs (${refs.glyphs}): fonts are not mirrored yet`);
    if (refs.sprites.length) notes.push(`the style uses sprites (${refs.sprites.join(', ')}): sprites are not mirrored yet`);
    if (refs.external.length) notes.push(`the style points outside the upstream (not mirrored): ${refs.external.join(', ')}`);
  } else {
    notes.push('the upstream has no style.json for this map: the server will build a raster style');
  }

  return {
    kind: 'maps',
    id,
    header: {
      kind: 'maps',
      name: text(tj.name) ?? id,
      description: text(tj.description),
      attribution: text(tj.attribution),
      center: center(tj.center),
      pyramids: sources.map((s) => s.pyramid),
    },
    sources,
    documents,
    notes,
    prefetched: [],
  };
}
