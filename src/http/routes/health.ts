// `/health/ready`: 200 when this instance should get traffic, else 503; the JSON body says which check failed.
// Public and uncached, as load balancers and orchestrators probe it. (`/health` and `/health/live`: home.ts.)

import type { Reply } from '../reply';
import type { RequestContext } from '../route-table';

export function healthReady(ctx: RequestContext): Reply {
  // Without a readiness check (a listener built without one), answering is all there is to check.
  const report = ctx.services.readiness?.() ?? { ready: true, checks: {} };
  return {
    status: report.ready ? 200 : 503,
    body: Buffer.from(`${JSON.stringify(report)}\n`),
    type: 'application/json; charset=utf-8',
    cache: 'none',
  };
}
