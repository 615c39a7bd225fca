import { ServiceError } from '../../src/errors';
import { errorReply } from '../../src/http/error-reply';
import { owsErrors } from '../../src/http/ows-errors';
import { problemErrors } from '../../src/http/problem-errors';
import { adminErrors } from '../../src/http/routes/admin-auth';

// The kinds routes throw instead of naming a status: each answered with its status by the one mapping, in every
// dialect; the details an error carries reach the admin API's JSON and no other dialect's body.

const text = (status: number, body: string, headers?: Record<string, string>) => ({ status, body: Buffer.from(`${body}\n`), type: 'text/plain; charset=utf-8', cache: 'none', headers });

test('forbidden 403, not-acceptable 406, conflict 409, no-space 507', () => {
  expect(errorReply(new ServiceError('forbidden', 'Not an admin key'))).toEqual(text(403, 'Not an admin key'));
  expect(errorReply(new ServiceError('conflict', 'job j is not running'))).toEqual(text(409, 'job j is not running'));
  expect(errorReply(new ServiceError('no-space', 'not enough space on the data volume'))).toEqual(text(507, 'not enough space on the data volume'));
});

test('not acceptable: 406, and the answer says it depends on Accept', () => {
  expect(errorReply(new ServiceError('not-acceptable', 'Not acceptable: XML only'))).toEqual(text(406, 'Not acceptable: XML only', { Vary: 'Accept' }));
  const ows = errorReply(new ServiceError('not-acceptable', 'Not acceptable: XML only'), owsErrors);
  expect(ows.status).toBe(406);
  expect(ows.headers).toEqual({ Vary: 'Accept' });
});

test('the same kinds in the problem-details and OWS dialects', () => {
  for (const [kind, status] of [['forbidden', 403], ['not-acceptable', 406], ['conflict', 409], ['no-space', 507]] as const) {
    expect([kind, errorReply(new ServiceError(kind, 'm'), problemErrors).status]).toEqual([kind, status]);
    expect([kind, JSON.parse(String(errorReply(new ServiceError(kind, 'm'), problemErrors).body)).status]).toEqual([kind, status]);
    expect([kind, errorReply(new ServiceError(kind, 'm'), owsErrors).status]).toEqual([kind, status]);
  }
});

test("details go into the admin API's JSON beside the error, and nowhere else", () => {
  const conflict = new ServiceError('conflict', 'job j is already running on host-1', undefined, { runningOn: 'host-1' });
  const admin = errorReply(conflict, adminErrors);
  expect(admin.status).toBe(409);
  expect(JSON.parse(String(admin.body))).toEqual({ error: 'job j is already running on host-1', runningOn: 'host-1' });
  expect(admin.headers).toMatchObject({ 'Cache-Control': 'no-store' });
  expect(errorReply(conflict)).toEqual(text(409, 'job j is already running on host-1'));
  expect(JSON.parse(String(errorReply(conflict, problemErrors).body))).toEqual({ type: 'about:blank', title: 'Conflict', status: 409, detail: 'job j is already running on host-1' });
});
