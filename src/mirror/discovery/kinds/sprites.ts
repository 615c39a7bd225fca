// `sprites/{id}`: sprite.json, sprite.png, sprite@2x.json and sprite@2x.png into `{data}/sprites/{id}.mbtiles`.
// Each index must parse as a sprite index, each sheet must be a complete PNG, and every icon rectangle of an
// index must lie inside its sheet. The 1x pair is required; a missing @2x pair is reported, not fatal.
// A map style's sprite at `/maps/{mapId}/sprite` (MapTiler's styles point there) is fetched from that path and
// stored as `sprites/{mapId}` (ref.upstreamPath says where to fetch from).

import { checkPng } from '../../upstream/validate';
import { failureOf, judgeDocument, type CollectContext, type Collected, type FetchedDoc } from '../../engine/document-run';
import type { ResourceRef } from '../../resource';

const PNG_MAGIC = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

export interface SpriteIcon {
  x: number;
  y: number;
  width: number;
  height: number;
}

/** Upstream path prefix of a sprite: `/sprites/{id}/sprite` unless the reference says otherwise. */
export function spriteUpstreamPath(ref: ResourceRef): string {
  return ref.upstreamPath ?? `/sprites/${encodeURIComponent(ref.id)}/sprite`;
}

/** Width and height of a PNG from its IHDR chunk, or a problem. */
export function pngSize(data: Buffer): { width: number; height: number } | string {
  if (data.length < 33 || !data.subarray(0, 8).equals(PNG_MAGIC)) return 'not a PNG (magic bytes)';
  if (data.toString('latin1', 12, 16) !== 'IHDR') return 'PNG without IHDR';
  const problem = checkPng(data);
  if (problem) return problem;
  return { width: data.readUInt32BE(16), height: data.readUInt32BE(20) };
}

const nonNegInt = (v: unknown): v is number => typeof v === 'number' && Number.isInteger(v) && v >= 0;

/** The icons of a sprite index, or a problem. */
export function parseSpriteIndex(value: unknown): Record<string, SpriteIcon> | string {
  if (!value || typeof value !== 'object' || Array.isArray(value)) return 'sprite index is not a JSON object';
  for (const [name, icon] of Object.entries(value as Record<string, unknown>)) {
    const i = icon as Partial<SpriteIcon> | null;
    if (!i || typeof i !== 'object' || !nonNegInt(i.x) || !nonNegInt(i.y) || !nonNegInt(i.width) || !nonNegInt(i.height)) {
      return `sprite icon "${name}" lacks x, y, width or height`;
    }
  }
  return value as Record<string, SpriteIcon>;
}

/** Problems of an index against its sheet: every icon rectangle must lie inside the image. */
export function checkSprite(index: Record<string, SpriteIcon>, sheet: { width: number; height: number }): string | undefined {
  for (const [name, i] of Object.entries(index)) {
    if (i.x + i.width > sheet.width || i.y + i.height > sheet.height) {
      return `icon "${name}" (${i.x},${i.y} ${i.width}x${i.height}) lies outside the ${sheet.width}x${sheet.height} sheet`;
    }
  }
  return undefined;
}

const checkJson = (body: Buffer): string | undefined => {
  let v: unknown;
  try {
    v = JSON.parse(body.toString('utf8'));
  } catch (err) {
    return `not JSON: ${(err as Error).message}`;
  }
  const r = parseSpriteIndex(v);
  return typeof r === 'string' ? r : undefined;
};
const checkSheet = (body: Buffer): string | undefined => {
  const r = pngSize(body);
  return typeof r === 'string' ? r : undefined;
};

export async function collectSprite(ref: ResourceRef, ctx: CollectContext): Promise<Collected> {
  const from = spriteUpstreamPath(ref);
  const out: Collected = {
    header: { kind: 'sprites', name: ref.id, pyramids: [], ...(ref.upstreamPath && { extraMetadata: { 'tilemirror:source': ref.upstreamPath } }) },
    documents: [],
    planned: 4,
    absent: 0,
    failures: [],
    notes: [],
  };
  const get = async (file: string, check: (b: Buffer) => string | undefined): Promise<Buffer | undefined | null> => {
    try {
      const body = await ctx.client.request(ctx.client.resolve(`${from}${file}`), judgeDocument(check), ctx.signal);
      ctx.onDocument?.();
      return body;
    } catch (err) {
      if (ctx.signal?.aborted) throw err;
      out.failures.push(failureOf(`sprite${file}`, err));
      return null;
    }
  };
  for (const scale of ['', '@2x']) {
    const [json, png] = await Promise.all([get(`${scale}.json`, checkJson), get(`${scale}.png`, checkSheet)]);
    if (json === null || png === null) continue;
    if (json === undefined && png === undefined) {
      out.absent += 2;
      if (scale === '') out.missing = `the upstream has no sprite at ${from} (404)`;
      else out.notes.push('the upstream has no @2x sprite: only the 1x sprite is mirrored');
      if (scale === '') return out;
      continue;
    }
    if (json === undefined || png === undefined) {
      out.failures.push(`sprite${scale}: the upstream has the ${json ? 'json' : 'png'} but not the ${json ? 'png' : 'json'}`);
      continue;
    }
    const index = parseSpriteIndex(JSON.parse(json.toString('utf8'))) as Record<string, SpriteIcon>;
    const problem = checkSprite(index, pngSize(png) as { width: number; height: number });
    if (problem) {
      out.failures.push(`sprite${scale}: ${problem}`);
      continue;
    }
    out.documents.push(
      { path: `sprite${scale}.json`, contentType: 'application/json', data: json } satisfies FetchedDoc,
      { path: `sprite${scale}.png`, contentType: 'image/png', data: png } satisfies FetchedDoc,
    );
  }
  return out;
}
