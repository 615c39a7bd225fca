import { HttpError, type Reply } from '../reply';
import type { Params, RequestContext } from '../route-table';

/** `/maps/{mapId}/static/{area}/{width}x{height}[@2x].{format}` — being written (issue 3). */
export function staticMap(_ctx: RequestContext, _p: Params): Reply {
  throw new HttpError(501, 'Not implemented yet');
}
