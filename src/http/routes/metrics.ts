// `/metrics`: the Prometheus text format. Not for everyone: from an address in `metrics.allow` (default loopback),
// or with an admin key from anywhere; forbidden otherwise, not found when `metrics.enabled` is false. The address is the
// client a trusted proxy names, else the peer; a request forwarded by a peer that is not a trusted proxy
// (X-Forwarded-For or Forwarded present) is not let in by address: a reverse proxy on loopback that is not
// configured as trusted would otherwise publish /metrics to the whole world.

import { cidrContains, parseAddress, parseCidr } from '../../config/cidr';
import { ServiceError } from '../../errors';
import { answer, type Reply } from '../reply';
import type { RequestContext } from '../route-table';

/**
 * Whether the request may read /metrics: an admin key (the composition root's), or an allowed address not
 * reached through an untrusted proxy. The few ranges of `metrics.allow` are parsed on each scrape (one every
 * few seconds at most): nothing kept between requests.
 */
export function metricsAllowed(ctx: RequestContext): boolean {
  const given = ctx.query.get('key');
  if (given && ctx.services.adminKeys?.check(given, {}).ok) return true;
  const forwarded = ctx.headers['x-forwarded-for'] !== undefined || ctx.headers.forwarded !== undefined;
  if (forwarded && !ctx.trustedProxy) return false;
  const address = parseAddress(ctx.clientAddress);
  return address !== undefined && ctx.config.metrics.allow.some((text) => cidrContains(parseCidr(text), address));
}

export async function metrics(ctx: RequestContext): Promise<Reply> {
  const { metrics: serverMetrics } = ctx.services;
  if (!serverMetrics) throw new ServiceError('not-found', 'Not found');
  if (!metricsAllowed(ctx)) throw new ServiceError('forbidden', 'Metrics are readable from the addresses of metrics.allow, or with an admin key');
  const { registry, scrape } = serverMetrics;
  let text: string;
  try {
    text = await scrape();
  } catch (err) {
    throw new ServiceError('unavailable', `Metrics unavailable: ${(err as Error).message}`);
  }
  return answer({ body: Buffer.from(text), type: registry.contentType, cache: 'none', headers: { 'Cache-Control': 'no-store' } });
}
