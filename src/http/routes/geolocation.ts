import { z } from 'zod';
import { ServiceError } from '../../errors';
import { flag } from '../params';
import { jsonReply, type Reply } from '../reply';
import type { RequestContext } from '../route-table';

// `/geolocation/ip.json`: where the requester is (geolocation service). The answer depends on who asks: private
// to the requester's cache, never stored by a shared one.

export const geolocationParams = z.object({
  elevation: flag('elevation', 'Include `elevation` (meters) at the located position'),
});

/** `/geolocation/ip.json` (the service's DatabaseMissing is `unavailable`). */
export async function geolocationIp(ctx: RequestContext, { elevation }: z.output<typeof geolocationParams>): Promise<Reply> {
  const service = ctx.services.geolocation;
  if (!service) throw new ServiceError('unavailable', 'IP geolocation is not available on this server');
  const answer = await service.answer(ctx.clientAddress, { elevation: elevation === true });
  return { ...jsonReply(answer), headers: { 'Cache-Control': 'private, no-cache' } };
}
