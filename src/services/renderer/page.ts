// The page each renderer browser shows: MapLibre GL JS from this server's /assets, one map, and `tilemirrorDraw`,
// which the renderer calls for every metatile. It names no map and holds no key: the renderer passes the style URL
// (with its key) on each call, so the page itself is public like the viewer's library files.

/** Where the server answers the page (app.ts), on its own origin: the page's requests are same-origin. */
export const RENDER_PAGE_PATH = '/assets/renderer.html';

/**
 * The page. `tilemirrorDraw(styleUrl, view)` sizes the map's container, (re)loads the style when it changed, sets
 * the pixel ratio, jumps to the view and resolves once the map is idle (style, sprite, glyphs and tiles loaded,
 * symbols placed: fadeDuration 0 places them at once). A style that fails to load rejects at once instead of never
 * going idle; a tile that fails is drawn without, as in the viewer, and reported in `problems`.
 */
export const RENDER_PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>tilemirror renderer</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="/assets/maplibre-gl/maplibre-gl.css">
<style>html,body{margin:0;padding:0;background:transparent;overflow:hidden}#map{position:absolute;left:0;top:0}</style>
</head>
<body>
<div id="map"></div>
<script type="module">
import { Map } from '/assets/maplibre-gl/maplibre-gl.mjs';
let map;
let styleUrl;
let problems = [];
let failStyle;
function create(container, url, view) {
  map?.remove();
  styleUrl = url;
  map = new Map({
    container, style: url, center: view.center, zoom: view.zoom, pixelRatio: view.pixelRatio,
    interactive: false, fadeDuration: 0, attributionControl: false, minZoom: -2, maxZoom: 24,
    canvasContextAttributes: { preserveDrawingBuffer: true },
  });
  // Before 'style.load' an error is the style's own (it will never be idle); after, a tile, sprite or glyph range.
  let styled = false;
  map.once('style.load', () => { styled = true; });
  map.on('error', (e) => {
    const message = String((e && e.error && e.error.message) || e.error || 'error');
    if (!styled && failStyle) failStyle(new Error('style: ' + message));
    else if (problems.length < 20) problems.push(message);
  });
}
window.tilemirrorDraw = (url, view) => new Promise((resolve, reject) => {
  const container = document.getElementById('map');
  container.style.width = view.width + 'px';
  container.style.height = view.height + 'px';
  problems = [];
  failStyle = (err) => { styleUrl = undefined; reject(err); };
  if (!map || styleUrl !== url) create(container, url, view);
  else {
    if (map.getPixelRatio() !== view.pixelRatio) map.setPixelRatio(view.pixelRatio);
    map.resize();
    map.jumpTo({ center: view.center, zoom: view.zoom });
  }
  map.once('idle', () => { failStyle = undefined; resolve({ problems }); });
  map.triggerRepaint();
});
window.tilemirrorReady = true;
</script>
</body>
</html>
`;
