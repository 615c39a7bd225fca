import { GlyphComposer } from '../../services/fonts/compose';
import { parseFontstack, parseGlyphRange } from '../../services/fonts/glyphs';
import { badRequest, documentReply, notFound, type Reply } from '../reply';
import type { Params, RequestContext } from '../route-table';

const PROTOBUF = 'application/x-protobuf';

/** One cache of combined ranges for the process; keys hold store versions, so a republished font never answers stale. */
const composer = new GlyphComposer();

/**
 * `/fonts/{fontstack}/{start}-{end}.pbf`: the glyphs of a range, each from the first font of the stack that has it,
 * then from the configured fallback fonts (`fonts.fallback`); 404 only when none of those fonts is mirrored.
 */
export function fontGlyphs(ctx: RequestContext, p: Params): Reply {
  const range = parseGlyphRange(p.range ?? '');
  if (!range) throw badRequest('Invalid glyph range');
  let stack: string[];
  try {
    stack = parseFontstack(p.fontstack ?? '');
  } catch (err) {
    throw badRequest(`Invalid fontstack: ${(err as Error).message}`);
  }
  const answer = composer.compose((name) => ctx.catalog.documents('fonts', name), stack, ctx.config.fonts.fallback, range.start);
  if (!answer) throw notFound(`Unknown font: ${stack.join(',')}`);
  return documentReply(answer.data, PROTOBUF, answer.etag);
}
