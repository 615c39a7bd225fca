// The OGC API - Tiles collections of the weather variables (./weather-variables.ts): one map collection per
// variable, `weather.{name}` (`weather.temperature-2m.gfs` for `temperature-2m:gfs`), with one tileset in the tile
// matrix set of its tile size. Its temporal extent is the keyframes': the interval from the first to the last and
// every keyframe's time (`values`). A tile request picks a keyframe with `datetime` or `subset=datetime(...)`
// (./datetime.ts, the DateTime class of OGC 20-057 §13): the latest keyframe among those asked for, the latest of all
// when the request asks for none. Pure.

import { tmsIdFor } from '../geo/tile-matrix-set';
import { holds, meets, type TimeInterval } from './datetime';
import {
  collectionDocument,
  CRS84,
  GREGORIAN_TRS,
  link,
  pyramidTileset,
  tilesetEntry,
  tilesetsPathOf,
  type Collection,
  type CollectionExtent,
  type Link,
  type Tileset,
  type TilesetEntry,
} from './ogcapi-tiles';
import { weatherAbstract } from './weather-layers';
import { latestKeyframe, type WeatherKeyframe, type WeatherVariable } from './weather-variables';

/** The kind part of every weather collection id. */
const WEATHER_COLLECTION_KIND = 'weather';

export const weatherCollectionId = (v: WeatherVariable): string => `${WEATHER_COLLECTION_KIND}.${v.name}`;

/** The variable name of a weather collection id (`weather.x` -> `x`), or undefined for another collection. */
export function weatherNameOf(cid: string): string | undefined {
  const prefix = `${WEATHER_COLLECTION_KIND}.`;
  return cid.startsWith(prefix) && cid.length > prefix.length ? cid.slice(prefix.length) : undefined;
}

/** The temporal extent of a variable: from its first to its last keyframe, and every keyframe's time. */
export function temporalExtent(v: WeatherVariable): NonNullable<CollectionExtent['temporal']> {
  const times = v.keyframes.map((k) => k.time);
  return { interval: [[times[0], times[times.length - 1]]], trs: GREGORIAN_TRS, values: times };
}

export function weatherCollection(v: WeatherVariable, baseUrl: string, key: string): Collection {
  const extent: CollectionExtent = { spatial: { bbox: [[...v.pyramid.bounds]], crs: CRS84 }, temporal: temporalExtent(v) };
  return collectionDocument({ id: weatherCollectionId(v), title: v.title, description: weatherAbstract(v), attribution: v.attribution, dataType: 'map', extent }, baseUrl, key);
}

/** Whether a variable's temporal extent meets what a request asks for (`/ogc/collections?datetime=`). */
export function weatherCollectionMeets(v: WeatherVariable, asked: TimeInterval): boolean {
  return meets(asked, v.keyframes[0].instant, latestKeyframe(v).instant);
}

/** The one tileset of a variable's collection: its tile matrix set's id and the document. */
function weatherTilesetOf(v: WeatherVariable, baseUrl: string, key: string): { tmsId: string; doc: Tileset } {
  const tilesetsPath = tilesetsPathOf(weatherCollectionId(v), 'map');
  const doc = pyramidTileset({ tilesetsPath, title: v.title, description: weatherAbstract(v), dataType: 'map' }, v.pyramid, baseUrl, key);
  return { tmsId: tmsIdFor(v.pyramid.tileSize), doc };
}

/** `/ogc/collections/weather.{name}/map/tiles`. */
export function weatherTilesetList(v: WeatherVariable, baseUrl: string, key: string): { links: Link[]; tilesets: TilesetEntry[] } {
  const { tmsId, doc } = weatherTilesetOf(v, baseUrl, key);
  return { links: [link(baseUrl, key, tilesetsPathOf(weatherCollectionId(v), 'map'), 'self', 'Tilesets')], tilesets: [tilesetEntry(doc, tmsId)] };
}

/** `/ogc/collections/weather.{name}/map/tiles/{tmsId}`, or undefined when the variable has no tiles in that set. */
export function weatherTileset(v: WeatherVariable, tmsId: string, baseUrl: string, key: string): Tileset | undefined {
  const t = weatherTilesetOf(v, baseUrl, key);
  return t.tmsId === tmsId ? t.doc : undefined;
}

/**
 * The keyframe a tile request gets: the latest of those the request asks for (a raster tile shows one time: an
 * interval holding several is sliced at its latest, /per/coverage-subset/slice-sparse-dimension B), the latest of
 * all when it asks for none; undefined when it asks for times no keyframe has.
 */
export function keyframeFor(v: WeatherVariable, asked: TimeInterval | undefined): WeatherKeyframe | undefined {
  if (!asked) return latestKeyframe(v);
  for (let i = v.keyframes.length - 1; i >= 0; i--) if (holds(asked, v.keyframes[i].instant)) return v.keyframes[i];
  return undefined;
}
