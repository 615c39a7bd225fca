// Resources: what `mirror` and `plan` take as RESOURCE arguments and a job lists, parsed into a kind and an id.

import { parseFontstack } from '../services/fonts/glyphs';
import { isDocumentKind, isStoreId, type StoreKind } from '../store/types';
import { UsageError } from './errors';

/** A resource to mirror: `tiles/ID`, `maps/ID`, `images/ID`, `fonts/FONTSTACK`, `sprites/ID`, `data/ID`, `weather`, `ogc`. */
export interface ResourceRef {
  kind: StoreKind;
  id: string;
  /**
   * Upstream path the documents come from when it is not the kind's own: a map style's sprite lives at
   * `/maps/{mapId}/sprite` upstream and is stored as `sprites/{mapId}` (only set for dependencies).
   */
  upstreamPath?: string;
}

const KINDS = 'tiles/ID, maps/ID, images/ID, fonts/FONTSTACK, sprites/ID, data/ID, weather or ogc';

/** Store ids of the singleton kinds: `weather` is `{data}/weather/latest.mbtiles`, `ogc` is `{data}/ogc/conformance.mbtiles`. */
export const SINGLETON_IDS = { weather: 'latest', ogc: 'conformance' } as const;

export function parseResource(text: string): ResourceRef {
  const slash = text.indexOf('/');
  const kind = slash < 0 ? text : text.slice(0, slash);
  const id = slash < 0 ? '' : text.slice(slash + 1);
  if (kind === 'weather' || kind === 'ogc') {
    const only = SINGLETON_IDS[kind];
    if (id !== '' && id !== only) throw new UsageError(`invalid resource "${text}": use "${kind}" (or ${kind}/${only})`);
    return { kind, id: only };
  }
  if (kind !== 'tiles' && kind !== 'maps' && kind !== 'images' && !isDocumentKind(kind)) {
    throw new UsageError(`unknown resource "${text}": expected ${KINDS}`);
  }
  if (!isStoreId(id)) throw new UsageError(`invalid resource id in "${text}"`);
  if (kind === 'fonts') {
    try {
      // One store per font: a fontstack is mirrored font by font (`{data}/fonts/{Font Name}.mbtiles`).
      for (const name of parseFontstack(id)) if (!isStoreId(name)) throw new RangeError(`invalid font name "${name}"`);
    } catch (err) {
      throw new UsageError(`invalid fontstack in "${text}": ${(err as Error).message}`);
    }
  }
  return { kind, id };
}

/** A resource given as text or already parsed. */
export function refOf(resource: string | ResourceRef): ResourceRef {
  return typeof resource === 'string' ? parseResource(resource) : resource;
}

/** The stores a resource is mirrored into: its own, or for a fontstack one per font (`fonts/A,B`: `fonts/A` and `fonts/B`). */
export function storesOf(ref: ResourceRef): ResourceRef[] {
  return ref.kind === 'fonts' ? parseFontstack(ref.id).map((id) => ({ kind: 'fonts', id })) : [ref];
}
