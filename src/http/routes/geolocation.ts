import { z } from 'zod';
import { DatabaseMissing } from '../../services/geolocation/service';
import { flag } from '../params';
import { HttpError, jsonReply, type Reply } from '../reply';
import type { RequestContext } from '../route-table';

// `/geolocation/ip.json`: where the requester is (geolocation service). The answer depends on who asks: private
// to the requester's cache, never stored by a shared one.

export const geolocationParams = z.object({
  elevation: flag('elevation', 'Include `elevation` (meters) at the located position'),
});

/** `/geolocation/ip.json` */
export async function geolocationIp(ctx: RequestContext, { elevation }: z.output<typeof geolocationParams>): Promise<Reply> {
  const service = ctx.geolocation;
  if (!service) throw new HttpError(503, 'IP geolocation is not available on this server');
  try {
    const answer = await service.answer(ctx.clientAddress, { elevation: elevation === true });
    return { ...jsonReply(answer), headers: { 'Cache-Control': 'private, no-cache' } };
  } catch (err) {
    if (err instanceof DatabaseMissing) throw new HttpError(503, `${err.message}: reinstall tilemirror's dependencies (npm ci), or set geolocation.database`);
    throw err;
  }
}
