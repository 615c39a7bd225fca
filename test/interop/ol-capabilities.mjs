// OpenLayers as a WMTS client, run by ol.interop.test.ts with node (ol is ESM-only; jest runs CommonJS).
//
//   node test/interop/ol-capabilities.mjs <capabilities url> <layer> <matrixSet|-> <KVP|REST|-> [Name=value ...] z/x/y [z/x/y ...]
//
// Fetches the capabilities, parses them with OpenLayers' WMTSCapabilities (jsdom's DOMParser provides the
// document, as in a browser), builds a WMTS source with optionsFromCapabilities and prints, as JSON, the tile
// URL the source's tileUrlFunction builds for each XYZ tile. The test fetches those URLs and compares pixels.
// '-' for the matrix set or the encoding lets OpenLayers choose as it does by default. A `Name=value` argument sets
// a dimension with the source's updateDimensions (a weather layer's Time); the dimensions as OpenLayers took them
// from the capabilities (their Defaults) are printed too.
import { JSDOM } from 'jsdom';

const [capsUrl, layer, matrixSetArg, encodingArg, ...rest] = process.argv.slice(2);
const dimensionArgs = rest.filter((a) => a.includes('='));
const tiles = rest.filter((a) => !a.includes('='));
if (!capsUrl || !layer || !matrixSetArg || !encodingArg || tiles.length === 0) {
  console.error('usage: ol-capabilities.mjs <capabilities url> <layer> <matrixSet|-> <KVP|REST|-> z/x/y [z/x/y ...]');
  process.exit(2);
}

// OpenLayers' XML parsers use the DOM of their environment: give them jsdom's.
const { window } = new JSDOM('');
globalThis.DOMParser = window.DOMParser;
globalThis.XMLSerializer = window.XMLSerializer;
globalThis.Node = window.Node;
globalThis.document = window.document;

const { default: WMTSCapabilities } = await import('ol/format/WMTSCapabilities.js');
const { default: WMTS, optionsFromCapabilities } = await import('ol/source/WMTS.js');

const res = await fetch(capsUrl);
const text = await res.text();
if (res.status !== 200) {
  console.error(`GET ${capsUrl} -> ${res.status}: ${text.slice(0, 500)}`);
  process.exit(1);
}

const caps = new WMTSCapabilities().read(text);
if (!caps || !caps.Contents) {
  console.error('OpenLayers read no Contents from the capabilities');
  process.exit(1);
}

const config = { layer };
if (matrixSetArg !== '-') config.matrixSet = matrixSetArg;
if (encodingArg !== '-') config.requestEncoding = encodingArg;
const options = optionsFromCapabilities(caps, config);
if (!options) {
  console.error(`optionsFromCapabilities returned null for ${JSON.stringify(config)}`);
  process.exit(1);
}
if (options.matrixSet !== config.matrixSet && config.matrixSet) {
  console.error(`OpenLayers chose matrix set ${options.matrixSet}, not ${config.matrixSet}`);
  process.exit(1);
}
if (!options.urls || options.urls.length === 0) {
  console.error(`OpenLayers found no ${options.requestEncoding} tile URL for layer ${layer}`);
  process.exit(1);
}

const defaultDimensions = { ...(options.dimensions ?? {}) };
const source = new WMTS(options);
if (dimensionArgs.length) source.updateDimensions(Object.fromEntries(dimensionArgs.map((a) => [a.slice(0, a.indexOf('=')), a.slice(a.indexOf('=') + 1)])));
const tileGrid = source.getTileGrid();
const projection = source.getProjection();
const tileUrlFunction = source.getTileUrlFunction();
const tileSize = tileGrid.getTileSize(0);
const size = Array.isArray(tileSize) ? tileSize[0] : tileSize;
// Resolution of zoom 0 of a Web Mercator pyramid of `size` px tiles.
const res0 = (2 * Math.PI * 6378137) / size;

const urls = tiles.map((t) => {
  const [z, x, y] = t.split('/').map(Number);
  // The grid's z is an index into the set's matrices; find the one at this zoom by its resolution.
  const want = res0 / 2 ** z;
  const resolutions = tileGrid.getResolutions();
  const index = resolutions.findIndex((r) => Math.abs(r - want) / want < 1e-6);
  if (index < 0) {
    console.error(`no matrix at zoom ${z} (resolution ${want}) in ${resolutions.join(', ')}`);
    process.exit(1);
  }
  const url = tileUrlFunction([index, x, y], 1, projection);
  return { z, x, y, matrixId: tileGrid.getMatrixId(index), url };
});

process.stdout.write(
  JSON.stringify({
    layer: options.layer,
    matrixSet: options.matrixSet,
    requestEncoding: options.requestEncoding,
    format: options.format,
    style: options.style,
    tileSize: size,
    projection: projection.getCode(),
    dimensions: defaultDimensions,
    urls,
  }) + '\n',
);
