import { spawn, spawnSync } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join, resolve } from 'node:path';
import { acquireLock } from '../../src/store/data-dir/lock';
import { LockError } from '../../src/mirror/errors';
import { built } from '../helpers/dist';
import { tempDirs } from '../helpers/temp-dirs';

const { tempDir, removeTempDirs } = tempDirs('tm-lock-');

const ROOT = resolve(__dirname, '../..');
let dir: string;
beforeEach(() => {
  dir = tempDir();
});
afterEach(() => removeTempDirs());

/** A child node process that takes the lock through ts-node-free plain JS (better-sqlite3 from the project). */
const CHILD = `
const Database = require(${JSON.stringify(join(ROOT, 'node_modules/better-sqlite3'))});
const { hostname } = require('node:os');
const db = new Database(process.argv[1], { timeout: 0 });
db.exec('BEGIN IMMEDIATE');
db.exec('CREATE TABLE IF NOT EXISTS owner (pid INTEGER NOT NULL, host TEXT NOT NULL, since TEXT NOT NULL)');
db.exec('DELETE FROM owner');
db.prepare('INSERT INTO owner VALUES (?, ?, ?)').run(process.pid, hostname(), new Date().toISOString());
db.exec('COMMIT');
db.exec('BEGIN IMMEDIATE');
process.stdout.write('held\\n');
setInterval(() => {}, 1000);
`;

test('one holder at a time; released locks can be taken again and leave no file', () => {
  const file = join(dir, '.x.lock');
  const lock = acquireLock(file);
  expect(() => acquireLock(file)).toThrow(LockError);
  lock.release();
  expect(existsSync(file)).toBe(false);
  expect(existsSync(`${file}-journal`)).toBe(false);
  acquireLock(file).release();
});

test('a lock held by another process is refused and names it; SIGKILL frees it at once', async () => {
  const file = join(dir, '.y.lock');
  const child = spawn(process.execPath, ['-e', CHILD, file], { stdio: ['ignore', 'pipe', 'inherit'] });
  await new Promise<void>((res) => child.stdout.once('data', () => res()));
  expect(() => acquireLock(file)).toThrow(new RegExp(`another mirror.*pid ${child.pid}`));
  child.kill('SIGKILL');
  await new Promise((res) => child.once('exit', res));
  // The file is still there (the holder died without cleaning up), but the kernel dropped its lock.
  expect(existsSync(file)).toBe(true);
  const lock = acquireLock(file);
  lock.release();
  expect(existsSync(file)).toBe(false);
});

test('processes racing for a lock left by a killed holder: exactly one wins', async () => {
  const file = join(dir, '.race.lock');
  // A lock file of a dead holder, as a SIGKILL leaves it.
  const dead = spawn(process.execPath, ['-e', CHILD, file], { stdio: ['ignore', 'pipe', 'inherit'] });
  await new Promise<void>((res) => dead.stdout.once('data', () => res()));
  dead.kill('SIGKILL');
  await new Promise((res) => dead.once('exit', res));
  // The racers run the built module (the CLI's; test/run.sh builds dist/ before jest). A racer that wins holds
  // the lock until every racer has answered (its stdin closes then), so a late starter cannot take it after release.
  const lockJs = built('store/data-dir/lock.js');
  const script = `
    const { acquireLock } = require(${JSON.stringify(lockJs)});
    const go = Number(process.argv[2]);
    while (Date.now() < go) {}
    let l;
    try { l = acquireLock(process.argv[1]); process.stdout.write('won'); }
    catch (e) { process.stdout.write('lost'); }
    process.stdin.resume();
    process.stdin.on('end', () => { l?.release(); process.exit(0); });
  `;
  const go = Date.now() + 400;
  const racers = Array.from({ length: 6 }, () => {
    const p = spawn(process.execPath, ['-e', script, file, String(go)], { stdio: ['pipe', 'pipe', 'inherit'] });
    const answered = new Promise<string>((res) => p.stdout.once('data', (c: Buffer) => res(c.toString())));
    const exited = new Promise((res) => p.once('exit', res));
    return { p, answered, exited };
  });
  const outs = await Promise.all(racers.map((r) => r.answered));
  for (const r of racers) r.p.stdin.end();
  await Promise.all(racers.map((r) => r.exited));
  expect(outs.filter((o) => o === 'won')).toHaveLength(1);
  expect(outs.filter((o) => o === 'lost')).toHaveLength(5);
});

test('a lock file in the old text format: refused while its pid lives, taken over when it is dead', () => {
  const file = join(dir, '.z.lock');
  // pid 1 is alive (or at least exists) in any container.
  writeFileSync(file, `1 ${hostname()}\n`);
  expect(() => acquireLock(file)).toThrow(/another mirror.*pid 1/);
  const child = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))']);
  writeFileSync(file, `${child.stdout.toString()} ${hostname()}\n`);
  const lock = acquireLock(file);
  expect(() => acquireLock(file)).toThrow(LockError);
  lock.release();
});

test('the refusal says what holds the store: a mirror run or an import', () => {
  const file = join(dir, '.t.lock');
  const held = acquireLock(file, 'import');
  expect(() => acquireLock(file)).toThrow(/^an import into this store is running \(in this process; lock .*\.t\.lock\)$/);
  held.release();
  const mirror = acquireLock(file);
  expect(() => acquireLock(file, 'import')).toThrow(/^another mirror of this store is running \(in this process; lock .*\.t\.lock\)$/);
  mirror.release();
  expect(existsSync(file)).toBe(false);
});
