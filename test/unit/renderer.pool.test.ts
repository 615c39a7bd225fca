// services/renderer/pool.ts with stand-in browsers (no Chromium): the bounded queue, the deadline, a browser that
// dies mid-render replaced and the render tried once more, errors of a living browser passed on, idle browsers closed.
import { ServiceError } from '../../src/errors';
import type { RenderBrowser } from '../../src/services/renderer/browser';
import { BrowserPool, type PoolOptions } from '../../src/services/renderer/pool';
import { waitFor } from '../helpers/wait';

interface Fake {
  pid: number;
  alive: boolean;
  killed: boolean;
  closed: boolean;
  kill(): void;
  close(): Promise<void>;
}

function pool(opts: Partial<PoolOptions> = {}): { pool: BrowserPool; browsers: Fake[]; replaced: string[] } {
  const browsers: Fake[] = [];
  const replaced: string[] = [];
  const p = new BrowserPool({
    size: 1,
    maxWaiting: 1,
    deadlineMs: 60_000,
    idleMs: 60_000,
    launch: async () => {
      const b: Fake = {
        pid: 1000 + browsers.length,
        alive: true,
        killed: false,
        closed: false,
        kill() {
          this.killed = true;
          this.alive = false;
        },
        async close() {
          this.closed = true;
          this.alive = false;
        },
      };
      browsers.push(b);
      return b as unknown as RenderBrowser;
    },
    onReplaced: (why) => void replaced.push(why),
    ...opts,
  });
  return { pool: p, browsers, replaced };
}

const never = (): Promise<never> => new Promise(() => undefined);
const kindOf = (p: Promise<unknown>): Promise<string> => p.then(() => 'ok', (e: unknown) => (e instanceof ServiceError ? e.kind : `not a ServiceError: ${String(e)}`));

test('renders beyond the browsers and the queue are too-busy, with a Retry-After', async () => {
  const { pool: p } = pool({ size: 1, maxWaiting: 1 });
  let release!: () => void;
  const first = p.run(() => new Promise<string>((r) => (release = () => r('a'))));
  const second = p.run(async () => 'b');
  const third = p.run(async () => 'c');
  await expect(third).rejects.toMatchObject({ kind: 'too-busy', retryAfterSeconds: expect.any(Number) });
  await waitFor('the first render to run', () => release !== undefined);
  release();
  expect(await Promise.all([first, second])).toEqual(['a', 'b']);
  expect(p.counts).toMatchObject({ rendered: 2, failed: 0 });
});

test('a render past its deadline: the browser is killed, replaced, and the render tried once more', async () => {
  const { pool: p, browsers, replaced } = pool({ deadlineMs: 100 });
  let calls = 0;
  const out = await p.run(async () => (++calls === 1 ? never() : 'drawn'));
  expect(out).toBe('drawn');
  expect(browsers.map((b) => b.killed)).toEqual([true, false]);
  expect(replaced).toEqual([expect.stringContaining('deadline')]);
  expect(p.counts).toMatchObject({ rendered: 1, restarts: 1 });
});

test('a browser that dies twice: unavailable, after one retry', async () => {
  const { pool: p, browsers } = pool();
  const run = p.run(async (b) => {
    (b as unknown as Fake).alive = false;
    throw new Error('the browser process ended');
  });
  await expect(run).rejects.toMatchObject({ kind: 'unavailable', message: expect.stringContaining('twice') });
  expect(browsers).toHaveLength(2);
  expect(p.counts).toMatchObject({ failed: 1, restarts: 2 });
});

test('an error of a browser that lives on is passed on as it is, without a retry', async () => {
  const { pool: p, browsers } = pool();
  expect(await kindOf(p.run(async () => Promise.reject(new ServiceError('unavailable', 'style: Not Found'))))).toBe('unavailable');
  expect(browsers).toHaveLength(1);
  expect(browsers[0].killed).toBe(false);
});

test('a render whose caller goes away while it waits leaves the queue', async () => {
  const { pool: p } = pool({ size: 1, maxWaiting: 4 });
  let release!: () => void;
  const first = p.run(() => new Promise<string>((r) => (release = () => r('a'))));
  const gone = new AbortController();
  const waiting = p.run(async () => 'never run', gone.signal);
  expect(p.queued).toBe(1);
  gone.abort();
  expect(await kindOf(waiting)).toBe('abandoned');
  expect(p.queued).toBe(0);
  await waitFor('the first render to run', () => release !== undefined);
  release();
  await first;
});

test('a browser idle for idleMs is closed; the next render starts another', async () => {
  const { pool: p, browsers } = pool({ idleMs: 50 });
  await p.run(async () => 'a');
  await waitFor('the idle browser to be closed', () => browsers[0].closed);
  expect(p.running).toHaveLength(0);
  await p.run(async () => 'b');
  expect(browsers).toHaveLength(2);
  expect(p.counts.restarts).toBe(0);
  await p.close();
  expect(browsers[1].closed).toBe(true);
});
