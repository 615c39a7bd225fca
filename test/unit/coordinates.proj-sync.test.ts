// A warm transform through the PROJ worker's shared-memory slot (proj.ts's synchronous path): the spec's example
// answered through it, a point PROJ cannot transform answered as a 400 (TransformError) through it, and the worker
// crashing in the middle of such a call: the call fails with ProjStopped, a new worker starts, and the next
// transform (its pipeline built again there) answers as before. Real PROJ (proj-wasm), real registry index.

import Database from 'better-sqlite3';
import { join } from 'node:path';
import { DEFAULT_INDEX_DIR } from '../../src/config/load';
import { Proj, ProjStopped, type ProjHandle } from '../../src/services/coordinates/proj';
import { COORDINATES_INDEX } from '../../src/services/coordinates/registry-sql';
import { RegistrySearch } from '../../src/services/coordinates/search';
import { parsePoints, TransformError, Transformer } from '../../src/services/coordinates/transform';

jest.setTimeout(60_000);

let db: Database.Database;
let proj: Proj;
let transformer: Transformer;

beforeAll(() => {
  db = new Database(join(DEFAULT_INDEX_DIR, COORDINATES_INDEX), { readonly: true, fileMustExist: true });
  proj = new Proj();
  transformer = new Transformer(proj, new RegistrySearch(db));
});

afterAll(async () => {
  await proj.close();
  db.close();
});

// The spec's documented example (4326 → 5514), mm.
const EXAMPLE = '17,50;17.1,50.1';
const expectExample = (results: { x: number; y: number }[]): void => {
  expect(results.map((r) => [Math.round(r.x * 1000) / 1000, Math.round(r.y * 1000) / 1000])).toEqual([
    [-560595.699, -1074706.257],
    [-552340.361, -1064368.377],
  ]);
};

test('a warm transform goes through the shared slot and answers the spec example', async () => {
  expectExample((await transformer.transform(parsePoints(EXAMPLE), 4326, 5514)).results); // builds the pipeline (messages)
  const before = { ...proj.stats };
  const answer = await transformer.transform(parsePoints(EXAMPLE), 4326, 5514);
  expectExample(answer.results);
  expect(answer.transformer_selection_strategy).toBe('boundcrs');
  // Through the slot, or (a busy machine not scheduling the worker within the block) taken back and sent as a message.
  expect(proj.stats.sync + proj.stats.messages).toBe(before.sync + before.messages + 1);
  // Many in a row: at least one of them through the slot, even on a loaded machine.
  for (let i = 0; i < 20; i++) expectExample((await transformer.transform(parsePoints(EXAMPLE), 4326, 5514)).results);
  expect(proj.stats.sync).toBeGreaterThan(before.sync);
});

test('a point PROJ cannot transform is a TransformError (400) through the slot, and the slot serves the next call', async () => {
  await transformer.transform(parsePoints(EXAMPLE), 4326, 5514);
  const before = proj.stats.sync + proj.stats.messages;
  await expect(transformer.transform(parsePoints('17,50;17,95'), 4326, 5514)).rejects.toThrow(
    new TransformError('Invalid coordinates: pair 2 cannot be transformed from EPSG:4326 to EPSG:5514 (outside the area PROJ can transform)'),
  );
  expect(proj.stats.sync + proj.stats.messages).toBe(before + 1);
  expectExample((await transformer.transform(parsePoints(EXAMPLE), 4326, 5514)).results);
});

test('the worker crashing in the middle of a synchronous transform: the call fails, a new worker answers the next one', async () => {
  await transformer.transform(parsePoints(EXAMPLE), 4326, 5514);
  const generation = proj.generation;
  // A pipeline of this worker, for the crash call: 4326 → 4326 (PROJ's no-op operation).
  const wgs84 = (await proj.fromDatabase(4326, 'crs')) as ProjHandle;
  const { op } = await proj.defaultOperation(wgs84, wgs84, false);
  await proj.release([wgs84]);
  const crash = proj.crashForTest([op as ProjHandle], new Float64Array([17, 50, 0, 0]));
  expect(crash).toBeInstanceOf(Promise); // the worker was idle: the slot took the call (or, not scheduled in time, a message)
  await expect(crash).rejects.toBeInstanceOf(ProjStopped);
  // The server's process is still here, and the next transform starts a new worker and builds its pipeline there.
  expectExample((await transformer.transform(parsePoints(EXAMPLE), 4326, 5514)).results);
  expect(proj.generation).toBe(generation + 1);
  expect(proj.stats.restarts).toBe(1);
  // The new worker's slot serves warm transforms.
  const sync = proj.stats.sync;
  for (let i = 0; i < 20; i++) expectExample((await transformer.transform(parsePoints(EXAMPLE), 4326, 5514)).results);
  expect(proj.stats.sync).toBeGreaterThan(sync);
});

test('parsePoints: numbers with blanks, two or three per pair; each bad pair named with what is wrong', () => {
  expect(parsePoints(' -1e3 , +.5 ;1.,2,3')).toEqual([
    [-1000, 0.5, undefined],
    [1, 2, 3],
  ]);
  const message = (text: string): string => {
    try {
      parsePoints(text);
      return 'parsed';
    } catch (err) {
      return (err as Error).message;
    }
  };
  expect(message('1,2;1')).toBe('Invalid coordinates: pair 2 "1" is not x,y or x,y,z');
  expect(message('1,2,3,4')).toBe('Invalid coordinates: pair 1 "1,2,3,4" is not x,y or x,y,z');
  expect(message('1,2,')).toBe('Invalid coordinates: pair 1 "1,2," is not made of finite numbers');
  expect(message('1,,2')).toBe('Invalid coordinates: pair 1 "1,,2" is not made of finite numbers');
  expect(message('.,1')).toBe('Invalid coordinates: pair 1 ".,1" is not made of finite numbers');
  expect(message('1e999,2')).toBe('Invalid coordinates: pair 1 "1e999,2" is not made of finite numbers');
  expect(message('0x10,2')).toBe('Invalid coordinates: pair 1 "0x10,2" is not made of finite numbers');
  expect(message(Array(51).fill('1,2').join(';'))).toBe('Invalid coordinates: 51 pairs, at most 50');
});
