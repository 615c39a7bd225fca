// The sample weather: a catalog (`weather/latest.mbtiles`, document latest.json, in the spec's shape) naming two
// keyframes of one variable, each a PNG tileset `tiles/{keyframeId}.mbtiles` (z0-2, 256 px) holding a KNOWN
// SYNTHETIC temperature field, so a client can check decoded values. These are the files a mirror run of
// `weather` writes: the catalog with local `tilemirror://` URLs, each keyframe a tileset with its tiles.json.
//
// Encoding (the catalog's `decoding`): temperature = min + R / 255 · (max - min), channels 'r'; G and B repeat R
// (a grey picture). Pixel (px, py) of tile z/x/y carries the value at its centre (terrainPixelCenter's convention).

import sharp from 'sharp';
import { MAX_LAT, ORIGIN_SHIFT, WORLD_BOUNDS } from '../geo/mercator';
import { LOCAL_SCHEME } from '../ogc/style';
import type { Pyramid } from '../store/types';
import { terrainPixelCenter } from './terrain';
import { mapLimit, type TileEntry } from './store-file';

export const WEATHER_TILE_SIZE = 256;
export const WEATHER_MAXZOOM = 2;
export const WEATHER_DECODING = { channels: 'r', min: -60, max: 60 } as const;
export const WEATHER_VARIABLE_ID = 'temperature-2m:sample';
export const WEATHER_ATTRIBUTION = 'Synthetic temperature (tilemirror sample)';
const RELEASE = '2024-01-01T00:00:00+00:00';

/** The two keyframes: tileset id, time, and hours after the release. */
export const WEATHER_KEYFRAMES = [
  { id: 'sample-temperature-0000', timestamp: '2024-01-01T00:00:00+00:00', hours: 0 },
  { id: 'sample-temperature-0600', timestamp: '2024-01-01T06:00:00+00:00', hours: 6 },
] as const;

const RAD = Math.PI / 180;

/**
 * The synthetic temperature in °C at lon/lat, `hours` after the release: warm at the equator, cold at the poles
 * (35·cos²φ - 25), plus a day wave of ±5 °C that moves west at 15° per hour. Stays within -30..15 °C.
 */
export function sampleTemperature(lon: number, lat: number, hours: number): number {
  const c = Math.cos(lat * RAD);
  return 35 * c * c - 25 + 5 * Math.sin((lon + 15 * hours) * RAD);
}

/** The 0..255 value of the red channel for a temperature (rounded, clamped to the decoding's range). */
export function encodeTemperature(t: number): number {
  const { min, max } = WEATHER_DECODING;
  return Math.max(0, Math.min(255, Math.round(((t - min) / (max - min)) * 255)));
}

export function decodeTemperature(r: number): number {
  const { min, max } = WEATHER_DECODING;
  return min + (r / 255) * (max - min);
}

export function weatherPyramid(): Pyramid {
  return { name: 'main', tileSize: WEATHER_TILE_SIZE, scale: 1, format: 'png', minzoom: 0, maxzoom: WEATHER_MAXZOOM, bounds: WORLD_BOUNDS };
}

/** Every tile of a keyframe's pyramid (z0-WEATHER_MAXZOOM), as PNG. */
export async function buildWeatherTiles(hours: number): Promise<TileEntry[]> {
  const coords: [number, number, number][] = [];
  for (let z = 0; z <= WEATHER_MAXZOOM; z++) for (let x = 0; x < 2 ** z; x++) for (let y = 0; y < 2 ** z; y++) coords.push([z, x, y]);
  const n = WEATHER_TILE_SIZE;
  return mapLimit(coords, 4, async ([z, x, y]) => {
    const raw = Buffer.alloc(n * n * 3);
    for (let py = 0; py < n; py++) {
      for (let px = 0; px < n; px++) {
        const [lon, lat] = terrainPixelCenter(z, x, y, px, py, n);
        const v = encodeTemperature(sampleTemperature(lon, lat, hours));
        raw.fill(v, (py * n + px) * 3, (py * n + px) * 3 + 3);
      }
    }
    const data = await sharp(raw, { raw: { width: n, height: n, channels: 3 } }).png({ compressionLevel: 6, adaptiveFiltering: false }).toBuffer();
    return { pyramid: 'main', z, x, y, data };
  });
}

/** The TileJSON a keyframe tileset carries (as a mirrored tileset keeps its upstream's, URLs local). */
export function keyframeTileJson(id: string, timestamp: string): object {
  return {
    tilejson: '3.0.0',
    name: `Sample temperature ${timestamp}`,
    attribution: WEATHER_ATTRIBUTION,
    format: 'png',
    tileSize: WEATHER_TILE_SIZE,
    minzoom: 0,
    maxzoom: WEATHER_MAXZOOM,
    bounds: WORLD_BOUNDS,
    tiles: [`${LOCAL_SCHEME}tiles/${id}/{z}/{x}/{y}.png`],
  };
}

const WKT_3857 =
  'PROJCS["WGS 84 / Pseudo-Mercator",GEOGCS["WGS 84",DATUM["WGS_1984",SPHEROID["WGS 84",6378137,298.257223563]],' +
  'PRIMEM["Greenwich",0],UNIT["degree",0.0174532925199433]],PROJECTION["Mercator_1SP"],PARAMETER["central_meridian",0],' +
  'PARAMETER["scale_factor",1],PARAMETER["false_easting",0],PARAMETER["false_northing",0],UNIT["metre",1],' +
  'AXIS["Easting",EAST],AXIS["Northing",NORTH],AUTHORITY["EPSG","3857"]]';

/** The catalog (spec: weather catalog response): one variable, its tile matrix set and the two keyframes. */
export function weatherCatalog(): object {
  return {
    variables: [
      {
        spatial_ref_sys: { auth_name: 'EPSG', auth_srid: '3857', wkt: WKT_3857 },
        bounds: [-180, -MAX_LAT, 180, MAX_LAT],
        tile_format: 'png',
        tile_matrix_set: {
          bounds: [-ORIGIN_SHIFT, -ORIGIN_SHIFT, ORIGIN_SHIFT, ORIGIN_SHIFT],
          items: Array.from({ length: WEATHER_MAXZOOM + 1 }, (_, z) => {
            const pixel = (2 * ORIGIN_SHIFT) / (WEATHER_TILE_SIZE * 2 ** z);
            return { zoom_level: z, matrix_width: 2 ** z, matrix_height: 2 ** z, tile_width: WEATHER_TILE_SIZE, tile_height: WEATHER_TILE_SIZE, pixel_x_size: pixel, pixel_y_size: pixel };
          }),
        },
        metadata: {
          weather_variable: {
            name: 'Temperature',
            description: 'Synthetic air temperature 2 m above ground (35·cos²(lat) - 25 + 5·sin(lon + 15°·hours) °C); bundled sample',
            attribution: WEATHER_ATTRIBUTION,
            variable_id: WEATHER_VARIABLE_ID,
            unit: 'C',
            decoding: { ...WEATHER_DECODING },
            release_timestamp: RELEASE,
            timestamp: WEATHER_KEYFRAMES[WEATHER_KEYFRAMES.length - 1].timestamp,
          },
        },
        keyframes: WEATHER_KEYFRAMES.map((k) => ({ id: k.id, timestamp: k.timestamp })),
      },
    ],
  };
}
