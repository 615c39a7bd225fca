import type { TileFormat } from '../types';

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

/** Width of a PNG, JPEG or WebP (VP8/VP8L) tile from its header; undefined when it cannot be read there. */
export function imageWidth(data: Buffer): number | undefined {
  const f = sniffImageFormat(data);
  if (f === 'png' && data.length >= 24) return data.readUInt32BE(16);
  if (f === 'webp' && data.length >= 30) {
    const chunk = data.toString('latin1', 12, 16);
    if (chunk === 'VP8 ') return data.readUInt16LE(26) & 0x3fff;
    if (chunk === 'VP8L') return 1 + (((data[22] & 0x3f) << 8) | data[21]);
  }
  if (f === 'jpg') {
    for (let i = 2; i + 9 < data.length; ) {
      if (data[i] !== 0xff) return undefined;
      const marker = data[i + 1];
      if (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc) return data.readUInt16BE(i + 7);
      i += 2 + data.readUInt16BE(i + 2);
    }
  }
  return undefined;
}
