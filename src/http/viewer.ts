import type { TilesetInfo } from '../store/types';
import { escapeHtml as esc } from './html';

// The embeddable viewer page: MapLibre GL JS from this server's /assets (node_modules), never an external URL.

/** JSON for a <script> block: `<` escaped so no string can close the script element. */
export const scriptJson = (v: unknown): string => JSON.stringify(v).replace(/</g, '\\u003c');

export interface ViewerInput {
  title: string;
  /** Absolute URL of a style.json, or an inline style object. */
  style: string | object;
  center: [number, number, number];
  bounds?: [number, number, number, number];
}

export function viewerPage(input: ViewerInput): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${esc(input.title)}</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="/assets/maplibre-gl/maplibre-gl.css">
<style>html,body,#map{margin:0;padding:0;width:100%;height:100%}</style>
</head>
<body>
<div id="map"></div>
<script type="module">
import { Map, NavigationControl, ScaleControl } from '/assets/maplibre-gl/maplibre-gl.mjs';
const options = ${scriptJson({ style: input.style, center: input.center.slice(0, 2), zoom: input.center[2] })};
const map = new Map({ container: 'map', hash: true, attributionControl: { compact: false }, ...options });
map.addControl(new NavigationControl());
map.addControl(new ScaleControl());
window.map = map;
</script>
</body>
</html>
`;
}

const PALETTE = ['#e41a1c', '#377eb8', '#4daf4a', '#984ea3', '#ff7f00', '#a65628', '#f781bf', '#999999'];

/** What an automatic style needs to draw labels: this server's glyphs URL (with the key) and a mirrored font. */
export interface LabelOptions {
  /** `{baseUrl}/fonts/{fontstack}/{range}.pbf?key=K` */
  glyphsUrl: string;
  /** The font of the labels (the first configured fallback font). */
  font: string;
}

/**
 * A style that shows a tile set: raster tiles as a raster layer; vector tiles as fill, line and circle layers
 * for every layer of `vector_layers`, each in its own colour, and, given `labels`, symbol layers labelling the
 * features of every layer that has a `name` field (points and lines first, polygons where room is left).
 */
export function autoStyle(info: TilesetInfo, tileJsonUrl: string, labels?: LabelOptions): object {
  const vector = info.format === 'pbf';
  const source = vector ? { type: 'vector', url: tileJsonUrl } : { type: 'raster', url: tileJsonUrl, tileSize: info.pyramids[0].tileSize };
  const layers: object[] = [{ id: 'background', type: 'background', paint: { 'background-color': '#f8f4f0' } }];
  const polygonLabels: object[] = [];
  const pointLabels: object[] = [];
  if (vector) {
    (info.vectorLayers ?? []).forEach((l, i) => {
      const color = PALETTE[i % PALETTE.length];
      const common = { source: 'tileset', 'source-layer': l.id };
      layers.push(
        { id: `${l.id}-fill`, type: 'fill', ...common, filter: ['==', ['geometry-type'], 'Polygon'], paint: { 'fill-color': color, 'fill-opacity': 0.25 } },
        { id: `${l.id}-line`, type: 'line', ...common, filter: ['!=', ['geometry-type'], 'Point'], paint: { 'line-color': color, 'line-width': 1 } },
        { id: `${l.id}-point`, type: 'circle', ...common, filter: ['==', ['geometry-type'], 'Point'], paint: { 'circle-color': color, 'circle-radius': 3 } },
      );
      if (labels && Object.prototype.hasOwnProperty.call(l.fields ?? {}, 'name')) {
        const text = { 'text-field': ['to-string', ['get', 'name']], 'text-font': [labels.font], 'text-size': 12, 'text-max-width': 8 };
        const paint = { 'text-color': '#333333', 'text-halo-color': '#ffffff', 'text-halo-width': 1.2 };
        // Points beside their dot, lines along them; placed first (higher in the stack), so they win collisions.
        pointLabels.push(
          {
            id: `${l.id}-line-label`,
            type: 'symbol',
            ...common,
            filter: ['all', ['has', 'name'], ['==', ['geometry-type'], 'LineString']],
            layout: { ...text, 'symbol-placement': 'line' },
            paint,
          },
          {
            id: `${l.id}-label`,
            type: 'symbol',
            ...common,
            filter: ['all', ['has', 'name'], ['==', ['geometry-type'], 'Point']],
            layout: { ...text, 'text-variable-anchor': ['top', 'bottom', 'left', 'right'], 'text-radial-offset': 0.6 },
            paint,
          },
        );
        // Polygons are cut at tile edges and each part could carry a label: only where there is room to spare.
        polygonLabels.push({
          id: `${l.id}-area-label`,
          type: 'symbol',
          ...common,
          filter: ['all', ['has', 'name'], ['==', ['geometry-type'], 'Polygon']],
          layout: { ...text, 'text-padding': 40 },
          paint,
        });
      }
    });
  } else if (info.encoding) {
    // Elevation tiles are data, not a picture: shade the relief they encode.
    layers.push({ id: 'hillshade', type: 'hillshade', source: 'tileset', paint: { 'hillshade-exaggeration': 0.6 } });
  } else {
    layers.push({ id: 'tileset', type: 'raster', source: 'tileset' });
  }
  const dem = info.encoding && { type: 'raster-dem', url: tileJsonUrl, tileSize: info.pyramids[0].tileSize, encoding: info.encoding };
  return {
    version: 8,
    name: info.name,
    ...(vector && pointLabels.length > 0 && labels && { glyphs: labels.glyphsUrl }),
    sources: { tileset: dem || source },
    // Labels above every geometry layer.
    layers: [...layers, ...polygonLabels, ...pointLabels],
  };
}
