// RESOURCE arguments and the discoverer of each tiled kind (`tiles/ID`, `maps/ID`, `images/ID`). The
// document kinds (`fonts/FONTSTACK`, `sprites/ID`, `data/ID`, `weather`, `ogc`) have no tiles and no plan: their
// collectors (fonts.ts, sprites.ts, data.ts, weather.ts, ogc.ts) run through the document engine (../document-run.ts).

import type { DocumentKind } from '../../../store/types';
import { parseFontstack } from '../../../services/fonts/glyphs';
import { UsageError } from '../../errors';
import type { MirrorOptions } from '../../engine/options';
import type { MirrorResult } from '../../engine/result';
import { collectData } from './data';
import { mirrorDocumentStore, type Collector, type EngineDeps } from '../../engine/document-run';
import { GLYPH_STARTS, mirrorFontstack } from './fonts';
import { collectOgc } from './ogc';
import { collectSprite } from './sprites';
import { collectWeather } from './weather';
import { discoverImage } from './images';
import { discoverMap } from './maps';
import { discoverTiles } from './tiles';
import type { ResourceRef } from '../../resource';
import type { DiscoverContext, Discovered } from '../types';

/** Discovery of a tiled resource (the document kinds are collected by the document engine instead). */
export function discoverKind(ref: ResourceRef, ctx: DiscoverContext): Promise<Discovered> {
  switch (ref.kind) {
    case 'tiles':
      return discoverTiles(ref.id, ctx);
    case 'maps':
      return discoverMap(ref.id, ctx);
    case 'images':
      return discoverImage(ref.id, ctx);
    default:
      throw new UsageError(`${ref.kind}/${ref.id} has no tiles to plan`);
  }
}

/** The collector of each document kind (fonts go through mirrorFontstack: one store per font of the stack). */
const COLLECTORS: Record<Exclude<DocumentKind, 'fonts'>, Collector> = {
  sprites: collectSprite,
  data: collectData,
  weather: collectWeather,
  ogc: collectOgc,
};

/** Mirrors a document resource (`fonts/FONTSTACK`, `sprites/ID`, `data/ID`, `weather`, `ogc`). */
export function mirrorDocuments(ref: ResourceRef & { kind: DocumentKind }, opts: MirrorOptions, deps: EngineDeps): Promise<MirrorResult> {
  if (ref.kind === 'fonts') return mirrorFontstack(ref, opts, deps);
  return mirrorDocumentStore(ref, opts, COLLECTORS[ref.kind], deps);
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
