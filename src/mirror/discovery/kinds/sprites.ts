// `sprites/{id}`: sprite.json, sprite.png, sprite@2x.json and sprite@2x.png into `{data}/sprites/{id}.mbtiles`.
// Each index must parse as a sprite index, each sheet must be a complete PNG, and every icon rectangle of an
// index must lie inside its sheet. The 1x pair is required (without it nothing more is asked for); a missing
// @2x pair is reported, not fatal.
// A map style's sprite at `/maps/{mapId}/sprite` (MapTiler's styles point there) is fetched from that path and
// stored as `sprites/{mapId}` (ref.upstreamPath says where to fetch from).

import type { ResourceRef } from '../../resource';
import { failureOf } from '../../upstream/documents';
import { checkPng } from '../../upstream/validate';
import type { AssembledDocuments, Discovered, DocumentAnswers, DocumentToFetch } from '../types';

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

const SCALES = ['', '@2x'] as const;

/** The description of a sprite's store: the 1x pair (json and png) at once, then the @2x pair. */
export function discoverSprite(ref: ResourceRef): Discovered {
  const from = spriteUpstreamPath(ref);
  const file = (name: string, check: (body: Buffer) => string | undefined): DocumentToFetch => ({ url: `${from}${name}`, path: `sprite${name}`, check });
  return {
    kind: 'sprites',
    id: ref.id,
    header: { kind: 'sprites', name: ref.id, pyramids: [], ...(ref.upstreamPath && { extraMetadata: { 'tilemirror:source': ref.upstreamPath } }) },
    pyramids: [],
    documents: [],
    notes: [],
    fetches: {
      groups: SCALES.map((scale) => [file(`${scale}.json`, checkJson), file(`${scale}.png`, checkSheet)]),
      // No 1x pair at all: the upstream has no such sprite.
      settled: (answers) => ['sprite.json', 'sprite.png'].every((p) => answers.has(p) && answers.get(p) === undefined),
      assemble: (answers) => assembleSprite(from, answers),
    },
  };
}

/** A sprite's documents from their answers: each pair complete and consistent, the 1x pair required. */
export function assembleSprite(from: string, answers: DocumentAnswers): AssembledDocuments {
  const out: AssembledDocuments = { documents: [], absent: 0, failures: [], notes: [] };
  for (const scale of SCALES) {
    const paths = [`sprite${scale}.json`, `sprite${scale}.png`];
    // Not asked for: the fetching stopped before this pair.
    if (!paths.some((p) => answers.has(p))) continue;
    for (const [path, answer] of answers) if (paths.includes(path) && answer instanceof Error) out.failures.push(failureOf(path, answer));
    const [json, png] = paths.map((p) => answers.get(p));
    if (json instanceof Error || png instanceof Error || !paths.every((p) => answers.has(p))) continue;
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
    out.documents.push({ path: `sprite${scale}.json`, contentType: 'application/json', data: json }, { path: `sprite${scale}.png`, contentType: 'image/png', data: png });
  }
  return out;
}
