import type { TileFormat } from './types';

// Media types and magic bytes of tile formats: shared by the server (Content-Type), the document
// builders (WMTS Format, OGC link types) and later the mirror (checking a fetched tile before storing it).

export const MEDIA_TYPES: Record<TileFormat, string> = {
  png: 'image/png',
  jpg: 'image/jpeg',
  webp: 'image/webp',
  pbf: 'application/x-protobuf',
  // No media type is registered for Basis Universal textures.
  basis: 'application/octet-stream',
};

export function mediaType(format: TileFormat): string {
  return MEDIA_TYPES[format];
}

/** True when the bytes start with the gzip magic number (vector tiles are usually stored gzipped). */
export function isGzip(data: Buffer): boolean {
  return data.length >= 2 && data[0] === 0x1f && data[1] === 0x8b;
}

/** The raster format the bytes really are, from their magic number; undefined for anything else. */
export function sniffImageFormat(data: Buffer): 'png' | 'jpg' | 'webp' | undefined {
  if (data.length >= 8 && data.readUInt32BE(0) === 0x89504e47 && data.readUInt32BE(4) === 0x0d0a1a0a) return 'png';
  if (data.length >= 3 && data[0] === 0xff && data[1] === 0xd8 && data[2] === 0xff) return 'jpg';
  if (data.length >= 12 && data.toString('latin1', 0, 4) === 'RIFF' && data.toString('latin1', 8, 12) === 'WEBP') return 'webp';
  return undefined;
}
