// The mirrored weather catalog: `weather/latest.mbtiles` holds `latest.json` as mirrored, its URLs local
// (`tilemirror://tiles/{keyframeId}/...`), and its variables, offered as WMTS layers and OGC API collections.

import { weatherVariables, type WeatherVariable } from '../ogc/weather-variables';
import type { Catalog } from '../store/catalog/catalog';
import type { DocumentStore } from '../store/mbtiles/document-store';
import type { TileStore } from '../store/tile-reader';

/** The variables of a catalog store as last worked out, and the keyframe tile stores they were worked out from. */
interface Worked {
  keyframes: Map<string, TileStore | undefined>;
  variables: WeatherVariable[];
}

export class WeatherCatalog {
  /**
   * Every weather GetTile asks for the variables: a catalog of 8 variables of 40 keyframes each (24 KB) took 1.8 ms
   * to parse and check, some forty times a whole tile request of the bare server (~40 µs, http/params.ts). A
   * published store file is never changed in place (a new version is a new DocumentStore or TileStore object), so
   * the result stands while the catalog store and each keyframe's store are the same objects; the WeakMap forgets
   * a store the catalog has let go.
   */
  private readonly worked = new WeakMap<DocumentStore, Worked>();

  constructor(private readonly catalog: Catalog) {}

  /** The mirrored catalog document parsed; undefined when none is mirrored or it is not JSON. */
  latest(): unknown {
    return parsedCatalog(this.catalog.documents('weather', 'latest'));
  }

  /** The weather variables offered as WMTS layers and OGC API collections; none when no catalog is mirrored. */
  variables(): WeatherVariable[] {
    const store = this.catalog.documents('weather', 'latest');
    if (!store) return [];
    const last = this.worked.get(store);
    if (last && [...last.keyframes].every(([id, s]) => this.catalog.get('tiles', id) === s)) return last.variables;
    const keyframes = new Map<string, TileStore | undefined>();
    const variables = weatherVariables(parsedCatalog(store), (id) => {
      const s = keyframes.has(id) ? keyframes.get(id) : this.catalog.get('tiles', id);
      keyframes.set(id, s);
      return s?.info;
    });
    this.worked.set(store, { keyframes, variables });
    return variables;
  }
}

/** The parsed catalog of a weather store; undefined when it has none or it is not JSON. */
function parsedCatalog(store: DocumentStore | undefined): unknown {
  const doc = store?.document('latest.json');
  if (!doc) return undefined;
  try {
    return JSON.parse(doc.data.toString('utf8')) as unknown;
  } catch {
    return undefined;
  }
}
