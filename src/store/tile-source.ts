// The tile reader under the module and type names other parts import it by until they follow the rename.
export type { TileReader as TileSource, TileStore } from './tile-reader'; // TEMP-ALIAS TileSource (and the module path store/tile-source)
