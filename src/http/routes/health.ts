// `/health/ready`: answered when this instance should get traffic, else `unavailable` with the report as its body
// (which check failed).
// Public and uncached, as load balancers and orchestrators probe it. (`/health` and `/health/live`: home.ts.)

import { kindReply } from '../error-reply';
import { answer, type Reply, type ReplyParts } from '../reply';
import type { RequestContext } from '../route-table';

export function healthReady(ctx: RequestContext): Reply {
  // Without a readiness check (a listener built without one), answering is all there is to check.
  const report = ctx.services.readiness?.() ?? { ready: true, checks: {} };
  const parts: ReplyParts = { body: Buffer.from(`${JSON.stringify(report)}\n`), type: 'application/json; charset=utf-8', cache: 'none' };
  return report.ready ? answer(parts) : kindReply('unavailable', parts);
}
