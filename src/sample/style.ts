// Colours of the sample map (shared by the raster tiles and the style document) and its style.

export const COLORS = {
  ocean: '#aad3df',
  land: '#f2efe9',
  border: '#9e8fb0',
  coast: '#6d97ad',
  graticule: '#c4e0e8',
} as const;

/** '#rrggbb' to [r, g, b]. */
export function rgb(hex: string): [number, number, number] {
  const n = parseInt(hex.slice(1), 16);
  return [(n >> 16) & 255, (n >> 8) & 255, n & 255];
}

export const NATURAL_EARTH_ATTRIBUTION = '<a href="https://www.naturalearthdata.com/" target="_blank">&copy; Natural Earth</a>';

/** MapLibre style (v8) of the sample map, drawn from the sample vector tiles. */
export function sampleStyle(): object {
  return {
    version: 8,
    name: 'Sample',
    metadata: { 'tilemirror:sample': true },
    center: [0, 20],
    zoom: 1,
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
    ],
  };
}
