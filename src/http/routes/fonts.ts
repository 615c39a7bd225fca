import { z } from 'zod';
import { parseFontstack, parseGlyphRange } from '../../services/fonts/glyphs';
import { documentReply, notFound, type Reply } from '../reply';
import type { RequestContext } from '../route-table';

const PROTOBUF = 'application/x-protobuf';

export const fontGlyphsParams = z.object({
  fontstack: z
    .string()
    .transform((s, ctx) => {
      try {
        return parseFontstack(s);
      } catch (err) {
        ctx.addIssue({ code: 'custom', message: `Invalid fontstack: ${(err as Error).message}`, input: s });
        return z.NEVER;
      }
    })
    .meta({ type: 'string', description: 'one font name, or several separated by commas', examples: ['Noto Sans Regular'] }),
  range: z
    .string()
    .transform((s, ctx) => parseGlyphRange(s) ?? (ctx.addIssue({ code: 'custom', message: 'Invalid glyph range', input: s }), z.NEVER))
    .meta({ type: 'string', pattern: '^\\d{1,5}-\\d{1,5}$', description: '{start}-{end}: start a multiple of 256, end = start + 255', examples: ['0-255'] }),
});

/**
 * `/fonts/{fontstack}/{start}-{end}.pbf`: the glyphs of a range, each from the first font of the stack that has it,
 * then from the configured fallback fonts (`fonts.fallback`); not found only when none of those fonts is mirrored.
 */
export function fontGlyphs(ctx: RequestContext, p: z.output<typeof fontGlyphsParams>): Reply {
  const { fontstack: stack, range } = p;
  // The composer's cache keys hold store versions, so a republished font never answers stale.
  const answer = ctx.services.glyphs.compose((name) => ctx.catalog.documents('fonts', name), stack, ctx.config.fonts.fallback, range.start);
  if (!answer) throw notFound(`Unknown font: ${stack.join(',')}`);
  return documentReply(answer.data, PROTOBUF, answer.etag);
}
