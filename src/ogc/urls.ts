// The URLs of tiles that every generated document points at. They mirror the server's routes, so
// WMTS, TileJSON and OGC API documents agree with each other and with the router; every URL is
// absolute (clients do not resolve relative hrefs: GDAL, tileserver-gl#342) and carries the
// requester's key, because each URL must work when a client fetches it as-is.

import { mediaType } from '../store/bytes/formats';
import type { Pyramid, ResourceKind, TileFormat, TilesetInfo } from '../store/types';

/** Joins the public base URL (no trailing slash) and a path, and appends ?key=K (or &key=K). */
export function withKey(baseUrl: string, path: string, key: string): string {
  const sep = path.includes('?') ? '&' : '?';
  // Tolerate a configured public URL written with a trailing slash.
  return `${baseUrl.replace(/\/+$/, '')}${path}${sep}key=${encodeURIComponent(key)}`;
}

/**
 * The media type documents advertise for a tile format (WMTS Format, OGC link types): the served one, except
 * vector tiles, which documents name by their registered type while the cloud API's own tile routes answer
 * `application/x-protobuf` as the upstream API does.
 */
export function mediaTypeOf(format: TileFormat): string {
  return format === 'pbf' ? 'application/vnd.mapbox-vector-tile' : mediaType(format);
}

/** File extension used in map tile routes (`.png`, `.jpg`, `.webp`). */
export function extensionOf(format: TileFormat): string {
  return format;
}

/** The pyramids a document should advertise: one per tile size, never the @2x ones. */
export function scaleOnePyramids(info: TilesetInfo): Pyramid[] {
  return info.pyramids.filter((p) => p.scale === 1);
}

/** The pyramid a route or document means by name; 'main' is the first one (the MBTiles `tiles` table). */
export function findPyramid(info: TilesetInfo, pyramidName: string): Pyramid | undefined {
  if (pyramidName === 'main') return info.pyramids[0];
  return info.pyramids.find((p) => p.name === pyramidName);
}

/** Placeholder names (or values) of a tile URL template's z, x and y, e.g. {z}/{x}/{y} (XYZ). */
export interface TilePlaceholders {
  z: string;
  x: string;
  y: string;
}

export const XYZ_PLACEHOLDERS: TilePlaceholders = { z: '{z}', x: '{x}', y: '{y}' };

/**
 * Path (no base, no key) of the tiles of one pyramid, as the server routes them:
 * - tiles:  /tiles/{id}/{z}/{x}/{y}
 * - maps:   /maps/{id}[/256]/{z}/{x}/{y}[@2x].{ext}   (512 px is the main pyramid, 256 under /256)
 * - images: /images/{id}/{z}/{x}/{y}
 */
export function tilePathTemplate(kind: ResourceKind, id: string, pyramid: Pyramid, ph: TilePlaceholders): string {
  const rid = encodeURIComponent(id);
  const zxy = `${ph.z}/${ph.x}/${ph.y}`;
  switch (kind) {
    case 'tiles':
      return `/tiles/${rid}/${zxy}`;
    case 'images':
      return `/images/${rid}/${zxy}`;
    case 'maps': {
      const sizeSegment = pyramid.tileSize === 256 ? '/256' : '';
      const scale = pyramid.scale === 1 ? '' : `@${pyramid.scale}x`;
      return `/maps/${rid}${sizeSegment}/${zxy}${scale}.${extensionOf(pyramid.format)}`;
    }
  }
}

/** Absolute XYZ tile URL template with {z}/{x}/{y} and the key, for TileJSON. */
export function tileUrlTemplate(baseUrl: string, kind: ResourceKind, id: string, pyramid: Pyramid, key: string): string {
  return withKey(baseUrl, tilePathTemplate(kind, id, pyramid, XYZ_PLACEHOLDERS), key);
}
