import { HttpError, type Reply } from '../reply';
import type { Params, RequestContext } from '../route-table';

/** `/fonts/{fontstack}/{start}-{end}.pbf` — being written (issue 3). */
export function fontGlyphs(_ctx: RequestContext, _p: Params): Reply {
  throw new HttpError(501, 'Not implemented yet');
}
