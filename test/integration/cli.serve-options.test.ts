// `serve --workers` takes a count of worker processes (1-64), refused with a clear message otherwise; it is not
// parsed as a port. Runs the built CLI (dist/cli.js) and stops before anything listens.

import { execFile } from 'node:child_process';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';

const CLI = join(resolve(__dirname, '../..'), 'dist/cli.js');

async function serve(...args: string[]): Promise<{ code: number; stderr: string }> {
  try {
    await promisify(execFile)(process.execPath, [CLI, 'serve', ...args], { timeout: 30_000 });
    return { code: 0, stderr: '' };
  } catch (err) {
    const e = err as { code: number; stderr: string };
    return { code: e.code, stderr: e.stderr };
  }
}

test.each(['0', '65', '8080', 'two', '-1', '1.5'])('--workers %s is refused as not a count of workers', async (n) => {
  const r = await serve('--workers', n);
  expect(r.code).toBe(1);
  expect(r.stderr).toContain(`option '-w, --workers <n>' argument '${n}' is invalid. a number of worker processes 1-64`);
});
