import { escapeHtml as esc } from '../html';

// The operator's console: an HTML shell holding no data. Its script (browser/console.ts) asks the admin key, keeps it
// in sessionStorage and reads everything from /admin/api/* with it; the map is MapLibre from this server's /assets.

/**
 * The page under the console's Content-Security-Policy: scripts, styles, workers and connections from this origin
 * only (no inline script or style anywhere in the page), images also as data: and blob: (MapLibre's controls and
 * decoded tiles), no frames, no plugins, not framed by others.
 */
export const CONSOLE_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data: blob:",
  "font-src 'self'",
  "connect-src 'self'",
  "worker-src 'self' blob:",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

/** The shell; `prefix` is the path this server is published under ('' at the root of its origin). */
export function consolePage(prefix: string): string {
  const p = esc(prefix);
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex, nofollow">
<meta name="referrer" content="no-referrer">
<title>tilemirror console</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="${p}/assets/maplibre-gl/maplibre-gl.css">
<link rel="stylesheet" href="${p}/admin/console.css">
<script type="module" src="${p}/admin/console.js"></script>
</head>
<body>
<header>
<h1>tilemirror console</h1>
<span id="instance"></span>
<button type="button" id="sign-out" hidden>Sign out</button>
</header>
<p id="message" role="alert" hidden></p>
<form id="sign-in" hidden>
<label>Admin key <input type="password" id="admin-key" name="admin-key" autocomplete="current-password" required></label>
<label>API key for the base map (optional) <input type="password" id="map-key" name="map-key" autocomplete="off"></label>
<button type="submit">Open the console</button>
</form>
<main id="console" hidden>
<section id="stores-panel">
<h2>Stores</h2>
<table id="stores">
<thead><tr><th>store</th><th>kind</th><th>format</th><th>tile size</th><th>zooms</th><th>bounds</th><th>tiles</th><th>bytes</th><th>published</th><th>origin</th><th>job</th></tr></thead>
<tbody></tbody>
</table>
</section>
<section id="map-panel">
<h2>Coverage</h2>
<div class="controls">
<label>Store <select id="coverage-store"></select></label>
<label>Grid <select id="coverage-grid"></select></label>
<label>Zoom <select id="coverage-zoom"></select></label>
<span id="coverage-count"></span>
<span class="legend"><i class="swatch mirrored"></i> mirrored area <i class="swatch tile"></i> <span id="legend-tile">tile present</span></span>
</div>
<div id="map"></div>
</section>
<section id="jobs-panel">
<h2>Jobs</h2>
<p id="jobs-summary"></p>
<div id="request-budget" hidden></div>
<div id="jobs"></div>
</section>
</main>
</body>
</html>
`;
}
