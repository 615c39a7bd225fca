import { z } from 'zod';
import { ServiceError } from '../../errors';
import { METRES_PER_FOOT, roundHeight } from '../../services/elevation';
import { badRequest, jsonReply, type Reply } from '../reply';
import type { RequestContext } from '../route-table';

// `/elevation/{locations}.json`: heights from the mirrored terrain (services/elevation). The schema parses and
// bounds the positions (invalid, naming the position); the handler asks the service and shapes the answer.

/** Most positions in one request (the spec's limit). */
export const MAX_POSITIONS = 50;
/** A decimal number as written in a URL: optional sign, digits with an optional fraction, optional exponent. */
const NUMBER = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;

/** `lng,lat;lng,lat;…` → positions, or the first problem naming the position (1-based) and what is wrong. */
export function parsePositions(text: string): [number, number][] | string {
  const parts = text.split(';');
  if (parts.length > MAX_POSITIONS) return `Invalid locations: ${parts.length} positions, at most ${MAX_POSITIONS}`;
  const out: [number, number][] = [];
  for (let i = 0; i < parts.length; i++) {
    const shown = parts[i].length > 40 ? `${parts[i].slice(0, 40)}…` : parts[i];
    const at = `position ${i + 1} (${JSON.stringify(shown)})`;
    const xy = parts[i].split(',');
    if (xy.length !== 2) return `Invalid locations: ${at} is not lng,lat`;
    if (!xy.every((v) => NUMBER.test(v.trim()))) return `Invalid locations: ${at} is not two numbers lng,lat`;
    const [lng, lat] = xy.map(Number);
    if (!Number.isFinite(lng) || !Number.isFinite(lat)) return `Invalid locations: ${at} has a number out of range`;
    if (!(lng > -180 && lng < 180)) return `Out of bounds: ${at}: longitude must be greater than -180 and less than 180`;
    if (!(lat >= -85 && lat <= 85)) return `Out of bounds: ${at}: latitude must lie in -85..85`;
    out.push([lng, lat]);
  }
  return out;
}

export const elevationParams = z.object({
  locations: z
    .string()
    .meta({
      description: `\`lng,lat\` WGS 84 positions separated by \`;\`, at most ${MAX_POSITIONS}; longitude greater than -180 and less than 180, latitude -85 to 85`,
      examples: ['8.2,46.8', '7.5,46.5;8.5,47.1;9.8,46.3'],
    })
    .transform((s, ctx) => {
      const parsed = parsePositions(s);
      if (typeof parsed !== 'string') return parsed;
      ctx.addIssue({ code: 'custom', message: parsed, input: s });
      return z.NEVER;
    }),
  unit: z
    .enum(['meters', 'feet'], { error: (iss) => `Invalid unit: ${String(iss.input)} (meters or feet)` })
    .default('meters')
    .meta({ description: 'unit of the heights' }),
});

/**
 * `/elevation/{locations}.json`: `[[lng, lat, elevation], …]` in the order asked; invalid for a position no terrain
 * covers (the service's NoTerrainError, no terrain at all, is `unavailable`).
 */
export async function elevation(ctx: RequestContext, p: z.output<typeof elevationParams>): Promise<Reply> {
  const service = ctx.services.elevation;
  if (!service) throw new ServiceError('unavailable', 'The elevation service is not running on this server');
  const found = await service.heights(p.locations);
  const scale = p.unit === 'feet' ? 1 / METRES_PER_FOOT : 1;
  const answer = p.locations.map(([lng, lat], i) => {
    const h = found.heights[i];
    if (h === undefined) {
      throw badRequest(`Out of bounds: position ${i + 1} (${lng},${lat}) is not covered by the terrain tileset ${found.tileset}`);
    }
    return [lng, lat, roundHeight(h * scale)];
  });
  return jsonReply(answer);
}
