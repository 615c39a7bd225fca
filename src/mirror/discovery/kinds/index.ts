// Kind discovery: the cloud API's own resources, one module per kind. The tiled kinds (`tiles/ID`, `maps/ID`,
// `images/ID`) are described by their pyramids; the document kinds (`fonts/FONT`, `sprites/ID`, `data/ID`,
// `weather`, `ogc`) by the documents to store (a dataset's features.json, the weather catalog) or to fetch (a
// font's glyph ranges, a sprite's files). A fontstack is one store per font (resource.ts storesOf).

import { parseFontstack } from '../../../services/fonts/glyphs';
import type { ResourceRef } from '../../resource';
import type { DiscoverContext, Discovered } from '../types';
import { discoverData } from './data';
import { discoverFont, GLYPH_STARTS } from './fonts';
import { discoverImage } from './images';
import { discoverMap } from './maps';
import { discoverOgc } from './ogc';
import { discoverSprite } from './sprites';
import { discoverTiles } from './tiles';
import { discoverWeather } from './weather';

/** The description of one store of the upstream's own API, by its kind. */
export async function discoverKind(ref: ResourceRef, ctx: DiscoverContext): Promise<Discovered> {
  switch (ref.kind) {
    case 'tiles':
      return discoverTiles(ref.id, ctx);
    case 'maps':
      return discoverMap(ref.id, ctx);
    case 'images':
      return discoverImage(ref.id, ctx);
    case 'fonts':
      return discoverFont(ref);
    case 'sprites':
      return discoverSprite(ref);
    case 'data':
      return discoverData(ref, ctx);
    case 'weather':
      return discoverWeather(ref, ctx);
    case 'ogc':
      return discoverOgc(ref, ctx);
  }
}

/** What `plan` says about a document resource: no tiles; the documents a run asks for. */
export function documentPlanNote(ref: ResourceRef): string {
  switch (ref.kind) {
    case 'fonts': {
      const n = parseFontstack(ref.id).length;
      return `documents only: ${GLYPH_STARTS.length} glyph ranges per font, ${n} font${n === 1 ? '' : 's'} (one store each)`;
    }
    case 'sprites':
      return 'documents only: sprite.json, sprite.png, sprite@2x.json, sprite@2x.png';
    case 'data':
      return 'documents only: features.json';
    case 'weather':
      return 'documents only: latest.json, then every keyframe tileset it names (plan those as tiles/ID)';
    case 'ogc':
      return 'documents only: the upstream conformance declaration (provenance)';
    default:
      return '';
  }
}
