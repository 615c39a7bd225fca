// Waiting for a condition, not for a time: a test that depends on something happening in the background
// (a store reloaded by the catalog, a scheduled job finishing) polls for exactly that. The only bound is a
// safety net a little under jest's testTimeout (60 s), so a busy machine makes a test slower, never red.
import { rawGet } from './server';

/** Default safety net: below jest's testTimeout, so the failure names the condition instead of "timeout". */
export const WAIT_LIMIT_MS = 50_000;

const pause = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/**
 * Polls `check` until it returns something other than undefined or false, and returns that. Throws naming
 * `what` (and the last value seen by `describe`, if given) when the safety net runs out.
 */
export async function waitFor<T>(
  what: string,
  check: () => T | undefined | false | Promise<T | undefined | false>,
  opts: { intervalMs?: number; limitMs?: number } = {},
): Promise<T> {
  const limit = Date.now() + (opts.limitMs ?? WAIT_LIMIT_MS);
  for (;;) {
    const v = await check();
    if (v !== undefined && v !== false) return v;
    if (Date.now() > limit) throw new Error(`still waiting for ${what} after ${opts.limitMs ?? WAIT_LIMIT_MS} ms`);
    await pause(opts.intervalMs ?? 50);
  }
}

/** Waits until GET url answers `status` (e.g. a store just published is served); returns that response. */
export function waitForStatus(url: string, status = 200): Promise<Awaited<ReturnType<typeof rawGet>>> {
  return waitFor(`${url} to answer ${status}`, async () => {
    const r = await rawGet(url);
    return r.status === status ? r : undefined;
  });
}
