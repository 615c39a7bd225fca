// The audit line of an admin write records the status the server sent, whatever the edge made of the error
// (http/error-reply.ts), read from the log the built server writes. Two refusals a route throws as error kinds:
// Run now on a process that runs no mirror jobs (a `serve --workers` worker: `unavailable`, 503), and Cancel of a
// job that is not running (`conflict`, 409).

import { call } from '../helpers/admin-api';
import { startChildServer, type ChildServer } from '../helpers/child-server';
import { tempDirs } from '../helpers/temp-dirs';
import { waitFor } from '../helpers/wait';

const ADMIN = 'admin-key-audit-5d2f81';
const { tempDir, removeTempDirs } = tempDirs('tm-admin-audit-');
const servers: ChildServer[] = [];

/** `serve` over an empty data directory with one on-demand job (its upstream is never asked: nothing runs). */
async function serve(args: string[] = []): Promise<ChildServer> {
  const mirror = { upstream: 'http://127.0.0.1:9', key: 'upstream-key-never-used', jobs: [{ name: 'sample', resources: ['maps/sample'], zoom: '0-1' }] };
  const srv = await startChildServer(tempDir(), { args, config: { admin: { keys: [ADMIN] }, mirror } });
  servers.push(srv);
  return srv;
}

/** The audit lines the server has written so far. */
const audits = (srv: ChildServer): Record<string, unknown>[] => srv.logs.filter((l) => l.audit !== undefined).map((l) => l.audit as Record<string, unknown>);

afterAll(async () => {
  await Promise.all(servers.map((s) => s.stop()));
  removeTempDirs();
});

test('Run now on a worker, which runs no jobs: answered 503 and audited 503', async () => {
  const srv = await serve(['--workers', '2']);
  const r = await call(srv.url, 'POST', '/admin/api/jobs/sample/run', { key: ADMIN });
  expect(r.status).toBe(503);
  expect(r.json).toEqual({ error: expect.stringMatching(/runs no mirror jobs/) });
  const [line] = await waitFor('the audit line of the run', () => (audits(srv).length ? audits(srv) : undefined));
  expect(line).toMatchObject({ what: 'run job sample', who: 'admin key #1', from: '127.0.0.1', status: 503, outcome: expect.stringMatching(/runs no mirror jobs/) });
  expect(JSON.stringify(audits(srv))).not.toContain(ADMIN);
});

test('Cancel of a job that is not running: answered 409 and audited 409', async () => {
  const srv = await serve();
  const r = await call(srv.url, 'POST', '/admin/api/jobs/sample/cancel', { key: ADMIN });
  expect(r.status).toBe(409);
  expect(r.json).toEqual({ error: expect.any(String), runningOn: null });
  const [line] = await waitFor('the audit line of the cancel', () => (audits(srv).length ? audits(srv) : undefined));
  expect(line).toMatchObject({ what: 'cancel job sample', who: 'admin key #1', status: 409, outcome: r.json.error });
});
