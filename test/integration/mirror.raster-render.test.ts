// A map mirrored without its raster pyramids (`--raster render`, a job's `raster: render`): the CLI mirrors
// maps/sample from a tilemirror serving the sample, through a proxy that logs every request. The oracle is a normal
// mirror of the same zooms with its dependencies, in the same file: its raster tile requests (counted at the proxy)
// are what `plan --raster render` must say it saves, its pyramids what the rendered store must describe, its
// dependency stores what the rendered run must publish. A rendered run asks the upstream for no raster tile of the
// map; switching a store between the modes drops or fetches them again.

import Database from 'better-sqlite3';
import { statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { parseConfig } from '../../src/config/load';
import { configuredJobs } from '../../src/mirror/jobs/jobs-config';
import { planJob } from '../../src/mirror/jobs/job-plan';
import { MbtilesStore } from '../../src/store/mbtiles/reader';
import { storePaths } from '../../src/store/mbtiles/staging';
import type { StoreKind } from '../../src/store/types';
import { snapshot, type StoreSnapshot } from '../fixtures/mirror-stores';
import { startSimulator, type UpstreamSimulator } from '../fixtures/upstream-simulator';
import { startCli, type CliExit } from '../helpers/cli-process';
import { KEY, startServer, type TestServer } from '../helpers/server';
import { tempDirs } from '../helpers/temp-dirs';

const ZOOM = '0-3';
/** The map's raster tiles as the upstream serves them: /maps/sample/{z}/{x}/{y}.png and /maps/sample/256/... */
const RASTER_TILE = /^\/maps\/sample\/(256\/)?\d+\/\d+\/\d+(@2x)?\.(png|jpe?g|webp)$/;
const DEPENDENCIES: [StoreKind, string][] = [
  ['tiles', 'sample-vector'],
  ['fonts', 'Noto Sans Regular'],
  ['sprites', 'sample'],
];

let upstream: TestServer;
let sim: UpstreamSimulator;
const { tempDir, removeTempDirs } = tempDirs('tm-raster-render-');
/** The oracle: a normal mirror of the map at ZOOM with its dependencies. */
const normal = tempDir();
let normalRaster = 0;

beforeAll(async () => {
  upstream = await startServer();
  sim = await startSimulator(upstream.url);
  const before = sim.log.length;
  const exit = await cli(['mirror', '--data', normal, '--zoom', ZOOM, '--with-dependencies', 'maps/sample']);
  expect({ code: exit.code, out: exit.out }).toEqual({ code: 0, out: expect.stringContaining('maps/sample: published') });
  normalRaster = rasterRequestsSince(before);
}, 120_000);
afterAll(async () => {
  await sim?.close();
  await upstream?.close();
  removeTempDirs();
});

function cli(args: string[]): Promise<CliExit> {
  const withUpstream = args.includes('--config') ? args : [...args, '--upstream', sim.url];
  return startCli(withUpstream, { TILEMIRROR_UPSTREAM_KEY: KEY }).done;
}

function rasterRequestsSince(from: number): number {
  return sim.log.slice(from).filter((e) => RASTER_TILE.test(e.path)).length;
}

const mapFile = (dir: string): string => storePaths(dir, 'maps', 'sample').published;

function pyramidRows(file: string): unknown[] {
  const db = new Database(file, { readonly: true, fileMustExist: true });
  try {
    return db.prepare('SELECT * FROM tilemirror_pyramids ORDER BY ord').all();
  } finally {
    db.close();
  }
}

function rasterModeRead(file: string): string | undefined {
  const store = new MbtilesStore(file, 'maps', 'sample', 'test');
  try {
    return store.info.raster;
  } finally {
    store.close();
  }
}

/** A rendered store: the normal one's documents and pyramids, no tile, and the render mark in its metadata. */
function expectRendered(dir: string): void {
  const mirrored = snapshot(mapFile(normal));
  const rendered = snapshot(mapFile(dir));
  expect({ tiles: rendered.tiles, extra: rendered.extra, empty: rendered.empty }).toEqual({ tiles: [], extra: [], empty: [] });
  expect(rendered.documents).toEqual(mirrored.documents);
  expect(rendered.documents.some((d) => d.startsWith('style.json '))).toBe(true);
  expect(rendered.metadata).toEqual([...mirrored.metadata, 'tilemirror_raster=render'].sort());
  expect(pyramidRows(mapFile(dir))).toEqual(pyramidRows(mapFile(normal)));
  expect(rasterModeRead(mapFile(dir))).toBe('render');
}

/** The map's tiles, documents and metadata as the normal mirror's (validators carry times: left out). */
function mapContent(s: StoreSnapshot): Omit<StoreSnapshot, 'validators'> {
  const { validators: _, ...rest } = s;
  return rest;
}

test('the oracle fetched raster tiles of both pyramids and stored them', () => {
  const s = snapshot(mapFile(normal));
  expect(normalRaster).toBeGreaterThan(0);
  expect(s.tiles.length + s.extra.length + s.empty.length).toBe(normalRaster);
  expect(rasterModeRead(mapFile(normal))).toBeUndefined();
});

test('plan --raster render says it saves the raster tiles a normal mirror fetches, and fetches none itself', async () => {
  const dir = tempDir();
  const before = sim.log.length;
  const exit = await cli(['plan', '--data', dir, '--zoom', ZOOM, '--raster', 'render', 'maps/sample']);
  expect(exit.code).toBe(0);
  expect(exit.out).toContain(`raster: render (saves ${normalRaster} requests of the 512/256 px pyramids)`);
  expect(exit.out).toMatch(/^maps\/sample: 0 tiles$/m);
  expect(exit.out).toMatch(/upstream requests: ~\d+ \(0 tiles not yet current/);
  expect(rasterRequestsSince(before)).toBe(0);
  // Without the option the same plan counts them as tiles to fetch.
  const plain = await cli(['plan', '--data', dir, '--zoom', ZOOM, '--sample', '0', 'maps/sample']);
  expect(plain.out).toMatch(new RegExp(`^maps/sample: ${normalRaster} tiles$`, 'm'));
  expect(plain.out).not.toContain('raster: render');
}, 60_000);

test('mirror --raster render: the style, the pyramids described, no raster tile fetched or stored, the dependencies published', async () => {
  const dir = tempDir();
  const before = sim.log.length;
  const exit = await cli(['mirror', '--data', dir, '--zoom', ZOOM, '--raster', 'render', 'maps/sample']);
  expect({ code: exit.code, out: exit.out }).toEqual({ code: 0, out: expect.stringContaining(`maps/sample: published -> ${mapFile(dir)}`) });
  expect(rasterRequestsSince(before)).toBe(0);
  expect(exit.out).toContain(`their ${normalRaster} tiles not fetched: the server renders them from the style`);
  expectRendered(dir);
  // --raster render implies --with-dependencies: the same stores as the normal mirror's with them.
  for (const [kind, id] of DEPENDENCIES) {
    expect(exit.out).toContain(`dependency ${kind}/${id}: published`);
    expect({ store: `${kind}/${id}`, ...snapshot(storePaths(dir, kind, id).published) }).toEqual({ store: `${kind}/${id}`, ...snapshot(storePaths(normal, kind, id).published) });
  }
  // A re-run starts from the published store and still fetches no raster tile.
  const again = sim.log.length;
  const rerun = await cli(['mirror', '--data', dir, '--zoom', ZOOM, '--raster', 'render', 'maps/sample']);
  expect(rerun.code).toBe(0);
  expect(rerun.out).toContain('maps/sample: starting from the published store');
  expect(rasterRequestsSince(again)).toBe(0);
  expectRendered(dir);
}, 120_000);

test('--raster render on another kind is a usage error naming the resource, before anything runs', async () => {
  const dir = tempDir();
  const before = sim.log.length;
  const exit = await cli(['mirror', '--data', dir, '--raster', 'render', 'maps/sample', 'tiles/sample-vector']);
  expect(exit.code).toBe(2);
  expect(exit.out).toContain('tiles/sample-vector: raster render applies to maps/ID resources only');
  expect(sim.log.length).toBe(before);
  const plan = await cli(['plan', '--data', dir, '--raster', 'render', 'images/sample-image']);
  expect(plan.code).toBe(2);
  expect(plan.out).toContain('images/sample-image: raster render applies to maps/ID resources only');
}, 60_000);

test('a job with raster: render through mirror --config: its map rendered, its other kinds mirrored; the admin plan carries the saving', async () => {
  const dir = tempDir();
  const raw = {
    data: dir,
    mirror: { upstream: sim.url, jobs: [{ name: 'rendered', resources: ['maps/sample', 'images/sample-image'], zoom: ZOOM, raster: 'render' }] },
  };
  const configFile = join(dir, 'tilemirror.yaml');
  writeFileSync(configFile, stringify(raw));
  const [job] = configuredJobs(parseConfig(raw, 'test', dir, {}), {}, KEY);
  const plan = await planJob(job, dir, undefined);
  expect(plan.requests.savedByRender).toBe(normalRaster);
  expect(plan.resources.map((r) => [r.resource, r.savedByRender])).toEqual([
    ['maps/sample', normalRaster],
    ['images/sample-image', 0],
  ]);

  const before = sim.log.length;
  const exit = await cli(['mirror', '--config', configFile]);
  expect({ code: exit.code, out: exit.out }).toEqual({ code: 0, out: expect.stringMatching(/^job rendered: published: 2 resources/m) });
  expect(rasterRequestsSince(before)).toBe(0);
  expectRendered(dir);
  for (const [kind, id] of DEPENDENCIES) expect(exit.out).toContain(`dependency ${kind}/${id}: published`);
  const image = snapshot(storePaths(dir, 'images', 'sample-image').published);
  expect(image.tiles.length).toBeGreaterThan(0);
  expect(image.metadata.some((m) => m.startsWith('tilemirror_raster'))).toBe(false);

  // A job of other kinds only cannot render: the configuration is refused, naming the field.
  const bad = join(dir, 'bad.yaml');
  writeFileSync(bad, stringify({ data: dir, mirror: { upstream: sim.url, jobs: [{ name: 'vector', resources: ['tiles/sample-vector'], raster: 'render' }] } }));
  const refused = await cli(['mirror', '--config', bad]);
  expect(refused.code).toBe(2);
  expect(refused.out).toContain('mirror.jobs[0].raster: render applies to maps resources, and the job has none (tiles/sample-vector)');
}, 120_000);

test('a rendered run stopped midway resumes; a mirror run stopped midway is dropped by a switch to render', async () => {
  const dir = tempDir();
  const render = ['mirror', '--data', dir, '--zoom', ZOOM, '--raster', 'render', '--concurrency', '4', 'maps/sample'];
  const before = sim.log.length;
  // The map's discovery, then the vector tile set's until the cap. The map is published; its dependency's outcome
  // is a note of the map's run, as with --with-dependencies.
  const capped = await cli([...render, '--max-requests', '40']);
  expect(capped.out).toContain(`maps/sample: published -> ${mapFile(dir)}`);
  expect(capped.out).toContain("dependency tiles/sample-vector: interrupted: the run's request budget is reached");
  const resumed = await cli(render);
  expect(resumed.code).toBe(0);
  expect(resumed.out).toContain('tiles/sample-vector: resuming the previous run');
  expect(rasterRequestsSince(before)).toBe(0);
  expectRendered(dir);
  for (const [kind, id] of DEPENDENCIES) expect(mapContent(snapshot(storePaths(dir, kind, id).published))).toEqual(mapContent(snapshot(storePaths(normal, kind, id).published)));

  const other = tempDir();
  const stopped = await cli(['mirror', '--data', other, '--zoom', ZOOM, '--concurrency', '4', '--max-requests', '40', 'maps/sample']);
  expect(stopped.code).toBe(3);
  const staging = storePaths(other, 'maps', 'sample').staging;
  expect(snapshot(staging).tiles.length).toBeGreaterThan(0);
  const switched = sim.log.length;
  const rendered = await cli(['mirror', '--data', other, '--zoom', ZOOM, '--raster', 'render', 'maps/sample']);
  expect(rendered.code).toBe(0);
  expect(rendered.out).not.toContain('maps/sample: resuming the previous run');
  expect(rasterRequestsSince(switched)).toBe(0);
  expectRendered(other);
}, 180_000);

test('switching a store render -> mirror -> render: the raster tiles fetched again, then dropped', async () => {
  const dir = tempDir();
  const render = ['mirror', '--data', dir, '--zoom', ZOOM, '--raster', 'render', 'maps/sample'];
  expect((await cli(render)).code).toBe(0);
  expectRendered(dir);
  const renderedBytes = statSync(mapFile(dir)).size;

  const before = sim.log.length;
  const mirrored = await cli(['mirror', '--data', dir, '--zoom', ZOOM, 'maps/sample']);
  expect(mirrored.code).toBe(0);
  expect(rasterRequestsSince(before)).toBe(normalRaster);
  expect(mapContent(snapshot(mapFile(dir)))).toEqual(mapContent(snapshot(mapFile(normal))));
  expect(rasterModeRead(mapFile(dir))).toBeUndefined();
  const mirroredBytes = statSync(mapFile(dir)).size;
  expect(mirroredBytes).toBeGreaterThan(renderedBytes);

  const back = sim.log.length;
  const again = await cli(render);
  expect(again.code).toBe(0);
  expect(rasterRequestsSince(back)).toBe(0);
  expectRendered(dir);
  // The raster tiles are gone from the file, not only from its tables.
  expect(statSync(mapFile(dir)).size).toBeLessThan(mirroredBytes);
}, 180_000);
