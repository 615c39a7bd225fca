// The scale-out topology of docker/compose.yaml, without Docker: Debian's nginx (with docker/nginx.conf) in front
// of two `tilemirror serve` instances sharing one data directory, and Redis coordinating their schedules. A third
// tilemirror serves the sample's vector tiles as the upstream of a job firing every 3 seconds.
//   (a) each firing runs on one instance only, over several firings (both instances' logs, the shared job state);
//   (b) after a publish, both instances serve the new store (asked directly), without restart;
//       nginx caches tiles and revalidates them with their ETag once their max-age is over;
//   (c) SIGKILL of one instance under steady load through nginx loses no request;
//   (d) the restarted instance gets requests from nginx again.
// The Redis URL carries a password, which appears in no output of any process.
// Every wait is for a condition (counts, log lines), never for a time.

import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, copyFileSync, cpSync, existsSync, openSync, mkdirSync, readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { Agent, get } from 'node:http';
import { userInfo } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { SKIPPED_ELSEWHERE, SKIPPED_STILL_RUNNING } from '../../src/mirror/jobs/schedule';
import { readJobStates } from '../../src/store/data-dir/job-state';
import { call } from '../helpers/admin-api';
import { startChildServer, type ChildServer } from '../helpers/child-server';
import { gatedTest } from '../helpers/clients';
import { freePort, REDIS_SERVER, startRedis, tcpOpen, type TestRedis } from '../helpers/redis';
import { ROOT } from '../helpers/dist';
import { KEY, rawGet } from '../helpers/server';
import { waitFor } from '../helpers/wait';
import { tempDirs } from '../helpers/temp-dirs';

const NGINX = existsSync('/usr/sbin/nginx') ? '/usr/sbin/nginx' : 'nginx';
const topologyTest = gatedTest('nginx and redis-server', { bins: [NGINX, REDIS_SERVER], packages: ['nginx-light', 'redis-server'] });

const REDIS_PASSWORD = 'tm-redis-Pw-7c1e9a04';
const KEY_ENV = 'TM_TOPOLOGY_UPSTREAM_KEY';
const LONG = 100_000;
const STORE = 'tiles/sample-vector';
const { tempDir, removeTempDirs } = tempDirs('tm-');

interface Proc {
  child: ChildProcess;
  out: string[];
  text(): string;
}

/** Runs a program; its stdout goes to `stdoutFile` when given (nginx opens /dev/stdout, which a pipe of node's cannot be). */
function run(bin: string, args: string[], stdoutFile?: string): Proc {
  const fd = stdoutFile === undefined ? undefined : openSync(stdoutFile, 'w');
  const child = spawn(bin, args, { stdio: ['ignore', fd ?? 'pipe', 'pipe'] });
  if (fd !== undefined) closeSync(fd);
  const out: string[] = [];
  child.stdout?.on('data', (c: Buffer) => out.push(c.toString()));
  child.stderr?.on('data', (c: Buffer) => out.push(c.toString()));
  return { child, out, text: () => (stdoutFile === undefined ? '' : readFileSync(stdoutFile, 'utf8')) + out.join('') };
}

async function stopProc(p: Proc | undefined): Promise<void> {
  if (!p || p.child.exitCode !== null || p.child.signalCode !== null) return;
  const exited = new Promise<void>((r) => p.child.once('exit', () => r()));
  p.child.kill('SIGTERM');
  await exited;
}

/** Sets the description of a store's metadata: the mark of one generation of the upstream's data. */
function markGeneration(source: string, target: string, generation: number): void {
  const tmp = `${target}.tmp`;
  copyFileSync(source, tmp);
  const db = new Database(tmp);
  db.prepare("DELETE FROM metadata WHERE name = 'description'").run();
  db.prepare("INSERT INTO metadata (name, value) VALUES ('description', ?)").run(`generation ${generation}`);
  db.close();
  renameSync(tmp, target);
}

let redis: TestRedis | undefined;
let nginx: Proc | undefined;
let upstream: ChildServer | undefined;
/** Every instance ever started (a killed one keeps its logs here). */
const instances: ChildServer[] = [];
let a: ChildServer;
let b: ChildServer;
let nginxUrl = '';
let upstreamData = '';
let data = '';
let startInstance: (port: number) => Promise<ChildServer>;

async function startTopology(): Promise<void> {
  redis = await startRedis(REDIS_PASSWORD, LONG);
  upstreamData = tempDir('tm-topo-upstream-');
  mkdirSync(join(upstreamData, 'tiles'));
  markGeneration(join(ROOT, 'mirror', `${STORE}.mbtiles`), join(upstreamData, `${STORE}.mbtiles`), 1);
  upstream = await startChildServer(upstreamData);

  data = tempDir('tm-topo-data-');
  const config = {
    mirror: {
      upstream: upstream.url,
      keyEnv: KEY_ENV,
      jobs: [{ name: 'vector', resources: [STORE], zoom: '0-1', schedule: '*/3 * * * * *', timezone: 'UTC', concurrency: 2 }],
    },
    scheduler: { redis: redis.url, lockTtlSeconds: 6 },
    // Tiles expire after 2 s, so nginx's revalidation shows; documents are not cached by nginx.
    cache: { tilesMaxAge: 2, documentsMaxAge: 0, memoryMb: 8 },
  };
  startInstance = async (port) => {
    const s = await startChildServer(data, { server: { port, requestLog: true, trustProxy: true }, config, env: { [KEY_ENV]: KEY } });
    instances.push(s);
    return s;
  };
  const [portA, portB, nginxPort] = [await freePort(), await freePort(), await freePort()];
  [a, b] = await Promise.all([startInstance(portA), startInstance(portB)]);

  nginx = await startNginx([portA, portB], nginxPort);
  nginxUrl = `http://127.0.0.1:${nginxPort}`;
}

/** Debian's nginx with docker/nginx.conf in front of the instances on `ports`, listening on `nginxPort`. */
async function startNginx(ports: number[], nginxPort: number): Promise<Proc> {
  const prefix = tempDir('tm-topo-nginx-');
  copyFileSync(join(ROOT, 'docker', 'nginx.conf'), join(prefix, 'nginx.conf'));
  // What compose's docker/compose/*.conf say, for these ports; a dead instance is tried again after 2 s.
  const servers = ports.map((p) => `  server 127.0.0.1:${p} max_fails=1 fail_timeout=2s;`).join('\n');
  writeFileSync(join(prefix, 'tilemirror-upstream.conf'), `upstream tilemirror {\n${servers}\n  keepalive 16;\n}\n`);
  writeFileSync(join(prefix, 'tilemirror-listen.conf'), `listen 127.0.0.1:${nginxPort};\n`);
  // As the current user: under root nginx would hand its workers to `nobody`, who cannot enter this private folder.
  const asUser = process.getuid?.() === 0 ? ` user ${userInfo().username};` : '';
  const ngx = run(NGINX, ['-p', `${prefix}/`, '-c', join(prefix, 'nginx.conf'), '-g', `daemon off;${asUser}`], join(prefix, 'access.log'));
  await waitFor('nginx to listen', () => {
    if (ngx.child.exitCode !== null) throw new Error(`nginx exited with ${ngx.child.exitCode}: ${ngx.text()}`);
    return tcpOpen(nginxPort);
  }, { limitMs: LONG });
  return ngx;
}

async function stopTopology(): Promise<void> {
  await Promise.all(instances.map((s) => s.stop()));
  await upstream?.stop();
  await stopProc(nginx);
  await redis?.stop();
  removeTempDirs();
}

interface Slot {
  started: number;
  elsewhere: number;
  stillRunning: number;
  /** Instances (by index in `instances`) that decided this firing. */
  deciders: Set<number>;
}

/** What each instance decided for each firing of the job, from their logs. */
function firings(): Map<string, Slot> {
  const slots = new Map<string, Slot>();
  instances.forEach((s, i) => {
    for (const l of s.logs) {
      if (l.job !== 'vector' || typeof l.firing !== 'string') continue;
      const slot = slots.get(l.firing) ?? { started: 0, elsewhere: 0, stillRunning: 0, deciders: new Set<number>() };
      slots.set(l.firing, slot);
      if (l.msg === 'mirror job started') slot.started++;
      else if (l.msg === `mirror job ${SKIPPED_ELSEWHERE}`) slot.elsewhere++;
      else if (l.msg === `mirror job ${SKIPPED_STILL_RUNNING}`) slot.stillRunning++;
      else continue;
      slot.deciders.add(i);
    }
  });
  return slots;
}

const countLogged = (msg: string): number => instances.reduce((n, s) => n + s.logs.filter((l) => l.job === 'vector' && l.msg === msg).length, 0);

async function description(server: ChildServer): Promise<string | undefined> {
  const r = await rawGet(`${server.url}/${STORE}/tiles.json?key=${KEY}`);
  return r.status === 200 ? (JSON.parse(r.body.toString()) as { description?: string }).description : undefined;
}

describe('two instances behind nginx, one scheduler through redis', () => {
  // Hooks of a block whose tests are all skipped (nginx or redis missing) do not run.
  beforeAll(startTopology, 200_000);
  afterAll(stopTopology);

  topologyTest(
    '(a) each firing runs on exactly one instance, over several firings',
    async () => {
      const decidedByBoth = (): [string, Slot][] => [...firings()].filter(([, s]) => s.deciders.size === 2);
      await waitFor('4 firings that both instances decided, each run by one', () => decidedByBoth().filter(([, s]) => s.started === 1).length >= 4, { limitMs: LONG, intervalMs: 200 });
      for (const [firing, slot] of firings()) {
        // Never twice, whichever instances saw the firing.
        expect({ firing, started: Math.min(slot.started, 1) }).toEqual({ firing, started: slot.started });
      }
      for (const [firing, slot] of decidedByBoth()) {
        // One ran it and the other was told so; or a run was still going (then neither started another).
        if (slot.started === 1) expect({ firing, skipped: slot.elsewhere + slot.stillRunning }).toEqual({ firing, skipped: 1 });
        else expect({ firing, stillRunning: slot.stillRunning > 0 }).toEqual({ firing, stillRunning: true });
      }
      // The shared job state agrees with the logs of both (no update of one instance lost to the other's).
      const state = await waitFor(
        'a moment when every started run has finished and the state file counts them all',
        () => {
          const started = countLogged('mirror job started');
          const finished = countLogged('mirror job finished');
          const skipped = countLogged(`mirror job ${SKIPPED_ELSEWHERE}`) + countLogged(`mirror job ${SKIPPED_STILL_RUNNING}`);
          const st = readJobStates(data).jobs.vector;
          return started === finished && st?.runs === finished && st.skipped === skipped ? st : undefined;
        },
        { limitMs: LONG, intervalMs: 100 },
      );
      expect(state.runs).toBeGreaterThanOrEqual(4);
      expect(state.lastRun).toMatchObject({ trigger: 'schedule', result: 'published', errors: 0 });
      expect(state.lastSkipped?.reason).toMatch(/^skipped: (running on another instance|still running)$/);
      // Both instances were coordinated through redis, and said so without the password.
      for (const s of [a, b]) expect(s.logged('mirror job scheduled')[0]).toMatchObject({ coordination: 'redis', redis: expect.stringMatching(/^redis:\/\/:\*\*\*@127\.0\.0\.1:\d+$/) });
    },
    120_000,
  );

  topologyTest(
    '(b) after a publish both instances serve the new store; nginx caches tiles and revalidates them by ETag',
    async () => {
      for (const s of [a, b]) expect(await waitFor('generation 1 served', async () => (await description(s)) === 'generation 1', { limitMs: LONG })).toBe(true);
      // The upstream's data changes; the next run (on either instance) publishes it; both serve it, unrestarted.
      markGeneration(join(ROOT, 'mirror', `${STORE}.mbtiles`), join(upstreamData, `${STORE}.mbtiles`), 2);
      const pids = [a.child.pid, b.child.pid];
      for (const s of [a, b]) expect(await waitFor(`generation 2 served by ${s.url}`, async () => (await description(s)) === 'generation 2', { limitMs: LONG, intervalMs: 200 })).toBe(true);
      expect([a.child.pid, b.child.pid]).toEqual(pids);
      expect([a.child.exitCode, b.child.exitCode]).toEqual([null, null]);

      const tile = `${nginxUrl}/${STORE}/0/0/0.pbf?key=${KEY}`;
      const first = await rawGet(tile);
      expect({ status: first.status, nginx: first.status === 200 ? '' : nginx!.text().slice(-3000) }).toEqual({ status: 200, nginx: '' });
      expect(first.headers['cache-control']).toBe('public, max-age=2');
      const again = await waitFor('a cache hit', async () => {
        const r = await rawGet(tile);
        return r.headers['x-cache-status'] === 'HIT' ? r : undefined;
      });
      expect(again.headers.etag).toBe(first.headers.etag);
      expect(again.body.equals(first.body)).toBe(true);
      // Once its 2 s are over, nginx asks an instance with If-None-Match, gets 304 and keeps the entry.
      const revalidated = await waitFor('a revalidated entry', async () => {
        const r = await rawGet(tile);
        return r.headers['x-cache-status'] === 'REVALIDATED' ? r : undefined;
      }, { limitMs: LONG, intervalMs: 250 });
      expect(revalidated.status).toBe(200);
      expect(revalidated.body.equals(first.body)).toBe(true);
      // Conditional requests of clients are answered by nginx from the cache.
      const notModified = await rawGet(tile, { 'If-None-Match': String(first.headers.etag) });
      expect(notModified.status).toBe(304);
      // Errors are never kept: a wrong key stays 403 and is answered by an instance each time.
      for (let i = 0; i < 2; i++) {
        const denied = await rawGet(`${nginxUrl}/${STORE}/0/0/0.pbf?key=wrong-key-1`);
        expect(denied.status).toBe(403);
        expect(denied.headers['x-cache-status']).toBe('MISS');
      }
    },
    120_000,
  );

  topologyTest(
    '(c) killing one instance under steady load loses no request; (d) the restarted instance rejoins',
    async () => {
      const agent = new Agent({ keepAlive: true, maxSockets: 8 });
      const paths = [`/${STORE}/tiles.json?key=${KEY}`, `/${STORE}/tiles?key=${KEY}`, `/${STORE}/tileMatrixSet?key=${KEY}`];
      const tally = { ok: 0, bad: [] as string[] };
      let running = true;
      const request = (path: string): Promise<void> =>
        new Promise((resolve) => {
          get(`${nginxUrl}${path}`, { agent }, (res) => {
            res.resume();
            res.on('end', () => {
              if (res.statusCode !== undefined && res.statusCode >= 200 && res.statusCode < 300) tally.ok++;
              else tally.bad.push(`${res.statusCode} ${path}`);
              resolve();
            });
            res.on('error', (err) => {
              tally.bad.push(`${err.message} ${path}`);
              resolve();
            });
          }).on('error', (err) => {
            tally.bad.push(`${err.message} ${path}`);
            resolve();
          });
        });
      const loops = Array.from({ length: 8 }, async (_, i) => {
        for (let n = i; running; n++) await request(paths[n % paths.length]);
      });
      try {
        await waitFor('load through nginx', () => tally.ok >= 300, { limitMs: LONG });
        const before = tally.ok;
        const killedPort = b.port;
        const exited = new Promise<void>((r) => b.child.once('exit', () => r()));
        b.child.kill('SIGKILL');
        await exited;
        await waitFor('1000 answers after the kill', () => tally.ok >= before + 1000, { limitMs: LONG });
        expect(tally.bad).toEqual([]);

        // (d) The same instance, restarted on its port: nginx sends it requests again (its own request log).
        b = await startInstance(killedPort);
        await waitFor('requests answered by the restarted instance', () => b.logged('request').filter((l) => l.status === 200).length >= 20, { limitMs: LONG });
        await waitFor('more load after the restart', () => tally.ok >= before + 1300, { limitMs: LONG });
      } finally {
        running = false;
        await Promise.all(loops);
        agent.destroy();
      }
      expect(tally.bad).toEqual([]);
      expect(a.logged('request').length).toBeGreaterThan(0);
      // nginx tried the killed instance and passed the request on (its log names both addresses).
      const retried = nginx!
        .text()
        .split('\n')
        .filter((l) => l.startsWith('{'))
        .map((l) => JSON.parse(l) as { upstream: string; status: number })
        .filter((l) => l.upstream.includes(','));
      expect(retried.length).toBeGreaterThan(0);
      expect(retried.every((l) => l.status === 200)).toBe(true);

      // The redis password never reached any output.
      for (const s of instances) expect(s.output()).not.toContain(REDIS_PASSWORD);
      expect(nginx!.text()).not.toContain(REDIS_PASSWORD);
      expect(readFileSync(join(data, '.tilemirror-jobs.json'), 'utf8')).not.toContain(REDIS_PASSWORD);
    },
    180_000,
  );
});

// The render side of the topology: the writer (data volume read-write) keeps renders and runs the render jobs; a
// read-only instance (the same data directory bind-mounted read-only in a mount namespace of its own, as a
// read-only volume is in compose; root ignores file permissions, not a read-only mount) renders on demand without
// writing a byte, and nginx's tile cache keeps its answers. Both share a Redis: the render job's run is offered
// there, and the read-only instance draws bands of it that the writer stores and publishes.
describe('renders: a read-only instance behind nginx, the writer running a render job', () => {
  const SHARE_REDIS_PASSWORD = 'tm-render-share-Pw-30d1';
  let shareRedis: TestRedis | undefined;
  const ADMIN = 'topology-admin-key-0123456789';
  let renderData = '';
  let writer: ChildServer | undefined;
  let reader: ChildServer | undefined;
  let front: Proc | undefined;
  let frontUrl = '';
  const rendersDir = (): string => join(renderData, '.renders', 'maps', 'sample');
  const files = (): string[] => (existsSync(rendersDir()) ? readdirSync(rendersDir()).sort() : []);

  beforeAll(async () => {
    renderData = tempDir('tm-topo-render-');
    cpSync(join(ROOT, 'mirror'), renderData, { recursive: true });
    shareRedis = await startRedis(SHARE_REDIS_PASSWORD, LONG);
    // One tile a metatile: z0-2 at 512 px is 21 metatiles in 6 bands. The lock TTL and the render deadline outlast
    // the writer's pause in the last test.
    const render = { browsers: 1, metatile: 1, deadlineSeconds: 120 };
    const scheduler = { redis: shareRedis.url, lockTtlSeconds: 120 };
    writer = await startChildServer(renderData, {
      config: { render, scheduler, admin: { keys: [ADMIN] }, mirror: { jobs: [{ name: 'renders', kind: 'render', resources: ['maps/sample'], zoom: '0-2', sizes: [512] }] } },
    });
    // The data directory bind-mounted onto itself read-only, for this process alone (util-linux unshare makes the
    // new namespace's mounts private, so the writer keeps its read-write view).
    const readOnly = ['sh', '-c', 'mount --bind "$0" "$0" && mount -o remount,bind,ro "$0" && exec "$@"', renderData];
    reader = await startChildServer(renderData, { server: { requestLog: true }, wrap: [...(process.getuid?.() === 0 ? ['unshare', '-m'] : ['unshare', '-r', '-m']), ...readOnly], config: { render, scheduler } });
    const [port] = [await freePort()];
    front = await startNginx([reader.port], port);
    frontUrl = `http://127.0.0.1:${port}`;
  }, 200_000);
  afterAll(async () => {
    if (writer?.child.signalCode === null) writer.child.kill('SIGCONT');
    await Promise.all([writer?.stop(), reader?.stop()]);
    await stopProc(front);
    await shareRedis?.stop();
    removeTempDirs();
  });

  topologyTest(
    'the read-only instance renders on demand and writes nothing; nginx keeps its answer',
    async () => {
      const before = files();
      // Beyond the sample's pyramids (z5): drawn by the renderer.
      const tile = `${frontUrl}/maps/sample/256/6/33/22.png?key=${KEY}`;
      const first = await rawGet(tile);
      expect({ status: first.status, type: first.headers['content-type'] }).toEqual({ status: 200, type: 'image/png' });
      expect(first.headers['x-cache-status']).toBe('MISS');
      expect(reader!.logged('not writable: renders are served, not kept').length).toBe(1);
      expect(files()).toEqual(before);
      let misses = 1;
      const again = await waitFor('a cache hit', async () => {
        const r = await rawGet(tile);
        if (r.headers['x-cache-status'] === 'MISS') misses++;
        return r.headers['x-cache-status'] === 'HIT' ? r : undefined;
      });
      expect(again.body.equals(first.body)).toBe(true);
      // Only the misses reached the reader: nginx answered the hits from its cache.
      const asked = (): number => reader!.logged('request').filter((l) => String(l.url).startsWith('/maps/sample/256/6/33/22.png')).length;
      await waitFor('the reader to log the requests it answered', () => asked() >= misses);
      expect(asked()).toBe(misses);
      expect(files()).toEqual(before);
    },
    120_000,
  );

  topologyTest(
    'the writer runs the render job; the read-only instance draws bands of it; the writer publishes every tile',
    async () => {
      const { Redis } = require('ioredis') as typeof import('ioredis');
      const redisClient = new Redis(shareRedis!.url);
      try {
        expect((await call(writer!.url, 'POST', '/admin/api/jobs/renders/run', { key: ADMIN })).status).toBe(202);
        // The run is on offer: the writer is paused (SIGSTOP) long before it could draw its 21 metatiles alone, so
        // the bands the reader draws meanwhile are certainly the reader's.
        await waitFor('the run to be offered in redis', async () => (await redisClient.scard('tilemirror:render:runs')) === 1, { limitMs: LONG, intervalMs: 10 });
        writer!.child.kill('SIGSTOP');
        try {
          await waitFor('the reader to draw a band', () => reader!.logged("drew a band of another instance's run").length >= 1, { limitMs: LONG });
        } finally {
          writer!.child.kill('SIGCONT');
        }
        const last = await waitFor('the render job to end', async () => {
          const j = (await call(writer!.url, 'GET', '/admin/api/jobs/renders', { key: ADMIN })).json as { job: { running?: unknown; lastRun?: { result: string; tiles: { stored: number }; metatiles: { planned: number; drawn: number; elsewhere?: number } } } };
          return !j.job.running && j.job.lastRun;
        }, { limitMs: LONG });
        // 512 px tiles of z0-2: 1 + 4 + 16, each a metatile.
        expect(last).toMatchObject({ result: 'published', tiles: { stored: 21 }, metatiles: { planned: 21, drawn: 21 } });
        const bands = reader!.logged("drew a band of another instance's run");
        expect(bands.every((l) => l.job === 'renders' && l.map === 'sample')).toBe(true);
        // Every band the reader drew is 4 metatiles (only the last band, of 1, is shorter) the writer took from redis.
        const elsewhere = last.metatiles.elsewhere ?? 0;
        expect(elsewhere).toBeGreaterThanOrEqual(4 * bands.filter((l) => l.band !== 5).length);
        const stores = files().filter((f) => f.endsWith('.mbtiles') && !f.startsWith('.'));
        expect(stores).toHaveLength(1);
        const db = new Database(join(rendersDir(), stores[0]), { readonly: true });
        const rows = db.prepare('SELECT (SELECT count(*) FROM tiles) + (SELECT count(*) FROM tilemirror_tiles)').pluck().get();
        db.close();
        expect(rows).toBe(21);
        // The run withdrew its offer: nothing of it is left in redis (the reader releases its last lock after its log line).
        await waitFor('the run\'s keys to leave redis', async () => (await redisClient.keys('tilemirror:render:*')).length === 0, { limitMs: LONG });
        // The reader's Redis password appears in none of its lines.
        expect(JSON.stringify(reader!.logged(''))).not.toContain(SHARE_REDIS_PASSWORD);
      } finally {
        redisClient.disconnect();
      }
    },
    200_000,
  );
});
