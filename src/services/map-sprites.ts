// The sprite a map's stored style names, for the deprecated map-scoped sprite path: read once per store
// version. A published store never changes in place (a new version is a new TileStore object), so the answer
// stands while the store object lives; the WeakMap forgets a store the catalog has let go.

import { localSpriteId } from '../ogc/style';
import type { TileStore } from '../store/tile-reader';

export class MapSprites {
  private readonly ids = new WeakMap<TileStore, string | null>();

  /** The id of the local sprite the map's style.json names; undefined without a style, a sprite, or when it is not JSON. */
  of(store: TileStore): string | undefined {
    let id = this.ids.get(store);
    if (id === undefined) {
      id = styleSpriteId(store) ?? null;
      this.ids.set(store, id);
    }
    return id ?? undefined;
  }
}

function styleSpriteId(store: TileStore): string | undefined {
  const doc = store.document('style.json');
  if (!doc) return undefined;
  try {
    return localSpriteId(JSON.parse(doc.data.toString('utf8')));
  } catch {
    return undefined;
  }
}
