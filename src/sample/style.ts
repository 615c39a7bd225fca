// Colours of the sample map (shared by the raster tiles and the style document) and its style.

import { LOCAL_GLYPHS_URL, localSpriteUrl } from '../ogc/style';
import { SAMPLE_FONT } from './fonts';
import { SPRITE_ID } from './sprite';

export const COLORS = {
  ocean: '#aad3df',
  land: '#f2efe9',
  border: '#9e8fb0',
  coast: '#6d97ad',
  graticule: '#c4e0e8',
  label: '#4a4453',
  labelHalo: '#ffffff',
} as const;

/** '#rrggbb' to [r, g, b]. */
export function rgb(hex: string): [number, number, number] {
  const n = parseInt(hex.slice(1), 16);
  return [(n >> 16) & 255, (n >> 8) & 255, n & 255];
}

export const NATURAL_EARTH_ATTRIBUTION = '<a href="https://www.naturalearthdata.com/" target="_blank">&copy; Natural Earth</a>';

const LABEL_PAINT = { 'text-color': COLORS.label, 'text-halo-color': COLORS.labelHalo, 'text-halo-width': 1.2, 'text-halo-blur': 0.5 };
const LABEL_SIZE = ['interpolate', ['linear'], ['zoom'], 0, 10, 5, 14];

/**
 * MapLibre style (v8) of the sample map, drawn from the sample vector tiles, with country labels in the sample
 * font (Noto Sans Regular) and, from zoom 3, a star icon of the sample sprite at each label point.
 */
export function sampleStyle(): object {
  return {
    version: 8,
    name: 'Sample',
    metadata: { 'tilemirror:sample': true },
    center: [0, 20],
    zoom: 1,
    glyphs: LOCAL_GLYPHS_URL,
    sprite: localSpriteUrl(SPRITE_ID),
    sources: {
      'sample-vector': { type: 'vector', url: 'tilemirror://tiles/sample-vector/tiles.json' },
    },
    layers: [
      { id: 'background', type: 'background', paint: { 'background-color': COLORS.ocean } },
      {
        id: 'countries-fill',
        type: 'fill',
        source: 'sample-vector',
        'source-layer': 'countries',
        paint: { 'fill-color': COLORS.land },
      },
      {
        id: 'coastline',
        type: 'line',
        source: 'sample-vector',
        'source-layer': 'coastline',
        layout: { 'line-join': 'round', 'line-cap': 'round' },
        paint: { 'line-color': COLORS.coast, 'line-width': ['interpolate', ['linear'], ['zoom'], 0, 0.6, 5, 1.2] },
      },
      {
        id: 'boundaries',
        type: 'line',
        source: 'sample-vector',
        'source-layer': 'boundaries',
        layout: { 'line-join': 'round', 'line-cap': 'round' },
        paint: { 'line-color': COLORS.border, 'line-width': ['interpolate', ['linear'], ['zoom'], 0, 0.6, 5, 1.4] },
      },
      {
        id: 'country-label',
        type: 'symbol',
        source: 'sample-vector',
        'source-layer': 'country_label',
        maxzoom: 3,
        layout: {
          'text-field': ['get', 'name'],
          'text-font': [SAMPLE_FONT],
          'text-size': LABEL_SIZE,
          'text-max-width': 7,
        },
        paint: LABEL_PAINT,
      },
      {
        id: 'country-label-icon',
        type: 'symbol',
        source: 'sample-vector',
        'source-layer': 'country_label',
        minzoom: 3,
        layout: {
          'icon-image': 'star',
          'icon-size': 0.8,
          'text-field': ['get', 'name'],
          'text-font': [SAMPLE_FONT],
          'text-size': LABEL_SIZE,
          'text-max-width': 7,
          'text-anchor': 'top',
          'text-offset': [0, 0.6],
          'text-optional': true,
        },
        paint: LABEL_PAINT,
      },
    ],
  };
}
