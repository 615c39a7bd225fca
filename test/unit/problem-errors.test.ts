import { ServiceError } from '../../src/errors';
import { errorReply } from '../../src/http/error-reply';
import { problemErrors } from '../../src/http/problem-errors';
import { HttpError } from '../../src/http/reply';
import { RenderQueueFull } from '../../src/services/static-maps';
import { DamagedTileError } from '../../src/store/bytes/plain-tiles';

// The OGC API routes' dialect: every error answer a problem details document (RFC 9457) in application/problem+json,
// never cached, with the status of the one error mapping (error-reply.ts) and its message as the detail.

const problem = (status: number, title: string, detail: string, headers?: Record<string, string>) => ({
  status,
  body: Buffer.from(JSON.stringify({ type: 'about:blank', title, status, detail })),
  type: 'application/problem+json',
  cache: 'none',
  headers,
});

test.each([
  [new HttpError(400, 'Invalid tileMatrix: expected the identifier of a tile matrix of the set, 0 to 24'), problem(400, 'Bad Request', 'Invalid tileMatrix: expected the identifier of a tile matrix of the set, 0 to 24')],
  [new HttpError(403, 'Missing key'), problem(403, 'Forbidden', 'Missing key')],
  [new HttpError(404, 'Unknown collection: maps.nope'), problem(404, 'Not Found', 'Unknown collection: maps.nope')],
  [new ServiceError('unavailable', 'The index is not built'), problem(503, 'Service Unavailable', 'The index is not built')],
  [new ServiceError('abandoned', 'gone'), problem(499, 'Client Closed Request', 'gone')],
  [new DamagedTileError('damaged tile 3/1/2: incorrect header check'), problem(500, 'Internal Server Error', 'Damaged tile: the stored tile cannot be decompressed')],
  [new RenderQueueFull(3, 7), problem(503, 'Service Unavailable', 'Too many static maps waiting to be rendered (3); retry in 7 s', { 'Retry-After': '7' })],
])('%s', (err, expected) => {
  expect(errorReply(err, problemErrors)).toEqual(expected);
});

test('an unexpected error: 500 "Internal error", the caller told', () => {
  const told: unknown[] = [];
  expect(errorReply(new TypeError('x is undefined'), problemErrors, (e) => told.push(e))).toEqual(problem(500, 'Internal Server Error', 'Internal error'));
  expect(told).toHaveLength(1);
});
