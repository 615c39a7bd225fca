import { lonLatToTile } from '../../geo/mercator';
import { tmsIdFor } from '../../geo/tile-matrix-set';
import { collectionId, tilesetsPath } from '../../ogc/ogcapi-tiles';
import { tilePathTemplate, withKey } from '../../ogc/urls';
import type { Catalog } from '../../store/catalog/catalog';
import type { Pyramid, TilesetInfo } from '../../store/types';
import { answer, documentReply, type Reply } from '../reply';
import type { RequestContext } from '../route-table';
import { escapeHtml as esc } from '../html';

// `/`: the first screen (for people, not clients). What this server holds, every kind of resource with working
// example links (the requester's key in each), one example per endpoint family, and the API's own description.
// The location services' examples are asked of the services themselves, so each answers: a position inside the
// mirrored terrain (else the first map's centre), the place the gazetteer finds there (its name for a forward query,
// its id for a by-id one).

/** A link: its label and its path (no base, no key). */
type Link = [label: string, path: string];

const enc = encodeURIComponent;

/** The tile of a pyramid under the tileset's centre at the pyramid's first zoom: inside the bounds, so stored. */
function firstTile(info: TilesetInfo, p: Pyramid): { z: number; x: number; y: number } {
  const z = p.minzoom;
  const [fx, fy] = lonLatToTile(info.center[0], info.center[1], z);
  const clampIndex = (v: number) => Math.min(2 ** z - 1, Math.max(0, Math.floor(v)));
  return { z, x: clampIndex(fx), y: clampIndex(fy) };
}

function tilePath(info: TilesetInfo, p: Pyramid): string {
  const t = firstTile(info, p);
  return tilePathTemplate(info.kind, info.id, p, { z: String(t.z), x: String(t.x), y: String(t.y) }) + (info.kind === 'maps' ? '' : `.${p.format}`);
}

/** The example links of a map, tile set or image. */
function tilesetLinks(info: TilesetInfo): Link[] {
  const base = `/${info.kind}/${enc(info.id)}`;
  const main = info.pyramids[0];
  const links: Link[] = [];
  if (info.kind !== 'images') links.push(['viewer', `${base}/`]);
  if (info.kind === 'maps') links.push(['style', `${base}/style.json`]);
  links.push([`tile ${main.format}`, tilePath(info, main)]);
  if (info.kind === 'maps') {
    const p256 = info.pyramids.find((p) => p.tileSize === 256 && p.scale === 1);
    if (p256) links.push(['256 px tile', tilePath(info, p256)], ['256 px TileJSON', `${base}/256/tiles.json`]);
    const [lon, lat, zoom] = info.center;
    links.push(['static map', `${base}/static/${lon},${lat},${Math.max(0, Math.round(zoom))}/400x300.png`]);
  }
  if (info.kind === 'images') links.push(['image.json', `${base}/image.json`]);
  else links.push(['TileJSON', `${base}/tiles.json`], ['OGC tiles', `${base}/tiles`], ['tile matrix set', `${base}/tileMatrixSet`]);
  links.push(['WMTS', `${base}/WMTSCapabilities.xml`]);
  if (info.kind !== 'images') {
    const t = firstTile(info, main);
    links.push(['OGC API tile', `${tilesetsPath(info)}/${tmsIdFor(main.tileSize)}/${t.z}/${t.y}/${t.x}`]);
  }
  return links;
}

interface Row {
  kind: string;
  id: string;
  name: string;
  detail: string;
  links: Link[];
}

function rows(catalog: Catalog): Row[] {
  const out: Row[] = catalog.list().map((info) => ({
    kind: info.kind,
    id: info.id,
    name: info.name,
    detail: `${info.format}, zoom ${info.minzoom}–${info.maxzoom}`,
    links: tilesetLinks(info),
  }));
  const docs = (kind: 'data' | 'weather' | 'sprites' | 'fonts', links: (id: string) => Link[], detail: string): void => {
    for (const id of catalog.documentIds(kind)) {
      out.push({ kind, id, name: catalog.documents(kind, id)?.name ?? id, detail, links: links(id) });
    }
  };
  docs('data', (id) => [['features.json', `/data/${enc(id)}/features.json`]], 'GeoJSON');
  docs('weather', () => [['latest.json', '/weather/latest.json'], ['WMTS', '/weather/WMTSCapabilities.xml']], 'weather catalog (its keyframes are tile sets; its variables are time-enabled WMTS layers)');
  docs('sprites', (id) => [
    ['sprite.json', `/sprites/${enc(id)}/sprite.json`],
    ['sprite.png', `/sprites/${enc(id)}/sprite.png`],
    ['sprite@2x.png', `/sprites/${enc(id)}/sprite@2x.png`],
  ], 'icons');
  docs('fonts', (id) => [['glyphs 0–255', `/fonts/${enc(id)}/0-255.pbf`]], 'glyph ranges (SDF)');
  return out;
}

/** An endpoint family and its example links; `missing`: why it has none here (shown in their place). */
interface Family {
  family: string;
  links: Link[];
  missing?: string;
}

const NO_INDEX = 'not available: its index is not built (npm run indexes)';

/** Geocoding, coordinates, elevation and geolocation examples that answer on this server. */
function locationFamilies(ctx: RequestContext): Family[] {
  const { elevation, geocoding, coordinates, geolocation } = ctx.services;
  let terrain: TilesetInfo | undefined;
  try {
    terrain = elevation?.terrain().info;
  } catch {
    terrain = undefined; // no terrain mirrored: the elevation family says so
  }
  const anchor = terrain ?? ctx.catalog.list('maps')[0] ?? ctx.catalog.list()[0];
  const [lon, lat] = anchor ? [anchor.center[0], anchor.center[1]] : [0, 0];
  const at = `${round(lon)},${round(lat)}`;
  const place = geocoding?.reverse(lon, lat, { language: [] }).features[0];
  const geocodingLinks: Link[] = [['reverse', `/geocoding/${at}.json`]];
  if (place) {
    geocodingLinks.unshift(['forward', `/geocoding/${enc(place.text)}.json`]);
    geocodingLinks.push(['by id', `/geocoding/${enc(place.id)}.json`], ['batch', `/geocoding/${enc(place.text)};${at}.json`]);
  }
  // A family whose service is absent says why instead of linking what would fail.
  const family = (name: string, available: unknown, links: Link[], missing: string): Family =>
    available ? { family: name, links } : { family: name, links: [], missing };
  return [
    family('Geocoding', geocoding, geocodingLinks, NO_INDEX),
    family(
      'Coordinates',
      coordinates,
      [
        ['search', `/coordinates/search/${enc('web mercator')}.json`],
        ['transform', `/coordinates/transform/${at}.json?s_srs=4326&t_srs=3857`],
      ],
      NO_INDEX,
    ),
    family('Elevation', elevation && terrain, [['heights', `/elevation/${at}.json`]], 'not available: no terrain tile set is mirrored'),
    family('Geolocation', geolocation, [['your IP address', '/geolocation/ip.json']], 'not available: geolocation is off'),
  ];
}

/** Degrees to 5 decimals (about a metre): a short example URL. */
const round = (v: number): number => Math.round(v * 1e5) / 1e5;

/** One example per endpoint family, from the first resource of each kind ([] for a family with nothing to show). */
function families(catalog: Catalog, all: Row[]): Family[] {
  // The first resource of the kind that has the first label (e.g. a vector tile set before raster ones).
  const first = (kind: string, labels: string[]): Link[] => {
    const ofKind = all.filter((r) => r.kind === kind);
    const row = labels.map((l) => ofKind.find((r) => r.links.some(([label]) => label === l))).find((r) => r !== undefined) ?? ofKind[0];
    return row ? row.links.filter(([label]) => labels.includes(label)) : [];
  };
  const infoOf = (kind: 'maps' | 'tiles' | 'images') => catalog.list(kind)[0];
  const map = infoOf('maps');
  return [
    { family: 'Maps', links: first('maps', ['viewer', 'style', 'TileJSON', 'OGC tiles', 'tile matrix set']) },
    { family: 'Map tiles (z/x/y)', links: map ? [[`${map.id} z/x/y`, tilePath(map, map.pyramids[0])], ...first('maps', ['256 px tile'])] : [] },
    { family: 'Static maps', links: first('maps', ['static map']) },
    { family: 'Tiles (z/x/y) and TileJSON', links: first('tiles', ['tile pbf', 'tile png', 'TileJSON']) },
    { family: 'Images', links: first('images', ['image.json', 'tile png', 'tile jpg', 'tile webp']) },
    { family: 'Data (GeoJSON features)', links: first('data', ['features.json']) },
    { family: 'Weather', links: first('weather', ['latest.json']) },
    { family: 'Sprites', links: first('sprites', ['sprite.json', 'sprite.png']) },
    { family: 'Fonts (glyph ranges)', links: first('fonts', ['glyphs 0–255']) },
    {
      family: 'WMTS',
      links: [['service capabilities', '/wmts/1.0.0/WMTSCapabilities.xml'], ['KVP GetCapabilities', '/wmts?SERVICE=WMTS&REQUEST=GetCapabilities'], ...first('maps', ['WMTS'])],
    },
    { family: 'WMS', links: [['GetCapabilities 1.3.0', '/wms?SERVICE=WMS&REQUEST=GetCapabilities'], ['GetCapabilities 1.1.1', '/wms?SERVICE=WMS&REQUEST=GetCapabilities&VERSION=1.1.1']] },
    {
      family: 'OGC API - Tiles',
      links: [
        ['landing page', '/ogc'],
        ['conformance', '/ogc/conformance'],
        ['collections', '/ogc/collections'],
        ['tile matrix sets', '/ogc/tileMatrixSets'],
        ...(map ? ([['a collection', `/ogc/collections/${enc(collectionId(map.kind, map.id))}`]] as Link[]) : []),
        ...first('tiles', ['OGC API tile']),
      ],
    },
    { family: 'This server', links: [['health', '/health']] },
  ];
}

/** `/`: what this server holds, with working example links for every endpoint family and resource. */
export function home(ctx: RequestContext): Reply {
  const a = ([label, path]: Link): string => `<a href="${esc(withKey(ctx.baseUrl, path, ctx.key))}">${esc(label)}</a>`;
  // The example URLs written out (without the key), each a link.
  const example = ([label, path]: Link): string => `${esc(label)}: <a href="${esc(withKey(ctx.baseUrl, path, ctx.key))}"><code>${esc(path)}</code></a>`;
  const all = rows(ctx.catalog);
  const list = families(ctx.catalog, all);
  // The location services before the server's own row.
  list.splice(list.length - 1, 0, ...locationFamilies(ctx));
  const fam = list.map(
    (f) => `<tr><th>${esc(f.family)}</th><td>${f.links.length ? f.links.map(example).join('<br>') : `<i>${esc(f.missing ?? 'nothing of this kind is mirrored')}</i>`}</td></tr>`,
  );
  const res = all.map(
    (r) =>
      `<tr><td>${esc(r.kind)}</td><td>${esc(r.id)}</td><td>${esc(r.name)}</td><td>${esc(r.detail)}</td><td>${r.links.map(a).join(' · ')}</td></tr>`,
  );
  const html = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>tilemirror</title>
<link rel="icon" href="data:,">
<style>body{font:15px system-ui,sans-serif;margin:2em;max-width:80em}td,th{padding:.3em .8em;text-align:left;vertical-align:top}
th{font-weight:600}h2{margin-top:1.5em}</style></head><body>
<h1>tilemirror</h1>
<p>A map API served offline from MBTiles stores. Every request carries the API key (<code>key</code>); the links below carry yours.</p>
<p>API documentation: ${a(['/docs', '/docs'])} · OpenAPI 3.1 definition: ${a(['/openapi.json', '/openapi.json'])}</p>
<h2>Endpoint families</h2>
<table>
${fam.join('\n')}
</table>
<h2>Resources</h2>
<p>Maps, tile sets and images; datasets, the weather catalog, sprites and fonts.</p>
<table><tr><th>kind</th><th>id</th><th>name</th><th></th><th>examples</th></tr>
${res.join('\n')}
</table></body></html>
`;
  return documentReply(html, 'text/html; charset=utf-8');
}

export const health = (): Reply => answer({ body: Buffer.from('ok\n'), type: 'text/plain; charset=utf-8', cache: 'none' });
