// sharp, required on its first call: loading it maps libvips and its libraries and starts them (~7-10 MB resident
// on a server after a pass over its stored tiles), which a server that only sends stored tiles never needs. Static
// maps, derived raster tiles and terrain heights call it; the first such request pays the load (~50 ms), as the
// mirror does when it measures a tile (docs/decisions/0021).

import type Sharp from 'sharp';

let loaded: typeof Sharp | undefined;

/** `sharp(...)` as the library has it, the library loaded on the first call. */
export function sharp(options?: Sharp.SharpOptions): Sharp.Sharp;
export function sharp(input?: Sharp.SharpInput | Sharp.SharpInput[], options?: Sharp.SharpOptions): Sharp.Sharp;
export function sharp(...args: [(Sharp.SharpInput | Sharp.SharpInput[] | Sharp.SharpOptions)?, Sharp.SharpOptions?]): Sharp.Sharp {
  loaded ??= require('sharp') as typeof Sharp;
  // The overloads above are the library's own; its implementation takes either shape.
  return (loaded as (...a: typeof args) => Sharp.Sharp)(...args);
}

/** A raster tile's bytes: JPEG flattened on white (it has no alpha) at quality 90, WebP at 90, else PNG. */
export function encodeRaster(image: Sharp.Sharp, format: string): Promise<Buffer> {
  if (format === 'jpg') return image.flatten({ background: '#ffffff' }).jpeg({ quality: 90 }).toBuffer();
  if (format === 'webp') return image.webp({ quality: 90 }).toBuffer();
  return image.png().toBuffer();
}
