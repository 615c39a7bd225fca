import { owsErrors } from '../ows-errors';
import { wmsErrors } from '../wms-errors';
import { mapWms, mapWmsParams, wmsService, wmsServiceParams } from './wms';
import { problemErrors } from '../problem-errors';
import { NO_PARAMS, outcomeStatuses, route, type Outcome, type Route, type RouteDoc, type RouteOptions } from '../route-table';
import { coordinatesSearch, coordinatesSearchParams, coordinatesTransform, coordinatesTransformParams } from './coordinates';
import { dataFeatures, dataParams } from './data';
import {
  imageJson,
  imageParams,
  imageWmts,
  mapParams,
  mapStyle,
  mapTileJson,
  mapTileMatrixSet,
  mapTileset,
  mapViewer,
  mapWmts,
  sizedMapParams,
  tilesParams,
  tilesTileJson,
  tilesTileMatrixSet,
  tilesTileset,
  tilesViewer,
  tilesWmts,
} from './tileset-documents';
import { elevation, elevationParams } from './elevation';
import { fontGlyphs, fontGlyphsParams } from './fonts';
import { batchParams, byIdParams, forwardParams, geocodingBatch, geocodingById, geocodingForward, geocodingReverse, reverseParams } from './geocoding';
import { geolocationIp, geolocationParams } from './geolocation';
import { healthReady } from './health';
import { health, home } from './home';
import { mapTile, mapTileParams } from './maps';
import { metrics } from './metrics';
import {
  collectionParams,
  collectionsParams,
  datasetTileParams,
  ogcCollection,
  ogcCollections,
  ogcConformance,
  ogcDatasetTile,
  ogcDatasetTileset,
  ogcDatasetTilesets,
  ogcLanding,
  ogcMapTile,
  ogcMapTileset,
  ogcMapTilesets,
  ogcTileMatrixSetById,
  ogcTileMatrixSets,
  ogcMapTileParams,
  ogcTileParams,
  ogcVectorTile,
  ogcVectorTileset,
  ogcVectorTilesets,
  tilesetParams,
  tmsParams,
} from './ogc';
import { apiDocs, openApiDocument } from './openapi';
import { mapSprite, mapSpriteParams, sprite, spriteParams } from './sprites';
import { staticMap, staticMapParams } from './static-maps';
import { adminConsole, adminConsoleScript, adminConsoleStyle } from './admin-console';
import { adminStatusJson } from './status';
import { adminErrors } from './admin-auth';
import { adminJob, adminJobCancel, adminJobPlan, adminJobRun, adminJobs, jobParams } from './admin-jobs';
import { adminStoreCoverage, adminStores, coverageParams } from './admin-stores';
import { imageTile, imageTileParams, tilesTile, tilesTileParams } from './tiles';
import { weatherLatest } from './weather';
import {
  wmtsRestTile,
  wmtsRestTileParams,
  wmtsService,
  wmtsServiceCapabilities,
  wmtsServiceParams,
  wmtsWeatherCapabilities,
  wmtsWeatherTile,
  wmtsWeatherTileParams,
} from './wmts';

// Every path of the API, in the order of the spec's endpoint tables, then what tilemirror adds (service-wide WMTS,
// OGC API Tiles, the API's own description). Each row: pattern, parameter schema (validated before the handler
// runs; the OpenAPI definition is built from it), handler, and what the definition says (tag, summary, media types
// of the answer, the outcomes besides it and those every route has). The listener matches them before Express, which only serves the
// viewer's library files and answers what no route matches. z/x/y segments match anything here: the schemas
// validate them (a bad parameter is named, not taken for an unknown path).

const XYZ = ':z/:x/:y([^/.@]+)';
const JSON_TYPE = ['application/json'];
const HTML = ['text/html'];
const XML = ['text/xml'];
const RASTER = ['image/png', 'image/jpeg', 'image/webp'];
const ANY_TILE = [...RASTER, 'application/x-protobuf', 'application/octet-stream'];
const SPRITE = ['image/png', 'application/json'];
const FOUND: Outcome[] = ['not-found'];
const TILE: Outcome[] = ['empty', 'not-found'];
const GEOCODING: Outcome[] = ['unavailable'];
const VECTOR_TILE = ['application/vnd.mapbox-vector-tile'];
/** OGC API routes answer errors as problem details (application/problem+json). */
const OGC: RouteOptions = { dialect: problemErrors };
/** WMTS answers its errors as OWS ExceptionReports (ows-errors.ts). */
const OWS: RouteOptions = { dialect: owsErrors };
const WMS: RouteOptions = { dialect: wmsErrors };
const doc = (tag: string, summary: string, types: readonly string[], outcomes?: readonly Outcome[]): RouteDoc => ({ tag, summary, types, statuses: outcomes && outcomeStatuses(outcomes) });
/** The admin API: its keys checked by the handlers (admin-auth.ts), JSON errors, no CORS. */
const ADMIN: RouteOptions = { public: true, noCors: true, dialect: adminErrors };
const ADMIN_WRITE: RouteOptions = { ...ADMIN, method: 'POST' };

export const routes: Route[] = [
  // Maps
  route('/maps/:mapId/', mapParams, mapViewer, doc('Maps', 'Embeddable map viewer', HTML, FOUND)),
  route('/maps/:mapId/style.json', mapParams, mapStyle, doc('Maps', 'Style JSON of the map', JSON_TYPE, FOUND)),
  route('/maps/:mapId/sprite[:scale(@\\d+x)].:format', mapSpriteParams, mapSprite, doc('Maps', "Sprite of the map's style (deprecated: use the sprites endpoint)", SPRITE, FOUND), { deprecated: {} }),
  // Static maps come before the tile route, whose z/x/y would also match `static/auto/512x512`.
  route('/maps/:mapId/static/:area/:size([^/.@]+)[:scale(@\\d+x)].:format', staticMapParams, staticMap, doc('Static maps', 'Static map image: center-based, bounds-based or auto-fitted (paid plans)', RASTER, FOUND)),
  route(`/maps/:mapId/[:size(256)/]${XYZ}[:scale(@\\d+x)].:format`, mapTileParams, mapTile, doc('Maps', 'Raster XYZ tile of the map (512 px, or 256 px)', [...RASTER, 'application/octet-stream'], TILE)),
  route('/maps/:mapId/[:size(256)/]tiles.json', sizedMapParams, mapTileJson, doc('Maps', 'TileJSON of the map (512 px, or 256 px)', JSON_TYPE, FOUND)),
  route('/maps/:mapId/tiles', mapParams, mapTileset, doc('Maps', 'OGC API Tiles tileset of the map', JSON_TYPE, FOUND)),
  route('/maps/:mapId/tileMatrixSet', mapParams, mapTileMatrixSet, doc('Maps', 'OGC tile matrix set of the map', JSON_TYPE, FOUND)),
  route('/maps/:mapId/WMTSCapabilities.xml', mapParams, mapWmts, doc('Maps', 'WMTS capabilities of the map', XML, FOUND), OWS),
  // Tiles
  route('/tiles/:tilesId/', tilesParams, tilesViewer, doc('Tiles', 'Embeddable tile set viewer', HTML, FOUND)),
  route(`/tiles/:tilesId/${XYZ}[.:ext]`, tilesTileParams, tilesTile, doc('Tiles', 'Tile of the tile set (any media type)', ANY_TILE, TILE)),
  route('/tiles/:tilesId/tiles.json', tilesParams, tilesTileJson, doc('Tiles', 'TileJSON of the tile set', JSON_TYPE, FOUND)),
  route('/tiles/:tilesId/tiles', tilesParams, tilesTileset, doc('Tiles', 'OGC API Tiles tileset of the tile set', JSON_TYPE, FOUND)),
  route('/tiles/:tilesId/tileMatrixSet', tilesParams, tilesTileMatrixSet, doc('Tiles', 'OGC tile matrix set of the tile set', JSON_TYPE, FOUND)),
  route('/tiles/:tilesId/WMTSCapabilities.xml', tilesParams, tilesWmts, doc('Tiles', 'WMTS capabilities of the tile set', XML, FOUND), OWS),
  // Data
  route('/data/:dataId/features.json', dataParams, dataFeatures, doc('Data', 'GeoJSON features of the dataset', JSON_TYPE, FOUND)),
  // Images
  route('/images/:imageId/image.json', imageParams, imageJson, doc('Images', 'ImageJSON of the image', JSON_TYPE, FOUND)),
  route(`/images/:imageId/${XYZ}[.:ext]`, imageTileParams, imageTile, doc('Images', 'Tile of the image pyramid', ANY_TILE, TILE)),
  route('/images/:imageId/WMTSCapabilities.xml', imageParams, imageWmts, doc('Images', 'WMTS capabilities of the image', XML, FOUND), OWS),
  // Elevation (unavailable when no terrain is mirrored)
  route('/elevation/:locations.json', elevationParams, elevation, doc('Elevation', 'Heights at up to 50 positions, from the mirrored terrain', JSON_TYPE, ['unavailable'])),
  // Geocoding: four overlapping shapes, told apart in this order: a position, a `;` batch, a `type.N` id, a name
  route('/geocoding/:longitude(-?[0-9.]+),:latitude(-?[0-9.]+).json', reverseParams, geocodingReverse, doc('Geocoding', 'Reverse geocoding: what is at a position', JSON_TYPE, GEOCODING)),
  route('/geocoding/:queries([^/]*;[^/]*).json', batchParams, geocodingBatch, doc('Geocoding', 'Batch geocoding: up to 50 forward, reverse or id queries separated by `;`', JSON_TYPE, GEOCODING), { rawParams: ['queries'] }),
  route('/geocoding/:id([a-z_]+\\.[0-9]+).json', byIdParams, geocodingById, doc('Geocoding', 'A feature by id, with its full geometry', JSON_TYPE, GEOCODING)),
  route('/geocoding/:query.json', forwardParams, geocodingForward, doc('Geocoding', 'Forward geocoding: places by name', JSON_TYPE, GEOCODING)),
  // Weather
  route('/weather/latest.json', NO_PARAMS, weatherLatest, doc('Weather', 'Weather catalog: variables and keyframe tile sets', JSON_TYPE, FOUND)),
  route('/weather/WMTSCapabilities.xml', NO_PARAMS, wmtsWeatherCapabilities, doc('Weather', 'WMTS capabilities of the weather variables: one layer each, with a Time dimension', XML, FOUND), OWS),
  // Coordinates (unavailable when the registry index is not built)
  route('/coordinates/search/:query.json', coordinatesSearchParams, coordinatesSearch, doc('Coordinates', 'Search the EPSG registry', JSON_TYPE, ['unavailable'])),
  route('/coordinates/transform/:coordinates.json', coordinatesTransformParams, coordinatesTransform, doc('Coordinates', 'Transform coordinates between reference systems', JSON_TYPE, ['unavailable'])),
  // Geolocation
  route('/geolocation/ip.json', geolocationParams, geolocationIp, doc('Geolocation', "Where the requester is, from its IP address: configured sites of local networks, then DB-IP Lite City (CC BY 4.0, https://db-ip.com)", JSON_TYPE, ['unavailable'])),
  // Sprites, fonts
  route('/sprites/:spriteId/sprite[:scale(@\\d+x)].:format', spriteParams, sprite, doc('Sprites', 'Sprite sheet (png) or index (json)', SPRITE, FOUND)),
  route('/fonts/:fontstack/:range.pbf', fontGlyphsParams, fontGlyphs, doc('Fonts', 'Glyphs of 256 code points of a font stack', ['application/x-protobuf'], FOUND)),
  // OGC API - Common and Tiles (the spec names /ogc/conformance; the rest is what OGC API - Tiles 1.0 and its clients
  // (GDAL, QGIS, OWSLib) read): errors as problem details
  route('/ogc[/]', NO_PARAMS, ogcLanding, doc('OGC API', 'Landing page', JSON_TYPE), OGC),
  route('/ogc/conformance', NO_PARAMS, ogcConformance, doc('OGC API', 'Declaration of the implemented conformance classes', JSON_TYPE), OGC),
  route('/ogc/collections', collectionsParams, ogcCollections, doc('OGC API', 'Collections: every map, tile set and image, and every weather variable', JSON_TYPE), OGC),
  route('/ogc/collections/:collectionId', collectionParams, ogcCollection, doc('OGC API', 'One collection', JSON_TYPE, FOUND), OGC),
  route('/ogc/collections/:collectionId/map/tiles', collectionParams, ogcMapTilesets, doc('OGC API', 'Map tilesets of a raster collection', JSON_TYPE, FOUND), OGC),
  route('/ogc/collections/:collectionId/map/tiles/:tmsId', tilesetParams, ogcMapTileset, doc('OGC API', 'Map tileset of a raster collection', JSON_TYPE, FOUND), OGC),
  route('/ogc/collections/:collectionId/map/tiles/:tmsId/:tileMatrix/:tileRow/:tileCol', ogcMapTileParams, ogcMapTile, doc('OGC API', 'Map tile', RASTER, TILE), OGC),
  route('/ogc/collections/:collectionId/tiles', collectionParams, ogcVectorTilesets, doc('OGC API', 'Vector tilesets of a vector collection', JSON_TYPE, FOUND), OGC),
  route('/ogc/collections/:collectionId/tiles/:tmsId', tilesetParams, ogcVectorTileset, doc('OGC API', 'Vector tileset of a vector collection', JSON_TYPE, FOUND), OGC),
  route('/ogc/collections/:collectionId/tiles/:tmsId/:tileMatrix/:tileRow/:tileCol', ogcTileParams, ogcVectorTile, doc('OGC API', 'Vector tile', VECTOR_TILE, TILE), OGC),
  route('/ogc/tiles', NO_PARAMS, ogcDatasetTilesets, doc('OGC API', "Vector tilesets of the dataset: every vector collection's layers in one tile", JSON_TYPE, FOUND), OGC),
  route('/ogc/tiles/:tmsId', tmsParams, ogcDatasetTileset, doc('OGC API', 'Vector tileset of the dataset', JSON_TYPE, FOUND), OGC),
  route('/ogc/tiles/:tmsId/:tileMatrix/:tileRow/:tileCol', datasetTileParams, ogcDatasetTile, doc('OGC API', 'Vector tile of the dataset', VECTOR_TILE, TILE), OGC),
  route('/ogc/tileMatrixSets', NO_PARAMS, ogcTileMatrixSets, doc('OGC API', 'Tile matrix sets', JSON_TYPE), OGC),
  route('/ogc/tileMatrixSets/:tmsId', tmsParams, ogcTileMatrixSetById, doc('OGC API', 'One tile matrix set', JSON_TYPE, FOUND), OGC),
  // WMTS 1.0.0, service-wide: KVP (GetCapabilities, GetTile), RESTful capabilities and tiles (a layer identifier holds
  // slashes: the layer is what comes before the last five segments; an empty segment is a missing parameter). A
  // weather layer's tiles have a {Time} segment after the style: their route comes first.
  // WMS 1.3.0 and 1.1.1: GetCapabilities and GetMap in any EPSG CRS, service-wide and per map.
  route('/wms', wmsServiceParams, wmsService, doc('WMS', 'WMS 1.3.0 / 1.1.1 KVP: GetCapabilities, GetMap (reprojected from the mirrored tiles)', [...XML, ...RASTER], TILE), WMS),
  route('/maps/:mapId/wms', mapWmsParams, mapWms, doc('WMS', 'WMS 1.3.0 / 1.1.1 KVP of one map', [...XML, ...RASTER], TILE), WMS),
  route('/wmts', wmtsServiceParams, wmtsService, doc('WMTS', 'WMTS KVP: GetCapabilities, GetTile', [...XML, ...RASTER, ...VECTOR_TILE], TILE), OWS),
  route('/wmts/1.0.0/WMTSCapabilities.xml', NO_PARAMS, wmtsServiceCapabilities, doc('WMTS', 'WMTS capabilities of every map, tile set, image and weather variable', XML), OWS),
  route(
    '/wmts/1.0.0/weather/:name([^/]*)/:style([^/]*)/:time([^/]*)/:tileMatrixSet([^/]*)/:tileMatrix([^/]*)/:tileRow([^/]*)/:tileCol([^/.]*).:format',
    wmtsWeatherTileParams,
    wmtsWeatherTile,
    doc('WMTS', 'WMTS RESTful tile of a weather layer at a time (the ResourceURL template of the layer)', RASTER, TILE),
    OWS,
  ),
  route(
    '/wmts/1.0.0/:layer(.+?)/:style([^/]*)/:tileMatrixSet([^/]*)/:tileMatrix([^/]*)/:tileRow([^/]*)/:tileCol([^/.]*).:format',
    wmtsRestTileParams,
    wmtsRestTile,
    doc('WMTS', 'WMTS RESTful tile (the ResourceURL template of the layer)', [...RASTER, ...VECTOR_TILE], TILE),
    OWS,
  ),
  // For operators, not found when no admin key is configured: the console (a page with no data in it, its script and
  // style; its script reads the admin API with the key typed in) and the jobs' status (admin key, checked by the handler)
  route('/admin[/]', NO_PARAMS, adminConsole, doc('Admin', "The operator's console: stores on a map, jobs to run and cancel (reads the admin API)", HTML, FOUND), { public: true, noCors: true }),
  route('/admin/console.js', NO_PARAMS, adminConsoleScript, doc('Admin', "The console's script", ['text/javascript'], FOUND), { public: true, noCors: true }),
  route('/admin/console.css', NO_PARAMS, adminConsoleStyle, doc('Admin', "The console's style sheet", ['text/css'], FOUND), { public: true, noCors: true }),
  route('/admin/status.json', NO_PARAMS, adminStatusJson, doc('Admin', 'Mirror jobs: schedule, progress, last run, errors (admin key)', JSON_TYPE, ['forbidden', 'not-found']), { public: true, noCors: true }),
  // The admin API (admin key in `Authorization: Bearer`; reads also take `?key=`); its writes are the only POST routes
  route('/admin/api/stores', NO_PARAMS, adminStores, doc('Admin', 'Every store: kind, format, zooms, bounds, tiles, bytes, publication, origin, job (admin key)', JSON_TYPE, ['forbidden', 'not-found']), ADMIN),
  route('/admin/api/stores/:id(.+?)/coverage', coverageParams, adminStoreCoverage, doc('Admin', "A store's mirrored area and the tiles present at one zoom (with grid: kept in that grid at one matrix), as GeoJSON (admin key)", JSON_TYPE, ['forbidden', 'not-found', 'unavailable']), ADMIN),
  route('/admin/api/jobs', NO_PARAMS, adminJobs, doc('Admin', "Every job with its schedule, live progress and the instance running it, and this month's upstream requests against their budgets (admin key)", JSON_TYPE, ['forbidden', 'not-found']), ADMIN),
  route('/admin/api/jobs/:name([^/]+)', jobParams, adminJob, doc('Admin', 'One job and its last runs (admin key)', JSON_TYPE, ['forbidden', 'not-found']), ADMIN),
  route('/admin/api/jobs/:name([^/]+)/plan', jobParams, adminJobPlan, doc('Admin', "A job's next run: tiles, estimated size and time, free space on the data volume, upstream requests expected against the month's budget (admin key)", JSON_TYPE, ['forbidden', 'not-found', 'unavailable']), ADMIN),
  route('/admin/api/jobs/:name([^/]+)/run', jobParams, adminJobRun, doc('Admin', 'Run the job now, through the same lock as a scheduled firing (admin key in Authorization; same origin)', JSON_TYPE, ['forbidden', 'not-found', 'conflict', 'over-quota', 'unavailable', 'no-space']), ADMIN_WRITE),
  route('/admin/api/jobs/:name([^/]+)/cancel', jobParams, adminJobCancel, doc('Admin', "Cancel the job's run on this instance: progress is kept (admin key in Authorization; same origin)", JSON_TYPE, ['forbidden', 'not-found', 'conflict', 'unavailable']), ADMIN_WRITE),
  // This server: index, health, and the API's own description (public: it names no data, and a client following
  // the landing page's service-desc may not have a key to hand)
  route('/', NO_PARAMS, home, doc('Server', 'Index of everything served', HTML)),
  route('/health', NO_PARAMS, health, doc('Server', 'Liveness (the same as /health/live)', ['text/plain']), { public: true }),
  route('/health/live', NO_PARAMS, health, doc('Server', 'Liveness: the process answers (no I/O)', ['text/plain']), { public: true }),
  route('/health/ready', NO_PARAMS, healthReady, doc('Server', 'Readiness: stores open, scheduler started, not shutting down (when not ready: the failed checks, as Service Unavailable)', JSON_TYPE, ['unavailable']), { public: true }),
  route('/metrics', NO_PARAMS, metrics, doc('Server', 'Prometheus metrics (from metrics.allow addresses, default loopback, or with an admin key)', ['text/plain'], ['forbidden', 'not-found', 'unavailable']), { public: true }),
  route('/openapi.json', NO_PARAMS, openApiDocument, doc('Server', 'This OpenAPI 3.1 definition', ['application/vnd.oai.openapi+json;version=3.1']), { public: true }),
  route('/docs', NO_PARAMS, apiDocs, doc('Server', 'The API documentation, rendered from the OpenAPI definition', HTML), { public: true }),
];
