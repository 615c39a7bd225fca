import { buildTileJson } from '../../ogc/tilejson';
import { resourceTileMatrixSet, resourceTileset } from '../../ogc/ogcapi-tiles';
import { glyphsUrl, resolveLocalUrls } from '../../ogc/style';
import { tileUrlTemplate, withKey } from '../../ogc/urls';
import type { ResourceKind } from '../../store/types';
import { documentReply, jsonReply, notFound, type Reply } from '../reply';
import type { Params, RequestContext } from '../route-table';
import { autoStyle, viewerPage } from '../viewer';
import { requireStore } from './stores';
import { capabilitiesReply, wmtsKvp } from './wmts';

// Documents about one resource (a map, tile set or image), built from its store's description.

const idParam: Record<ResourceKind, string> = { maps: 'mapId', tiles: 'tilesId', images: 'imageId' };
const storeOf = (kind: ResourceKind, ctx: RequestContext, p: Params) => requireStore(ctx, kind, p[idParam[kind]]);
const HTML = 'text/html; charset=utf-8';

/** `/tiles/{id}/tiles.json`, `/maps/{id}/tiles.json` (512 px), `/maps/{id}/256/tiles.json`. */
export function tileJson(kind: ResourceKind) {
  return (ctx: RequestContext, p: Params): Reply => {
    const store = storeOf(kind, ctx, p);
    const info = store.info;
    const pyramid = p.size ? info.pyramids.find((q) => q.tileSize === 256 && q.scale === 1) : info.pyramids[0];
    if (!pyramid) throw notFound(`This ${kind === 'maps' ? 'map' : 'tileset'} has no 256 px pyramid`);
    const doc = buildTileJson(info, pyramid, { tilesUrl: tileUrlTemplate(ctx.baseUrl, kind, info.id, pyramid, ctx.key) });
    return jsonReply(doc);
  };
}

/** `/{kind}/{id}/tiles`: the OGC API Tiles tileset of the main pyramid. */
export function ogcTilesetLanding(kind: ResourceKind) {
  return (ctx: RequestContext, p: Params): Reply => {
    const doc = resourceTileset(storeOf(kind, ctx, p).info, ctx.baseUrl, ctx.key);
    if (!doc) throw notFound('No OGC tileset for this resource');
    return jsonReply(doc);
  };
}

/** `/{kind}/{id}/tileMatrixSet` */
export function tileMatrixSet(kind: ResourceKind) {
  return (ctx: RequestContext, p: Params): Reply => {
    const doc = resourceTileMatrixSet(storeOf(kind, ctx, p).info);
    if (!doc) throw notFound('No tile matrix set for this resource');
    return jsonReply(doc);
  };
}

/** `/{kind}/{id}/WMTSCapabilities.xml`; also answers KVP GetTile/GetCapabilities sent to that URL. */
export function wmtsCapabilities(kind: ResourceKind) {
  return (ctx: RequestContext, p: Params): Reply | Promise<Reply> => {
    const info = storeOf(kind, ctx, p).info;
    return wmtsKvp(ctx, () => capabilitiesReply(ctx, [info], info.name, `/${kind}/${encodeURIComponent(info.id)}/WMTSCapabilities.xml`), true);
  };
}

/** `/maps/{id}/style.json`: the stored style with its local URLs resolved to this server and key; else a raster style. */
export function mapStyle(ctx: RequestContext, p: Params): Reply {
  const store = storeOf('maps', ctx, p);
  const stored = store.document('style.json');
  const style = stored
    ? (JSON.parse(stored.data.toString('utf8')) as object)
    : autoStyle(store.info, withKey(ctx.baseUrl, `/maps/${encodeURIComponent(store.info.id)}/tiles.json`, ctx.key));
  return jsonReply(resolveLocalUrls(style, ctx.baseUrl, ctx.key));
}

/** `/images/{id}/image.json`: as stored, else from the store's description. */
export function imageJson(ctx: RequestContext, p: Params): Reply {
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
export function viewer(kind: 'maps' | 'tiles') {
  return (ctx: RequestContext, p: Params): Reply => {
    const { info } = storeOf(kind, ctx, p);
    const base = `/${kind}/${encodeURIComponent(info.id)}`;
    const labels = { glyphsUrl: glyphsUrl(ctx.baseUrl, ctx.key), font: ctx.config.fonts.fallback[0] ?? 'Noto Sans Regular' };
    const style =
      kind === 'maps' ? withKey(ctx.baseUrl, `${base}/style.json`, ctx.key) : autoStyle(info, withKey(ctx.baseUrl, `${base}/tiles.json`, ctx.key), labels);
    return documentReply(viewerPage({ title: info.name, style, center: info.center }), HTML);
  };
}
