// `maps/{id}`: the map's raster pyramids (512 px from /maps/{id}/tiles.json, 256 px from /maps/{id}/256/tiles.json
// when the upstream has it) and its style.json, whose upstream URLs become local ones. The tile sets, fonts and
// sprites the style uses are separate resources: they are named in the notes and returned as dependencies, mirrored
// after the map when the run asks for them (withDependencies).
// Optional extra pyramids: @2x (`scales: [1, 2]`) and other formats (`formats: ['png', 'webp']`), named like the
// served paths: '512', '512@2x', '256', '256@2x', with `.webp` (etc.) appended for a format other than the
// upstream TileJSON's own. Their URLs come from the TileJSON template (`{y}.png` -> `{y}@2x.webp`).

import type { TileFormat } from '../../../store/types';
import { UpstreamError } from '../../errors';
import { rewriteDocument, styleReferences } from '../../rewrite';
import { LOCAL_SCHEME, localSpriteUrl } from '../../../ogc/style';
import { center, fetchTileJson, pyramidFromTileJson, text, tileJsonDoc, tileTemplate } from '../upstream-tilejson';
import { styleFontstacks } from './fonts';
import type { ResourceRef } from '../../resource';
import type { DiscoverContext, Discovered, DocumentToStore, UpstreamPyramid } from '../types';

const EXT: Partial<Record<TileFormat, string>> = { png: 'png', jpg: 'jpg', webp: 'webp' };
const TEMPLATE_TAIL = /\{y\}(@\dx)?\.(png|jpe?g|webp)(?=$|[?#])/i;

/** The template of a variant (scale, format) of a map pyramid's template, or undefined when it cannot be derived. */
export function variantTemplate(template: string, scale: number, format: TileFormat): string | undefined {
  const ext = EXT[format];
  if (!ext || !TEMPLATE_TAIL.test(template)) return undefined;
  return template.replace(TEMPLATE_TAIL, `{y}${scale === 2 ? '@2x' : ''}.${ext}`);
}

/** Pyramid name of a variant: the served path's size and scale, plus `.format` when not the base format. */
export function variantName(size: '512' | '256', scale: number, format: TileFormat, base: TileFormat): string {
  return `${size}${scale === 2 ? '@2x' : ''}${format === base ? '' : `.${format}`}`;
}

/**
 * A style's sprite(s) rewritten to mirrored sprite stores, and the sprite resources to mirror: a local
 * `tilemirror://sprites/{id}/sprite` stays; `tilemirror://maps/{mapId}/sprite` (MapTiler's styles) becomes
 * `tilemirror://sprites/{mapId}/sprite`, fetched from `/maps/{mapId}/sprite`.
 */
export function localiseSprites(style: Record<string, unknown>): ResourceRef[] {
  const refs: ResourceRef[] = [];
  const one = (url: string): string => {
    const m = new RegExp(`^${LOCAL_SCHEME}(sprites|maps)/([^/?#]+)/sprite$`).exec(url);
    if (!m) return url;
    let id: string;
    try {
      id = decodeURIComponent(m[2]);
    } catch {
      return url;
    }
    const ref: ResourceRef = m[1] === 'maps' ? { kind: 'sprites', id, upstreamPath: `/maps/${m[2]}/sprite` } : { kind: 'sprites', id };
    if (!refs.some((r) => r.id === ref.id)) refs.push(ref);
    return localSpriteUrl(id);
  };
  if (typeof style.sprite === 'string') style.sprite = one(style.sprite);
  else if (Array.isArray(style.sprite)) {
    style.sprite = style.sprite.map((s: unknown) => (s && typeof s === 'object' && typeof (s as { url?: unknown }).url === 'string' ? { ...s, url: one((s as { url: string }).url) } : s));
  }
  return refs;
}

export async function discoverMap(id: string, ctx: DiscoverContext): Promise<Discovered> {
  const { client, signal } = ctx;
  const base = `/maps/${encodeURIComponent(id)}`;
  const main = await fetchTileJson(client, `${base}/tiles.json`, signal);
  const small = await fetchTileJson(client, `${base}/256/tiles.json`, signal, true);
  const pyramids: UpstreamPyramid[] = [];
  const documents: DocumentToStore[] = [];
  const notes: string[] = [];
  const { tj, url } = main!;
  // Names and sizes follow the served API: '512' is /maps/{id}/..., '256' is /maps/{id}/256/...
  const sized: { size: '512' | '256'; upstream: UpstreamPyramid }[] = [];
  sized.push({ size: '512', upstream: { pyramid: { ...pyramidFromTileJson('512', tj, 512), tileSize: 512 }, template: tileTemplate(tj, url) } });
  documents.push(tileJsonDoc('tiles.json', tj, client.base));
  if (small) {
    sized.push({ size: '256', upstream: { pyramid: { ...pyramidFromTileJson('256', small.tj, 256), tileSize: 256 }, template: tileTemplate(small.tj, small.url) } });
    documents.push(tileJsonDoc('256/tiles.json', small.tj, client.base));
  }
  if (sized.some((s) => s.upstream.pyramid.format === 'pbf')) throw new UpstreamError(`maps/${id}: a map's tiles must be raster, the upstream says pbf`);
  const scales = [...new Set(ctx.scales?.length ? ctx.scales : [1])];
  for (const { size, upstream } of sized) {
    const baseFormat = upstream.pyramid.format;
    const formats = [...new Set(ctx.formats?.length ? ctx.formats : [baseFormat])];
    // The upstream's own pyramid first (at scale 1 and its format it is the served main pyramid), then the variants.
    const variants = [...scales.map((sc) => formats.map((f) => [sc, f] as const))].flat().sort(([sa, fa], [sb, fb]) => Number(!(sa === 1 && fa === baseFormat)) - Number(!(sb === 1 && fb === baseFormat)));
    for (const [scale, format] of variants) {
      if (scale === 1 && format === baseFormat) {
        pyramids.push(upstream);
        continue;
      }
      const template = variantTemplate(upstream.template, scale, format);
      if (!template) {
        notes.push(`the ${size} px tile URLs (${upstream.template}) do not end in {y}.{format}: no ${scale === 2 ? '@2x ' : ''}${format} pyramid`);
        continue;
      }
      pyramids.push({ pyramid: { ...upstream.pyramid, name: variantName(size, scale, format, baseFormat), scale, format }, template });
    }
  }

  const dependencies: ResourceRef[] = [];
  const style = await client.getJson<unknown>(client.resolve(`${base}/style.json`), signal, true);
  if (style !== undefined) {
    if (!style || typeof style !== 'object') throw new UpstreamError(`maps/${id}: style.json is not a JSON object`);
    const local = rewriteDocument(style, client.base) as Record<string, unknown>;
    const sprites = localiseSprites(local);
    documents.push({ path: 'style.json', contentType: 'application/json', data: JSON.stringify(local) });
    const refs = styleReferences(local);
    if (refs.resources.length) notes.push(`the style uses ${refs.resources.join(', ')}: mirror ${refs.resources.length > 1 ? 'them' : 'it'} too for the style to work offline`);
    for (const r of refs.resources) {
      const tiles = /^tiles\/(.+)$/.exec(r);
      if (tiles) dependencies.push({ kind: 'tiles', id: tiles[1] });
    }
    const { stacks, fonts } = styleFontstacks(local);
    if (typeof refs.glyphs === 'string' && refs.glyphs.startsWith(`${LOCAL_SCHEME}fonts/`)) {
      if (stacks.length) notes.push(`the style uses the fontstacks ${stacks.map((s) => `"${s}"`).join(', ')}: fonts ${fonts.map((f) => `fonts/${f}`).join(', ')}`);
      for (const f of fonts) dependencies.push({ kind: 'fonts', id: f });
    } else if (refs.glyphs && stacks.length) {
      notes.push(`the style's glyphs are not on the upstream (${refs.glyphs}): its fonts are not mirrored`);
    }
    if (sprites.length) notes.push(`the style uses the sprite${sprites.length > 1 ? 's' : ''} ${sprites.map((s) => `sprites/${s.id}${s.upstreamPath ? ` (from ${s.upstreamPath})` : ''}`).join(', ')}`);
    dependencies.push(...sprites);
    if (dependencies.length) notes.push(`mirrored with the map when asked (--with-dependencies): ${dependencies.map((d) => `${d.kind}/${d.id}`).join(', ')}`);
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
      pyramids: pyramids.map((u) => u.pyramid),
    },
    pyramids,
    documents,
    notes,
    dependencies,
  };
}
