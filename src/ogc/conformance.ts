// OGC API conformance declaration (/ogc/conformance): the classes the server implements, no other.
// - OGC API - Common Part 1: core, the landing page (links to the API definition `service-desc` /openapi.json and
//   `service-doc` /docs, the conformance declaration and the collections) and JSON. Not oas30 (OGC API - Tiles'
//   OpenAPI 3.0 class): it asks for an OpenAPI 3.0 definition (media type ...;version=3.0); ours is 3.1.0.
// - OGC API - Tiles Part 1: core (tiles by tile matrix, row and column), tileset (tileset metadata), tilesets-list,
//   geodata-tilesets (each collection's tilesets) and dataset-tilesets (the dataset's vector tiles under /ogc/tiles,
//   dataset-tilesets.ts) when the dataset has any: a server mirroring no vector tile set has no dataset tiles, and
//   then does not declare the class. DateTime (`datetime` and `subset=datetime(...)` on the tiles of the weather
//   collections and on /ogc/collections, ./datetime.ts) when some weather variable is served: without one no
//   collection has a temporal extent to select in. Not collections-selection or xml (not implemented), nor the tile
//   encodings' classes (png, jpeg, mvt...): which formats there are depends on what was mirrored.
// - 2D Tile Matrix Set 2.0: the tile matrix set model and its JSON encoding (/ogc/tileMatrixSets).

const COMMON = 'http://www.opengis.net/spec/ogcapi-common-1/1.0/conf';
const TILES = 'http://www.opengis.net/spec/ogcapi-tiles-1/1.0/conf';
const TMS = 'http://www.opengis.net/spec/tms/2.0/conf';

export const DATASET_TILESETS_CLASS = `${TILES}/dataset-tilesets`;
export const DATETIME_CLASS = `${TILES}/datetime`;

/** The classes declared whatever the data directory holds. */
export const CONFORMANCE_CLASSES: readonly string[] = [
  `${COMMON}/core`,
  `${COMMON}/landing-page`,
  `${COMMON}/json`,
  `${TILES}/core`,
  `${TILES}/tileset`,
  `${TILES}/tilesets-list`,
  `${TILES}/geodata-tilesets`,
  `${TMS}/tilematrixset`,
  `${TMS}/json-tilematrixset`,
];

/**
 * The declaration; `datasetTilesets`: the dataset has vector tiles (/ogc/tiles lists at least one tileset);
 * `datetime`: some collection's tiles change with time (a weather variable is served).
 */
export function conformance(datasetTilesets: boolean, datetime = false): { conformsTo: string[] } {
  const conformsTo = [...CONFORMANCE_CLASSES];
  if (datasetTilesets) conformsTo.push(DATASET_TILESETS_CLASS);
  if (datetime) conformsTo.push(DATETIME_CLASS);
  return { conformsTo };
}
