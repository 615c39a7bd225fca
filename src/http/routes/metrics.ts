// `/metrics`: the Prometheus text format. Not for everyone: from an address in `metrics.allow` (default loopback),
// or with an admin key from anywhere; 403 otherwise, 404 when `metrics.enabled` is false. The address is the
// client a trusted proxy names, else the peer; a request forwarded by a peer that is not a trusted proxy
// (X-Forwarded-For or Forwarded present) is not let in by address: a reverse proxy on loopback that is not
// configured as trusted would otherwise publish /metrics to the whole world.

import { cidrContains, parseAddress, parseCidr, type Cidr } from '../../config/cidr';
import type { Config } from '../../config/schema';
import { KeyRing } from '../auth';
import { HttpError, type Reply } from '../reply';
import type { RequestContext } from '../route-table';

interface Access {
  allow: Cidr[];
  admin: KeyRing;
}

const access = new WeakMap<Config, Access>();

function accessOf(config: Config): Access {
  let a = access.get(config);
  if (!a) {
    a = {
      allow: config.metrics.allow.map((text) => parseCidr(text)),
      admin: new KeyRing(config.admin.keys.map((key) => ({ key, allowedOrigins: [], plan: 'free' as const }))),
    };
    access.set(config, a);
  }
  return a;
}

/** Whether the request may read /metrics: an allowed address (not through an untrusted proxy), or an admin key. */
export function metricsAllowed(ctx: RequestContext): boolean {
  const a = accessOf(ctx.config);
  const given = ctx.query.get('key');
  if (given && a.admin.check(given, {}).ok) return true;
  const forwarded = ctx.headers['x-forwarded-for'] !== undefined || ctx.headers.forwarded !== undefined;
  if (forwarded && !ctx.trustedProxy) return false;
  const address = parseAddress(ctx.clientAddress);
  return address !== undefined && a.allow.some((range) => cidrContains(range, address));
}

export async function metrics(ctx: RequestContext): Promise<Reply> {
  const { metrics: serverMetrics } = ctx.services;
  if (!serverMetrics) throw new HttpError(404, 'Not found');
  if (!metricsAllowed(ctx)) throw new HttpError(403, 'Metrics are readable from the addresses of metrics.allow, or with an admin key');
  const { registry, scrape } = serverMetrics;
  let text: string;
  try {
    text = await scrape();
  } catch (err) {
    throw new HttpError(503, `Metrics unavailable: ${(err as Error).message}`);
  }
  return {
    status: 200,
    body: Buffer.from(text),
    type: registry.contentType,
    cache: 'none',
    headers: { 'Cache-Control': 'no-store' },
  };
}
