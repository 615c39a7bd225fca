// `images/{id}`: an image pyramid described by /images/{id}/image.json (pixel size, zooms, tile size) and served at
// /images/{id}/{z}/{x}/{y}. image.json names no format, so it comes from a store mirrored before, or from the
// magic bytes of the top-left tile (always inside the image), which is then stored rather than fetched again.

import { imageBounds } from '../../../geo/mercator';
import { sniffImageFormat } from '../../../store/bytes/formats';
import type { TileFormat } from '../../../store/types';
import { UpstreamError } from '../../errors';
import { rewriteDocument } from '../../rewrite';
import { tileUrl } from '../tile-url';
import { text, toTileFormat } from '../upstream-tilejson';
import type { DiscoverContext, Discovered } from '../types';

interface ImageJson {
  width?: unknown;
  height?: unknown;
  minzoom?: unknown;
  maxzoom?: unknown;
  tileSize?: unknown;
  format?: unknown;
  description?: unknown;
  attribution?: unknown;
  name?: unknown;
}

const positiveInt = (v: unknown): v is number => typeof v === 'number' && Number.isInteger(v) && v > 0;
const zoom = (v: unknown): v is number => typeof v === 'number' && Number.isInteger(v) && v >= 0 && v <= 30;

export async function discoverImage(id: string, ctx: DiscoverContext): Promise<Discovered> {
  const { client, signal } = ctx;
  const docUrl = client.resolve(`/images/${encodeURIComponent(id)}/image.json`);
  const doc = (await client.getJson<ImageJson>(docUrl, signal))!;
  if (!doc || !positiveInt(doc.width) || !positiveInt(doc.height) || !zoom(doc.maxzoom)) {
    throw new UpstreamError(`images/${id}: image.json lacks width, height or maxzoom`);
  }
  const minzoom = zoom(doc.minzoom) ? Math.min(doc.minzoom, doc.maxzoom) : 0;
  const tileSize = positiveInt(doc.tileSize) ? doc.tileSize : 256;
  const template = client.resolve(`/images/${encodeURIComponent(id)}/{z}/{x}/{y}`);
  const prefetched: NonNullable<Discovered['prefetched']> = [];

  let format: TileFormat | undefined = typeof doc.format === 'string' ? toTileFormat(doc.format) : undefined;
  if (!format && ctx.knownFormat) format = toTileFormat(ctx.knownFormat);
  if (!format) {
    const url = tileUrl(template, minzoom, 0, 0);
    const data = await client.request<Buffer>(
      url,
      (res) =>
        res.status === 200 && sniffImageFormat(res.body)
          ? { ok: true, value: res.body }
          : { ok: false, outcome: res.status === 200 ? { kind: 'invalid', message: 'not an image' } : { kind: 'status', status: res.status } },
      signal,
    );
    format = sniffImageFormat(data)!;
    prefetched.push({ task: { pyramid: 'main', z: minzoom, x: 0, y: 0 }, data });
  }

  const bounds = imageBounds(doc.width, doc.height, doc.maxzoom, tileSize);
  const pyramid = { name: 'main', tileSize, scale: 1, format, minzoom, maxzoom: doc.maxzoom, bounds };
  return {
    kind: 'images',
    id,
    header: {
      kind: 'images',
      name: text(doc.name) ?? id,
      description: text(doc.description),
      attribution: text(doc.attribution),
      type: 'overlay',
      center: [(bounds[0] + bounds[2]) / 2, (bounds[1] + bounds[3]) / 2, minzoom],
      pyramids: [pyramid],
      image: { width: doc.width, height: doc.height },
    },
    pyramids: [{ pyramid, template }],
    documents: [{ path: 'image.json', contentType: 'application/json', data: JSON.stringify(rewriteDocument(doc, client.base)) }],
    notes: [],
    prefetched,
  };
}
