// Is a tile answer a tile of the advertised format? The Content-Type must be the advertised media type (07-057r7
// Tables 22/29 `Format`; OGC API - Tiles /req/core/tc-success B with the link's `type`), the body must be of that
// format (PNG, JPEG and WebP by signature and a real decoder, Mapbox Vector Tiles decoded feature by feature:
// /req/png/content, /req/jpeg/content, /req/mvt/content), and an image must be as large as the tile matrix says
// (wmts:Server.*.GetTile.Valid.Tile.Size; OGC API /req/core/tc-success C).
import Pbf from 'pbf';
import { VectorTile } from '@mapbox/vector-tile';
import sharp from 'sharp';
import { essence, summary, type Answer } from './http';

export const MVT = 'application/vnd.mapbox-vector-tile';

const SIGNATURES: Record<string, { bytes: number[]; at?: number; also?: { bytes: number[]; at: number }; sharp: string }> = {
  'image/png': { bytes: [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a], sharp: 'png' },
  'image/jpeg': { bytes: [0xff, 0xd8, 0xff], sharp: 'jpeg' },
  'image/webp': { bytes: [0x52, 0x49, 0x46, 0x46], also: { bytes: [0x57, 0x45, 0x42, 0x50], at: 8 }, sharp: 'webp' },
};

const startsWith = (body: Buffer, bytes: number[], at = 0): boolean => body.length >= at + bytes.length && bytes.every((b, i) => body[at + i] === b);

export interface TileExpectation {
  /** The media type the capabilities or links advertise for this request. */
  format: string;
  /** The tile matrix's TileWidth/TileHeight (tileWidth/tileHeight): an image tile must be this large. */
  width?: number;
  height?: number;
}

/** Problems of a 200 tile answer, one line each, empty when it is a good tile of the expected format. */
export async function tileProblems(a: Answer, expected: TileExpectation, label: string): Promise<string[]> {
  const format = essence(expected.format);
  const problems: string[] = [];
  if (a.mediaType !== format) problems.push(`${label}: Content-Type ${a.contentType || '(none)'}, expected ${expected.format} as advertised`);
  const image = SIGNATURES[format];
  if (image) {
    if (!startsWith(a.body, image.bytes) || (image.also && !startsWith(a.body, image.also.bytes, image.also.at))) {
      return [...problems, `${label}: the body is not ${format} (its first bytes ${a.body.subarray(0, 12).toString('hex') || 'none'}); got ${summary(a)}`];
    }
    try {
      const meta = await sharp(a.body).metadata();
      if (meta.format !== image.sharp) problems.push(`${label}: the body decodes as ${meta.format}, expected ${format}`);
      if (expected.width !== undefined && (meta.width !== expected.width || meta.height !== expected.height)) {
        problems.push(`${label}: the image is ${meta.width}x${meta.height} px, the tile matrix says ${expected.width}x${expected.height}`);
      }
    } catch (e) {
      problems.push(`${label}: the ${format} body does not decode: ${(e as Error).message}`);
    }
    return problems;
  }
  if (format === MVT) return [...problems, ...vectorTileProblems(a.body, label)];
  return [...problems, `${label}: no check for the advertised format ${expected.format} in this suite`];
}

/** A Mapbox Vector Tile decodes: every layer has a name and an extent, every feature a type and a geometry. */
function vectorTileProblems(body: Buffer, label: string): string[] {
  if (startsWith(body, [0x1f, 0x8b])) return [`${label}: the vector tile is gzip-compressed without Content-Encoding: gzip`];
  try {
    const tile = new VectorTile(new Pbf(body));
    const problems: string[] = [];
    for (const [name, layer] of Object.entries(tile.layers)) {
      if (!name || !(layer.extent > 0)) problems.push(`${label}: MVT layer "${name}" without a name or extent`);
      for (let i = 0; i < layer.length; i++) {
        const f = layer.feature(i);
        if (![1, 2, 3].includes(f.type)) problems.push(`${label}: MVT layer ${name} feature ${i} has geometry type ${f.type} (1, 2 or 3 required)`);
        else if (!f.loadGeometry().length) problems.push(`${label}: MVT layer ${name} feature ${i} has no geometry (/req/mvt/content B)`);
        if (problems.length > 5) return problems;
      }
    }
    return problems;
  } catch (e) {
    return [`${label}: the body does not decode as a Mapbox Vector Tile: ${(e as Error).message}`];
  }
}
