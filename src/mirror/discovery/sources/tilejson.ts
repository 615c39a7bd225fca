// A TileJSON source: any TileJSON URL. The first `tiles` template ({z}/{x}/{y}, or {-y}; `scheme: "tms"` flips
// rows) is fetched; bounds, zooms, tile size from the document; the format from its `format`, else from the
// bytes of a first tile (kept and stored, not fetched again). Templates with `{s}` subdomains are refused: the
// first template is used as it is, so write one without `{s}`.

import { lonLatToTile } from '../../../geo/mercator';
import { isGzip, sniffImageFormat } from '../../../store/bytes/formats';
import type { TileFormat } from '../../../store/types';
import { stripKey, type UpstreamClient } from '../../upstream/client';
import { UpstreamError } from '../../errors';
import { upstreamTileUrl } from '../tile-url';
import { center, fetchTileJson, pyramidFromTileJson, tilesetHeader, tileTemplate, toTileFormat, type UpstreamTileJson } from '../upstream-tilejson';
import type { DiscoverContext, Discovered, DocumentToStore, UpstreamPyramid } from '../types';
import type { TileTask } from '../../../geo/tile-bands';
import { withoutKeys } from '../../rewrite';
import { decodeTransport, validateTile } from '../../upstream/validate';

/** The format a tile's bytes are in (png, jpg, webp by magic bytes; gzip or a protobuf layer: pbf). */
export function sniffTileFormat(data: Buffer, contentType?: string): TileFormat | undefined {
  const image = sniffImageFormat(data);
  if (image) return image;
  if (data.length > 0 && (isGzip(data) || data[0] === 0x1a)) return 'pbf';
  if (contentType && /protobuf|vector-tile/i.test(contentType)) return 'pbf';
  return undefined;
}

/**
 * Learns the format of a source's tiles from the first candidate tile the upstream answers 200 for. The tile,
 * validated as that format, is returned to be stored instead of fetched again.
 */
export async function probeFormat(
  client: UpstreamClient,
  upstream: Pick<UpstreamPyramid, 'template' | 'matrixIds' | 'subdomains'>,
  candidates: TileTask[],
  signal?: AbortSignal,
): Promise<{ format: TileFormat; prefetched: { task: TileTask; data: Buffer }[] }> {
  const tried: string[] = [];
  for (const task of candidates) {
    const url = upstreamTileUrl(upstream, task.z, task.x, task.y);
    const res = await client.request(
      url,
      (r) => (r.status === 200 || r.status === 204 || r.status === 404 ? { ok: true, value: r } : { ok: false, outcome: { kind: 'status', status: r.status } }),
      signal,
    );
    if (res.status !== 200) {
      tried.push(`${task.z}/${task.x}/${task.y}: HTTP ${res.status}`);
      continue;
    }
    const ct = Array.isArray(res.headers['content-type']) ? res.headers['content-type'][0] : res.headers['content-type'];
    // The bytes under any transport encoding decide: some servers gzip every answer, PNG tiles included.
    const encoding = String(res.headers['content-encoding'] ?? 'identity').trim().toLowerCase();
    let bytes: Buffer | undefined;
    try {
      bytes = decodeTransport(res.body, encoding);
    } catch (err) {
      tried.push(`${task.z}/${task.x}/${task.y}: corrupt ${encoding} body (${(err as Error).message})`);
      continue;
    }
    const format = bytes ? sniffTileFormat(bytes, ct) : undefined;
    if (!format) {
      tried.push(`${task.z}/${task.x}/${task.y}: not a png, jpg, webp or vector tile (${ct ?? 'no Content-Type'})`);
      continue;
    }
    const verdict = validateTile(res, format);
    return { format, prefetched: verdict.kind === 'tile' ? [{ task, data: verdict.data }] : [] };
  }
  throw new UpstreamError(`cannot tell the tile format (no "format" in the source, and no probed tile was usable: ${tried.join('; ') || 'no tile to probe'})`);
}

/** Tiles worth probing for the format: the document's centre, then the middle and a corner of the bounds at minzoom. */
export function probeCandidates(bounds: [number, number, number, number], minzoom: number, maxzoom: number, centre?: [number, number, number]): TileTask[] {
  const out: TileTask[] = [];
  const add = (lon: number, lat: number, z: number): void => {
    const n = 2 ** z;
    const [fx, fy] = lonLatToTile(lon, lat, z);
    const t = { pyramid: 'main', z, x: Math.min(n - 1, Math.max(0, Math.floor(fx))), y: Math.min(n - 1, Math.max(0, Math.floor(fy))) };
    if (!out.some((o) => o.z === t.z && o.x === t.x && o.y === t.y)) out.push(t);
  };
  const [w, s, e, n] = bounds;
  const midLon = w <= e ? (w + e) / 2 : ((w + e + 360) / 2 > 180 ? (w + e + 360) / 2 - 360 : (w + e + 360) / 2);
  if (centre) add(centre[0], centre[1], Math.min(maxzoom, Math.max(minzoom, Math.round(centre[2]))));
  add(midLon, (s + n) / 2, minzoom);
  add(w, n, minzoom);
  return out;
}

/** The width in pixels of a raster tile (its header read by sharp), or undefined when it cannot be read. */
export async function tilePixels(data: Buffer): Promise<number | undefined> {
  try {
    // Loaded on first use (~50 ms): only a TileJSON without a usable tileSize needs a tile measured.
    const sharp = require('sharp') as typeof import('sharp');
    const { width, height } = await sharp(data).metadata();
    return width && width === height ? width : undefined;
  } catch {
    return undefined;
  }
}

export async function discoverTileJsonSource(id: string, url: string, ctx: DiscoverContext): Promise<Discovered> {
  const { client, signal } = ctx;
  const found = await fetchTileJson(client, url, signal);
  const { tj, url: docUrl } = found!;
  let template = tileTemplate(tj, docUrl);
  if (template.includes('{s}')) throw new UpstreamError(`${stripKey(docUrl)}: the first tiles template uses {s} subdomains; give a TileJSON whose first template has none`);
  if (String(tj.scheme ?? 'xyz').toLowerCase() === 'tms' && template.includes('{y}')) template = template.replace('{y}', '{-y}');
  const base = pyramidFromTileJson('main', tj);
  let format: TileFormat | undefined = typeof tj.format === 'string' ? toTileFormat(tj.format) : undefined;
  if (!format && ctx.knownFormat) format = toTileFormat(ctx.knownFormat);
  let prefetched: NonNullable<Discovered['prefetched']> = [];
  const notes = [`mirrored from the TileJSON ${stripKey(docUrl)}`];
  let measured: number | undefined;
  // A raster source's first tile is fetched before planning, whether or not the document names the format: its
  // bytes say the format and the tile size, which documents get wrong (a 512 px source without `tileSize` would
  // be published as 256, and GDAL then refuses every block). The tile is kept and stored, not fetched again.
  if (format !== 'pbf') {
    const probed = await probeFormat(client, { template }, probeCandidates(base.bounds, base.minzoom, base.maxzoom, center(tj.center)), signal);
    if (format && probed.format !== format) notes.push(`the TileJSON says ${format} but the tiles are ${probed.format}: mirrored as ${probed.format}`);
    format = probed.format;
    prefetched = probed.prefetched;
    if (format !== 'pbf' && prefetched[0]) measured = await tilePixels(prefetched[0].data);
  }
  const declaredSize = typeof tj.tileSize === 'number' ? tj.tileSize : undefined;
  const tileSize = measured ? measured / base.scale : (declaredSize ?? (format === 'pbf' ? 512 : 256));
  if (measured && declaredSize !== undefined && declaredSize !== tileSize) notes.push(`the TileJSON says tileSize ${declaredSize} but the tiles are ${measured} px: mirrored as ${tileSize}`);
  const pyramid = { ...base, format, tileSize };
  const documents: DocumentToStore[] = [
    // Provenance: the source's TileJSON, its tiles pointing at this server, every other URL without credentials.
    { path: 'tiles.json', contentType: 'application/json', data: JSON.stringify({ ...withoutKeys(tj as UpstreamTileJson), tileSize, tiles: [`tilemirror://tiles/${encodeURIComponent(id)}/{z}/{x}/{y}`] }) },
    { path: 'source.json', contentType: 'application/json', data: JSON.stringify({ type: 'tilejson', url: stripKey(docUrl), template }) },
  ];
  return {
    kind: 'tiles',
    id,
    header: tilesetHeader(id, tj, pyramid),
    pyramids: [{ pyramid, template }],
    documents,
    notes,
    prefetched,
  };
}
