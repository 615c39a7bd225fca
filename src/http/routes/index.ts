import { route, type Route } from '../route-table';
import { imageJson, mapStyle, ogcTilesetLanding, tileJson, tileMatrixSet, viewer, wmtsCapabilities } from './documents';
import { dataFeatures } from './data';
import { health, home } from './home';
import { fontGlyphs } from './fonts';
import { mapTile } from './maps';
import {
  ogcCollection,
  ogcCollections,
  ogcConformance,
  ogcLanding,
  ogcTile,
  ogcTileMatrixSetById,
  ogcTileMatrixSets,
  ogcTilesets,
  ogcTileset,
} from './ogc';
import { mapSprite, sprite } from './sprites';
import { staticMap } from './static-maps';
import { adminStatusJson, adminStatusPage } from './status';
import { storedTile } from './tiles';
import { weatherLatest } from './weather';
import { wmtsService, wmtsServiceCapabilities } from './wmts';

// Every path of the API, in the order of the spec's endpoint tables, then what tilemirror adds (service-wide
// WMTS, OGC API Tiles collections). `hot` routes are also matched by the fast dispatcher in front of Express;
// both run the same handlers. z/x/y segments match anything here: the handlers validate them (400, not 404).
const XYZ = ':z/:x/:y([^/.@]+)';
export const routes: Route[] = [
  // Maps
  route('/maps/:mapId/', viewer('maps')),
  route('/maps/:mapId/style.json', mapStyle),
  route('/maps/:mapId/sprite[:scale(@\\d+x)].:format', mapSprite, { deprecated: {} }),
  // Static maps come before the tile route, whose z/x/y would also match `static/auto/512x512`.
  route('/maps/:mapId/static/:area/:size([^/.@]+)[:scale(@\\d+x)].:format', staticMap, { hot: true }),
  route(`/maps/:mapId/[:size(256)/]${XYZ}[:scale(@\\d+x)].:format`, mapTile, { hot: true }),
  route('/maps/:mapId/[:size(256)/]tiles.json', tileJson('maps')),
  route('/maps/:mapId/tiles', ogcTilesetLanding('maps')),
  route('/maps/:mapId/tileMatrixSet', tileMatrixSet('maps')),
  route('/maps/:mapId/WMTSCapabilities.xml', wmtsCapabilities('maps')),
  // Tiles
  route('/tiles/:tilesId/', viewer('tiles')),
  route(`/tiles/:tilesId/${XYZ}[.:ext]`, storedTile('tiles'), { hot: true }),
  route('/tiles/:tilesId/tiles.json', tileJson('tiles')),
  route('/tiles/:tilesId/tiles', ogcTilesetLanding('tiles')),
  route('/tiles/:tilesId/tileMatrixSet', tileMatrixSet('tiles')),
  route('/tiles/:tilesId/WMTSCapabilities.xml', wmtsCapabilities('tiles')),
  // Data
  route('/data/:dataId/features.json', dataFeatures),
  // Images
  route('/images/:imageId/image.json', imageJson),
  route(`/images/:imageId/${XYZ}[.:ext]`, storedTile('images'), { hot: true }),
  route('/images/:imageId/WMTSCapabilities.xml', wmtsCapabilities('images')),
  // Weather
  route('/weather/latest.json', weatherLatest),
  // Sprites, fonts
  route('/sprites/:spriteId/sprite[:scale(@\\d+x)].:format', sprite),
  route('/fonts/:fontstack/:range.pbf', fontGlyphs),
  // OGC API - Tiles (the spec names /ogc/conformance; the rest is what GDAL and QGIS read)
  route('/ogc[/]', ogcLanding),
  route('/ogc/conformance', ogcConformance),
  route('/ogc/collections', ogcCollections),
  route('/ogc/collections/:collectionId', ogcCollection),
  route('/ogc/collections/:collectionId/map/tiles', ogcTilesets('map')),
  route('/ogc/collections/:collectionId/map/tiles/:tmsId', ogcTileset('map')),
  route('/ogc/collections/:collectionId/map/tiles/:tmsId/:tileMatrix/:tileRow/:tileCol', ogcTile('map')),
  route('/ogc/collections/:collectionId/tiles', ogcTilesets('vector')),
  route('/ogc/collections/:collectionId/tiles/:tmsId', ogcTileset('vector')),
  route('/ogc/collections/:collectionId/tiles/:tmsId/:tileMatrix/:tileRow/:tileCol', ogcTile('vector')),
  route('/ogc/tileMatrixSets', ogcTileMatrixSets),
  route('/ogc/tileMatrixSets/:tmsId', ogcTileMatrixSetById),
  // WMTS, service-wide: KVP and RESTful capabilities
  route('/wmts', wmtsService),
  route('/wmts/1.0.0/WMTSCapabilities.xml', wmtsServiceCapabilities),
  // Mirror job status for operators: behind the admin keys (checked by the handlers), 404 when none is configured
  route('/admin[/]', adminStatusPage, { public: true }),
  route('/admin/status.json', adminStatusJson, { public: true }),
  // This server
  route('/', home),
  route('/health', health, { public: true }),
];
