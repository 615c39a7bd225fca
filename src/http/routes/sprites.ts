import { HttpError, type Reply } from '../reply';
import type { Params, RequestContext } from '../route-table';

/** `/sprites/{spriteId}/sprite[@2x].{png,json}` — being written (issue 3). */
export function sprite(_ctx: RequestContext, _p: Params): Reply {
  throw new HttpError(501, 'Not implemented yet');
}

/** `/maps/{mapId}/sprite[@2x].{png,json}` (deprecated) — being written (issue 3). */
export function mapSprite(_ctx: RequestContext, _p: Params): Reply {
  throw new HttpError(501, 'Not implemented yet');
}
