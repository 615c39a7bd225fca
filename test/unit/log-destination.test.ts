import { closeSync, openSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import pino from 'pino';
import { BatchedDestination } from '../../src/http/log-destination';
import { tempDirs } from '../helpers/temp-dirs';

const { tempDir, removeTempDirs } = tempDirs('tm-log-');

// The server's log destination, writing to a real file descriptor.

afterAll(removeTempDirs);

function tmpFile(): { file: string; fd: number } {
  const dir = tempDir();
  const file = join(dir, 'log.ndjson');
  return { file, fd: openSync(file, 'w') };
}

const flushed = (d: BatchedDestination): Promise<void> => new Promise((resolve) => d.flush(resolve));

describe('BatchedDestination', () => {
  test('every line arrives once, whole and in order, across many batches (pino writing through it)', async () => {
    const { file, fd } = tmpFile();
    const dest = new BatchedDestination({ fd, minBytes: 1000 });
    const log = pino({ base: undefined }, dest);
    for (let i = 0; i < 20_000; i++) {
      log.info({ i, url: `/maps/sample/${i % 6}/${i}/${i}.png?key=***`, text: i % 1000 === 0 ? 'äöü €' : undefined }, 'request');
      // Let some writes finish mid-way, so lines also arrive while a write is under way.
      if (i % 2500 === 0) await new Promise((r) => setImmediate(r));
    }
    await flushed(dest);
    closeSync(fd);
    const lines = readFileSync(file, 'utf8').trimEnd().split('\n');
    expect(lines).toHaveLength(20_000);
    lines.forEach((line, i) => expect(JSON.parse(line)).toMatchObject({ i, msg: 'request' }));
    expect(JSON.parse(lines[1000]).text).toBe('äöü €');
  });

  test('lines beyond the backlog bound are dropped and counted in a note, not kept', async () => {
    const { file, fd } = tmpFile();
    // No write starts by itself (minBytes above the bound): the backlog holds 3 lines of 35 bytes, then drops.
    const dest = new BatchedDestination({ fd, minBytes: 1e9, maxBacklogBytes: 110 });
    for (let i = 0; i < 10; i++) dest.write(`${JSON.stringify({ n: i, pad: 'x'.repeat(18) })}\n`);
    await flushed(dest);
    closeSync(fd);
    const lines = readFileSync(file, 'utf8').trimEnd().split('\n').map((l) => JSON.parse(l));
    expect(lines.slice(0, 3).map((l) => l.n)).toEqual([0, 1, 2]);
    expect(lines[3]).toMatchObject({ level: 40, dropped: 7 });
    expect(lines).toHaveLength(4);
  });

  test('a descriptor that fails (closed stdout) stops the writing quietly; flush still answers', async () => {
    const { fd } = tmpFile();
    closeSync(fd);
    const dest = new BatchedDestination({ fd, minBytes: 10 });
    expect(() => dest.write('{"a":1}\n{"b":2}\n')).not.toThrow();
    await flushed(dest);
    expect(() => dest.write('{"c":3}\n')).not.toThrow();
    await flushed(dest);
    expect(() => dest.flushSync()).not.toThrow();
  });

  test('flushSync writes what is pending at once (at exit)', () => {
    const { file, fd } = tmpFile();
    const dest = new BatchedDestination({ fd, minBytes: 1e9 });
    dest.write('{"last":true}\n');
    dest.flushSync();
    closeSync(fd);
    expect(readFileSync(file, 'utf8')).toBe('{"last":true}\n');
  });
});
