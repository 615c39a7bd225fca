// A render job (mirror.jobs[] with kind: render) with the real renderer (MapLibre GL JS in the bundled headless
// Chromium) over the sample map: run from the admin API it shows its progress in metatiles, a cancel keeps what was
// drawn and the next run resumes from it, drawing only the rest, and publishes a render store holding every tile of
// its zooms; its history lists both runs. The same job runs from the command line: `tilemirror render --config FILE NAME`.

import { cpSync, existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import pino from 'pino';
import { parseConfig } from '../../src/config/load';
import { startTilemirror, type Tilemirror } from '../../src/serve';
import { call } from '../helpers/admin-api';
import { startCli } from '../helpers/cli-process';
import Database from 'better-sqlite3';
import { LV95 } from '../helpers/grids';
import { KEY, SAMPLE_DIR } from '../helpers/server';
import { tempDirs } from '../helpers/temp-dirs';
import { waitFor } from '../helpers/wait';
import { publishedRenders } from '../helpers/rendered-map';

jest.setTimeout(300_000);

const ADMIN = 'render-admin-key-0123456789';
const temp = tempDirs('tm-render-job-');
afterAll(() => temp.removeTempDirs());

function sampleCopy(): string {
  const dir = join(temp.tempDir(), 'data');
  cpSync(SAMPLE_DIR, dir, { recursive: true });
  return dir;
}

/** Tiles of a square zoom range of the whole world: 4^z at each zoom (tile arithmetic, not the code under test). */
const worldTiles = (from: number, to: number): number => Array.from({ length: to - from + 1 }, (_, i) => 4 ** (from + i)).reduce((a, b) => a + b, 0);

/** The published render stores of maps/sample, each with its tiles per zoom, read with SQL. */
const published = (data: string): { file: string; tiles: number; zooms: number[] }[] => publishedRenders(data, 'sample');

const stagingFiles = (data: string): string[] => {
  const dir = join(data, '.renders', 'maps', 'sample');
  return existsSync(dir) ? readdirSync(dir).filter((f) => f.endsWith('.staging.mbtiles')) : [];
};

describe('a render job run from the admin API', () => {
  let srv: Tilemirror;
  let data: string;
  const lines: Record<string, unknown>[] = [];
  // 512 px tiles of z0-2, one tile a metatile: 1 + 4 + 16 metatiles, enough to cancel a run in its middle.
  const JOB = { name: 'prerender', kind: 'render', resources: ['maps/sample'], zoom: '0-2', sizes: [512] };
  const job = async (): Promise<Record<string, any>> => (await call(srv.url, 'GET', '/admin/api/jobs/prerender', { key: ADMIN })).json;

  beforeAll(async () => {
    data = sampleCopy();
    const config = parseConfig(
      { server: { host: '127.0.0.1', port: 0, requestLog: false }, data, keys: [{ key: KEY }], admin: { keys: [ADMIN] }, logLevel: 'info', render: { metatile: 1 }, mirror: { jobs: [JOB] } },
      'test',
      process.cwd(),
      {},
    );
    const log = pino({ level: 'info', base: undefined }, { write: (s: string) => void lines.push(JSON.parse(s)) });
    srv = await startTilemirror(config, log);
  });
  afterAll(() => srv?.close());

  test('the job is listed as a render job, and its plan counts the tiles of its zooms', async () => {
    const list = (await call(srv.url, 'GET', '/admin/api/jobs', { key: ADMIN })).json;
    expect(list.jobs.map((j: any) => [j.name, j.kind])).toEqual([['prerender', 'render']]);
    const plan = (await call(srv.url, 'GET', '/admin/api/jobs/prerender/plan', { key: ADMIN })).json;
    expect(plan.tiles).toBe(worldTiles(0, 2));
    expect(plan.requests.expected).toBe(0);
  });

  test('progress while it runs; cancel keeps the staging file; the next run resumes and publishes every tile', async () => {
    expect((await call(srv.url, 'POST', '/admin/api/jobs/prerender/run', { key: ADMIN })).status).toBe(202);
    const progress = await waitFor('the run to report two metatiles done', async () => {
      const p = (await job()).job.running?.progress;
      return p && p.done >= 2 && p;
    });
    expect(progress).toMatchObject({ resource: 'maps/sample', unit: 'metatiles', total: worldTiles(0, 2), resourceIndex: 1, resources: 1 });
    expect(progress.done).toBeLessThan(progress.total);

    expect((await call(srv.url, 'POST', '/admin/api/jobs/prerender/cancel', { key: ADMIN })).status).toBe(202);
    const stopped = await waitFor('the cancelled run to end', async () => {
      const j = (await job()).job;
      return !j.running && j.lastRun;
    });
    expect(stopped.result).toBe('interrupted');
    expect(stopped.kind).toBe('render');
    expect(stopped.metatiles.drawn).toBeGreaterThanOrEqual(2);
    expect(stopped.metatiles.drawn).toBeLessThan(worldTiles(0, 2));
    expect(stagingFiles(data)).toHaveLength(1);
    expect(published(data)).toEqual([]);

    expect((await call(srv.url, 'POST', '/admin/api/jobs/prerender/run', { key: ADMIN })).status).toBe(202);
    const done = await waitFor(
      'the second run to end',
      async () => {
        const j = (await job()).job;
        return !j.running && j.runs === 2 && j.lastRun;
      },
      { limitMs: 240_000 },
    );
    expect(done.result).toBe('published');
    // Resumed: it draws only the metatiles the first run did not.
    expect(done.metatiles).toEqual({ planned: worldTiles(0, 2), drawn: worldTiles(0, 2) - stopped.metatiles.drawn });
    expect(done.tiles.stored).toBe(worldTiles(0, 2));
    expect(stagingFiles(data)).toEqual([]);
    const stores = published(data);
    expect(stores).toHaveLength(1);
    expect(stores[0]).toMatchObject({ tiles: worldTiles(0, 2), zooms: [0, 1, 2] });
    expect(done.resources[0].version).toBe(stores[0].file.replace(/\.mbtiles$/, ''));

    const history = (await job()).history;
    expect(history.map((h: any) => h.result)).toEqual(['published', 'interrupted']);
    expect(lines.some((l) => l.msg === 'render job finished' && l.result === 'published' && l.drawn === done.metatiles.drawn)).toBe(true);
  });

});

describe('tilemirror render --config FILE NAME', () => {
  test('runs the render job, publishes every tile of its zooms and records the run', async () => {
    const data = sampleCopy();
    const file = join(temp.tempDir(), 'tilemirror.json');
    // 256 px tiles of z1-3 (the 512 px zooms 0-2), the default metatile of 4 tiles a side.
    writeFileSync(file, JSON.stringify({ data, keys: [{ key: KEY }], mirror: { jobs: [{ name: 'small', kind: 'render', resources: ['maps/sample'], zoom: '0-2', sizes: [256] }] } }));
    const cli = startCli(['render', '--config', file, 'small']);
    const exit = await cli.done;
    expect(exit.out).toContain('job small: published');
    expect(exit.code).toBe(0);
    const stores = published(data);
    expect(stores).toHaveLength(1);
    expect(stores[0]).toMatchObject({ tiles: worldTiles(1, 3), zooms: [1, 2, 3] });
    const state = JSON.parse(readFileSync(join(data, '.tilemirror-jobs.json'), 'utf8'));
    expect(state.jobs.small.lastRun).toMatchObject({ result: 'published', kind: 'render', metatiles: { planned: 1 + 1 + 4, drawn: 1 + 1 + 4 } });

    const wrong = await startCli(['mirror', '--config', file, 'small']).done;
    expect(wrong.code).toBe(2);
    expect(wrong.out).toContain('tilemirror render --config');
  });

  test('a render job with grids also draws and keeps the map\'s tiles in them, over the matrices as fine as its zooms', async () => {
    const data = sampleCopy();
    const file = join(temp.tempDir(), 'tilemirror.json');
    // No sizes: only the grid's tiles, drawn from the mirrored pyramids (no browser starts).
    const job = { name: 'swiss', kind: 'render', resources: ['maps/sample'], zoom: '0-4', sizes: [], grids: ['LV95'] };
    writeFileSync(file, JSON.stringify({ data, keys: [{ key: KEY }], grids: [LV95], render: { enabled: false }, mirror: { jobs: [job] } }));
    const exit = await startCli(['render', '--config', file, 'swiss']).done;
    expect(exit.out).toContain('job swiss: published');
    // 512 px zooms 0-4 at the latitude of LV95's area (45.4-48.2° N): 53.5 km to 3.3 km a pixel, so LV95's matrices
    // of 4000 m (0) to 3250 m (3), the first at most 3.3 km.
    const line = /maps\/sample in LV95: (\d+) tiles kept in LV95, matrices 0-3 \((\d+) drawn by this run\)/.exec(exit.out);
    expect(line).not.toBeNull();
    expect(line![1]).toBe(line![2]);
    const dir = join(data, '.grids', 'maps', 'sample', 'LV95');
    const files = readdirSync(dir).filter((f) => f.endsWith('.gpkg'));
    expect(files).toHaveLength(1);
    const db = new Database(join(dir, files[0]), { readonly: true });
    const rows = db.prepare('SELECT zoom_level AS z, count(*) AS n FROM tiles_map_png GROUP BY zoom_level ORDER BY z').all();
    db.close();
    expect((rows as { z: number; n: number }[]).map((r) => r.z)).toEqual([0, 1, 2, 3]);
    expect((rows as { n: number }[]).reduce((a, r) => a + r.n, 0)).toBe(Number(line![1]));
    const state = JSON.parse(readFileSync(join(data, '.tilemirror-jobs.json'), 'utf8'));
    expect(state.jobs.swiss.lastRun.resources).toEqual(
      expect.arrayContaining([expect.objectContaining({ resource: 'maps/sample in LV95', status: 'published', stored: Number(line![1]) })]),
    );
  });
});
