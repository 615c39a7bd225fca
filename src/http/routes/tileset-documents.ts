import { buildTileJson } from '../../ogc/tilejson';
import { resourceTileMatrixSet, resourceTileset } from '../../ogc/ogcapi-tiles';
import { glyphsUrl, resolveLocalUrls } from '../../ogc/style';
import { tileUrlTemplate, withKey } from '../../ogc/urls';
import type { ResourceKind } from '../../store/types';
import { z } from 'zod';
import { id } from '../params';
import { documentReply, jsonReply, notFound, type Reply } from '../reply';
import type { RequestContext } from '../route-table';
import { autoStyle, viewerPage } from '../viewer';
import { requireStore } from './stores';
import { capabilitiesReply, wmtsKvp } from './wmts';

// Documents about one resource (a map, tile set or image), built from its store's description.

// The id parameter of each kind of resource, as the spec names it.
export const mapParams = z.object({ mapId: id('map id') });
export const tilesParams = z.object({ tilesId: id('tile set id') });
export const imageParams = z.object({ imageId: id('image id') });
export const sizedMapParams = mapParams.extend({ size: z.literal('256').optional().describe('`256`: the 256 px pyramid (default 512 px)') });

type ResourceParams = { mapId: string } | { tilesId: string } | { imageId: string };
const idOf = (p: ResourceParams): string => ('mapId' in p ? p.mapId : 'tilesId' in p ? p.tilesId : p.imageId);
const storeOf = (kind: ResourceKind, ctx: RequestContext, p: ResourceParams) => requireStore(ctx, kind, idOf(p));
const HTML = 'text/html; charset=utf-8';

/** `/tiles/{id}/tiles.json`, `/maps/{id}/tiles.json` (512 px), `/maps/{id}/256/tiles.json`. */
function tileJson(kind: ResourceKind) {
  return (ctx: RequestContext, p: ResourceParams & { size?: '256' }): Reply => {
    const store = storeOf(kind, ctx, p);
    const info = store.info;
    const pyramid = p.size ? info.pyramids.find((q) => q.tileSize === 256 && q.scale === 1) : info.pyramids[0];
    if (!pyramid) throw notFound(`This ${kind === 'maps' ? 'map' : 'tileset'} has no 256 px pyramid`);
    const doc = buildTileJson(info, pyramid, { tilesUrl: tileUrlTemplate(ctx.baseUrl, kind, info.id, pyramid, ctx.key) });
    return jsonReply(doc);
  };
}

/** `/{kind}/{id}/tiles`: the OGC API Tiles tileset of the main pyramid. */
function ogcTilesetLanding(kind: ResourceKind) {
  return (ctx: RequestContext, p: ResourceParams): Reply => {
    const doc = resourceTileset(storeOf(kind, ctx, p).info, ctx.baseUrl, ctx.key);
    if (!doc) throw notFound('No OGC tileset for this resource');
    return jsonReply(doc);
  };
}

/** `/{kind}/{id}/tileMatrixSet` */
function tileMatrixSet(kind: ResourceKind) {
  return (ctx: RequestContext, p: ResourceParams): Reply => {
    const doc = resourceTileMatrixSet(storeOf(kind, ctx, p).info);
    if (!doc) throw notFound('No tile matrix set for this resource');
    return jsonReply(doc);
  };
}

/** `/{kind}/{id}/WMTSCapabilities.xml` (RESTful); also answers KVP GetTile/GetCapabilities sent to that URL. */
function wmtsCapabilities(kind: ResourceKind) {
  return (ctx: RequestContext, p: ResourceParams): Reply | Promise<Reply> => {
    const info = storeOf(kind, ctx, p).info;
    const path = `/${kind}/${encodeURIComponent(info.id)}/WMTSCapabilities.xml`;
    return wmtsKvp(ctx, (sections) => capabilitiesReply(ctx, [info], info.name, path, sections), true);
  };
}

/** `/maps/{id}/style.json`: the stored style with its local URLs resolved to this server and key; else a raster style. */
export function mapStyle(ctx: RequestContext, p: ResourceParams): Reply {
  const store = storeOf('maps', ctx, p);
  const stored = store.document('style.json');
  const style = stored
    ? (JSON.parse(stored.data.toString('utf8')) as object)
    : autoStyle(store.info, withKey(ctx.baseUrl, `/maps/${encodeURIComponent(store.info.id)}/tiles.json`, ctx.key));
  return jsonReply(resolveLocalUrls(style, ctx.baseUrl, ctx.key));
}

/** `/images/{id}/image.json`: as stored, else from the store's description. */
export function imageJson(ctx: RequestContext, p: ResourceParams): Reply {
  const store = storeOf('images', ctx, p);
  const stored = store.document('image.json');
  if (stored) return documentReply(stored.data, 'application/json; charset=utf-8');
  const { info } = store;
  const main = info.pyramids[0];
  return jsonReply({
    id: info.id,
    description: info.description,
    attribution: info.attribution,
    width: info.image?.width ?? main.tileSize * 2 ** main.maxzoom,
    height: info.image?.height ?? main.tileSize * 2 ** main.maxzoom,
    minzoom: main.minzoom,
    maxzoom: main.maxzoom,
    tileSize: main.tileSize,
  });
}

/** `/maps/{id}/` and `/tiles/{id}/`: the embeddable viewer. */
function viewer(kind: 'maps' | 'tiles') {
  return (ctx: RequestContext, p: ResourceParams): Reply => {
    const { info } = storeOf(kind, ctx, p);
    const base = `/${kind}/${encodeURIComponent(info.id)}`;
    const labels = { glyphsUrl: glyphsUrl(ctx.baseUrl, ctx.key), font: ctx.config.fonts.fallback[0] ?? 'Noto Sans Regular' };
    const style =
      kind === 'maps' ? withKey(ctx.baseUrl, `${base}/style.json`, ctx.key) : autoStyle(info, withKey(ctx.baseUrl, `${base}/tiles.json`, ctx.key), labels);
    return documentReply(viewerPage({ title: info.name, style, center: info.center }), HTML);
  };
}

// One handler per route (named, so the route-table test can check which one a path reaches).
export const mapViewer = viewer('maps');
export const tilesViewer = viewer('tiles');
export const mapTileJson = tileJson('maps');
export const tilesTileJson = tileJson('tiles');
export const mapTileset = ogcTilesetLanding('maps');
export const tilesTileset = ogcTilesetLanding('tiles');
export const mapTileMatrixSet = tileMatrixSet('maps');
export const tilesTileMatrixSet = tileMatrixSet('tiles');
export const mapWmts = wmtsCapabilities('maps');
export const tilesWmts = wmtsCapabilities('tiles');
export const imageWmts = wmtsCapabilities('images');
