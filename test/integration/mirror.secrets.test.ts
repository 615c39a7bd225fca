// Secrets audit: mirror with a long, distinctive upstream key (from TILEMIRROR_UPSTREAM_KEY and --key, from a
// source URL, from a scheduled job's key variable), then search for it, raw, URL-encoded and base64, in every byte
// of the data directory, every log line (the engine's, the CLI's stdout and stderr, and the pino output of a
// server serving the mirrored data and running a scheduled job), and every response of that server: every
// document endpoint reached by crawling from / and the service documents, following every link, with a sample
// of tiles. The scheduled run's pino lines must be JSON with the job name, result and counts.

import { execFile } from 'node:child_process';
import { readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { Writable } from 'node:stream';
import { promisify } from 'node:util';
import pino from 'pino';
import { parseConfig } from '../../src/config/load';
import { startTilemirror, type Tilemirror } from '../../src/serve';
import { runMirror } from '../../src/mirror/engine/run';
import { KEY, rawGet, startServer, type TestServer } from '../helpers/server';
import { built } from '../helpers/dist';
import { waitFor } from '../helpers/wait';
import { tempDirs } from '../helpers/temp-dirs';

const { tempDir, removeTempDirs } = tempDirs('tm-secrets-');

const SECRET = 'tmK3y-UPSTREAM-a94f1c7e2b8d4f60-9e3a5b7c1d2f4e6a8b0c-Zq';
const JOB_ENV = 'TILEMIRROR_SECRETS_TEST_KEY';
const ADMIN = 'admin-key-for-the-audit-5521';
const ROOT = resolve(__dirname, '../..');

/** Every form the key could leak in. */
const FORMS = [
  SECRET,
  encodeURIComponent(SECRET),
  Buffer.from(SECRET).toString('base64'),
  Buffer.from(SECRET).toString('base64url'),
  // A key cut into a base64 stream at another offset is still findable by its middle part.
  Buffer.from(`x${SECRET}`).toString('base64').slice(4, -4),
  Buffer.from(`xy${SECRET}`).toString('base64').slice(4, -4),
];

function leaks(bytes: Buffer | string): string[] {
  const b = typeof bytes === 'string' ? Buffer.from(bytes) : bytes;
  return FORMS.filter((f) => b.includes(f));
}

let upstream: TestServer;
let data: string;
let srv: Tilemirror | undefined;
let srvUrl = '';
const engineLogs: string[] = [];
const pinoLines: string[] = [];
const cliOutput: string[] = [];

const run = promisify(execFile);
async function tilemirror(args: string[], env: Record<string, string> = {}): Promise<{ code: number; out: string; err: string }> {
  try {
    const r = await run(process.execPath, [built('cli.js'), ...args], { env: { ...process.env, ...env }, cwd: ROOT, maxBuffer: 64 * 1024 * 1024 });
    return { code: 0, out: r.stdout, err: r.stderr };
  } catch (e) {
    const x = e as { code: number; stdout: string; stderr: string };
    return { code: x.code, out: x.stdout, err: x.stderr };
  }
}

beforeAll(async () => {
  upstream = await startServer({ config: { keys: [{ key: KEY, plan: 'paid' }, { key: SECRET, plan: 'paid' }] } });
  data = tempDir();
}, 180_000);

afterAll(async () => {
  await srv?.close();
  await upstream?.close();
  delete process.env[JOB_ENV];
  removeTempDirs();
});

describe('the upstream key never leaves the mirror', () => {
  test('mirroring from the CLI (key from the environment and --key), with areas and a generic source', async () => {
    const env = { TILEMIRROR_UPSTREAM_KEY: SECRET };
    const area = join(data, '..', `tm-secrets-area-${process.pid}.geojson`);
    writeFileSync(area, JSON.stringify({ type: 'Polygon', coordinates: [[[-10.5, 35.2], [30.7, 35.2], [30.7, 60.1], [-10.5, 60.1], [-10.5, 35.2]]] }));
    try {
      const a = await tilemirror(['mirror', '--upstream', upstream.url, '--data', data, '--zoom', '0-3', 'maps/sample', 'tiles/sample-vector', 'images/sample-image'], env);
      const b = await tilemirror(['mirror', '--upstream', `${upstream.url}/?key=${SECRET}`, '--key', SECRET, '--data', data, '--area', area, 'tiles/sample-terrain'], env);
      const c = await tilemirror(['mirror', '--source-tilejson', `${upstream.url}/maps/sample/256/tiles.json?key=${encodeURIComponent(SECRET)}`, '--id', 'generic-tj', '--data', data, '--zoom', '0-2', '--area', area]);
      const d = await tilemirror(['mirror', '--source-wmts', `${upstream.url}/maps/sample/WMTSCapabilities.xml`, '--layer', 'maps/sample', '--id', 'generic-wmts', '--data', data, '--zoom', '0-2'], env);
      const p = await tilemirror(['plan', '--source-wmts', `${upstream.url}/maps/sample/WMTSCapabilities.xml?key=${SECRET}`, '--layer', 'maps/sample/256', '--id', 'x', '--area', area, '--zoom', '0-4', '--sample', '3']);
      // A failing run echoes URLs in its errors: they must be redacted too.
      const f = await tilemirror(['mirror', '--upstream', upstream.url, '--data', data, '--key', SECRET, 'tiles/does-not-exist']);
      for (const r of [a, b, c, d, p, f]) cliOutput.push(r.out, r.err);
      expect([a.code, b.code, c.code, d.code, p.code]).toEqual([0, 0, 0, 0, 0]);
      expect(f.code).toBe(1);
      expect(b.out).toContain('tiles/sample-terrain: published');
      expect(c.out).toContain('tiles/generic-tj: published');
      expect(d.out).toContain('tiles/generic-wmts: published');
      expect(p.out).toMatch(/tiles\/x: \d+ tiles/);
      expect(p.out).toMatch(/estimated size/);
    } finally {
      rmSync(area, { force: true });
    }
  }, 180_000);

  test('other resource kinds, in process: fonts, sprites, OGC documents', async () => {
    for (const r of ['fonts/Noto Sans Regular', 'sprites/sample', 'ogc']) {
      const result = await runMirror({ upstream: upstream.url, dataDir: data, resource: r, key: SECRET, log: (l) => engineLogs.push(l) });
      expect({ r, status: result.status, problems: result.problems }).toEqual({ r, status: 'published', problems: [] });
      // The result goes to the audit of log lines below: it holds no key either.
      engineLogs.push(JSON.stringify(result));
    }
  }, 120_000);

  test('a server serving the mirror runs a scheduled job: its pino lines are JSON with job, result and counts', async () => {
    process.env[JOB_ENV] = SECRET;
    const capture = new Writable({
      write(chunk: Buffer, _enc, cb) {
        pinoLines.push(...chunk.toString('utf8').split('\n').filter(Boolean));
        cb();
      },
    });
    const config = parseConfig(
      {
        server: { host: '127.0.0.1', port: 0, requestLog: true },
        data,
        keys: [{ key: KEY, plan: 'paid' }],
        admin: { keys: [ADMIN] },
        logLevel: 'debug',
        mirror: {
          upstream: `${upstream.url}/?key=${SECRET}`,
          keyEnv: JOB_ENV,
          jobs: [{ name: 'terrain-nightly', resources: ['tiles/sample-terrain'], zoom: '0-6', schedule: '* * * * * *', timezone: 'UTC' }],
        },
      },
      'secrets-test',
      process.cwd(),
      {},
    );
    srv = await startTilemirror(config, pino({ level: 'debug', base: undefined }, capture));
    srvUrl = srv.url;
    await waitFor('the scheduled job to finish', () => pinoLines.some((l) => l.includes('mirror job finished')));
    const parsed = pinoLines.map((l) => JSON.parse(l) as Record<string, unknown>);
    const finished = parsed.find((l) => l.msg === 'mirror job finished');
    expect(finished).toMatchObject({ job: 'terrain-nightly', result: 'published', trigger: 'schedule' });
    // sample-terrain at zooms 0-6 is one tile per zoom (bounds 5.9,45.8,10.5,47.8; see mirror.e2e.test.ts), all
    // stored by the area run above: the job plans 7 and either fetches or keeps each.
    const counts = finished!.tiles as { planned: number; fetched: number; skipped: number; failed: number };
    expect(counts).toMatchObject({ planned: 7, failed: 0 });
    expect(counts.fetched + counts.skipped).toBe(7);
    expect(typeof finished!.ms).toBe('number');
    const resource = parsed.find((l) => l.msg === 'mirror resource finished');
    expect(resource).toMatchObject({ job: 'terrain-nightly', resource: 'tiles/sample-terrain', status: 'published', failed: 0 });
    const started = parsed.find((l) => l.msg === 'mirror job started');
    expect(started).toMatchObject({ job: 'terrain-nightly' });
    // The upstream is logged, without its key.
    expect(String(started!.upstream)).toContain(new URL(upstream.url).host);
    await srv.scheduler?.stop();
  }, 60_000);

  test('every response of the server (documents crawled link by link, a sample of tiles) is key-free', async () => {
    const seeds = [
      '/',
      '/health',
      '/wmts?SERVICE=WMTS&REQUEST=GetCapabilities',
      '/wmts/1.0.0/WMTSCapabilities.xml',
      '/ogc',
      '/ogc/conformance',
      '/ogc/collections',
      '/ogc/tileMatrixSets',
      `/admin/?key=${ADMIN}`,
      `/admin/status.json?key=${ADMIN}`,
      '/health/ready',
      // Last in the queue's first round, after the requests above were counted: route labels are patterns.
      '/metrics',
    ];
    for (const kind of ['maps', 'tiles', 'images']) {
      for (const f of readdirSync(join(data, kind)).filter((x) => x.endsWith('.mbtiles'))) {
        const id = encodeURIComponent(f.replace(/\.mbtiles$/, ''));
        const base = `/${kind}/${id}`;
        seeds.push(`${base}/`, `${base}/tiles.json`, `${base}/WMTSCapabilities.xml`, `${base}/tiles`, `${base}/tileMatrixSet`, `${base}/style.json`, `${base}/image.json`, `${base}/256/tiles.json`);
      }
    }
    const seen = new Set<string>();
    const queue = seeds.map((s) => (s.includes('key=') ? s : `${s}${s.includes('?') ? '&' : '?'}key=${KEY}`));
    const fill = (u: string): string =>
      u
        .replace(/\{z\}|\{TileMatrix\}|\{tileMatrix\}/g, '1')
        .replace(/\{x\}|\{y\}|\{TileRow\}|\{TileCol\}|\{tileRow\}|\{tileCol\}/g, '0')
        .replace(/\{fontstack\}/g, 'Noto%20Sans%20Regular')
        .replace(/\{range\}/g, '0-255')
        .replace(/\{[^}]*\}/g, '');
    let documents = 0;
    let tiles = 0;
    const statuses = new Map<number, number>();
    while (queue.length > 0 && seen.size < 1500) {
      const path = queue.shift()!;
      if (seen.has(path)) continue;
      seen.add(path);
      const res = await rawGet(`${srvUrl}${path}`, { 'Accept-Encoding': 'identity' });
      statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
      expect({ path, leaks: leaks(res.body), headers: leaks(JSON.stringify(res.headers)) }).toEqual({ path, leaks: [], headers: [] });
      const type = String(res.headers['content-type'] ?? '');
      if (!/json|xml|html|text/.test(type)) {
        tiles++;
        continue;
      }
      documents++;
      // Follow every link to this server (JSON, XML attributes, HTML), placeholders filled with a real tile.
      const text = res.body.toString('utf8').replace(/&amp;/g, '&').replace(/\\\//g, '/');
      for (const m of text.matchAll(new RegExp(`${srvUrl.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}(/[^"'<>\\s\\\\]*)`, 'g'))) {
        let next = fill(m[1]);
        if (!next.includes('key=')) next += `${next.includes('?') ? '&' : '?'}key=${KEY}`;
        if (!seen.has(next)) queue.push(next);
      }
    }
    expect(documents).toBeGreaterThan(40);
    expect(tiles).toBeGreaterThan(10);
    expect(statuses.get(200)).toBeGreaterThan(50);
    // The admin pages were reached with the admin key.
    expect([...seen].some((p) => p.startsWith('/admin/status.json'))).toBe(true);
  }, 120_000);

  test('no file of the data directory holds the key in any form', () => {
    const files: string[] = [];
    const walk = (d: string): void => {
      for (const e of readdirSync(d, { withFileTypes: true })) (e.isDirectory() ? walk(join(d, e.name)) : files.push(join(d, e.name)));
    };
    walk(data);
    expect(files.length).toBeGreaterThanOrEqual(8);
    expect(files.some((f) => f.endsWith('.tilemirror-jobs.json'))).toBe(true);
    for (const f of files) expect({ f, leaks: leaks(readFileSync(f)) }).toEqual({ f, leaks: [] });
  });

  test('no log line and no CLI output holds the key', () => {
    expect(pinoLines.length).toBeGreaterThan(20);
    for (const l of [...pinoLines, ...engineLogs, ...cliOutput]) expect({ l: l.slice(0, 200), leaks: leaks(l) }).toEqual({ l: l.slice(0, 200), leaks: [] });
    // Not vacuous: the CLI did print URLs and a redacted key.
    expect(cliOutput.join('\n')).toMatch(/\*\*\*|published/);
  });
});
