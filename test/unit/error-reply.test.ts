import { ServiceError } from '../../src/errors';
import { errorReply, type ErrorDialect } from '../../src/http/error-reply';
import { HttpError } from '../../src/http/reply';
import { RenderQueueFull } from '../../src/services/static-maps';
import { DamagedTileError } from '../../src/store/bytes/plain-tiles';

// The one mapping of errors to answers: the status of each kind, the body and headers the cloud API's dialect
// words them in, and the 500 of anything unexpected (told to the caller, who logs it).

const text = (status: number, body: string, headers?: Record<string, string>) => ({ status, body: Buffer.from(`${body}\n`), type: 'text/plain; charset=utf-8', cache: 'none', headers });

test('each kind has its status; the message is the body', () => {
  expect(errorReply(new ServiceError('invalid', 'Invalid x: no'))).toEqual(text(400, 'Invalid x: no'));
  expect(errorReply(new ServiceError('not-found', 'No such thing'))).toEqual(text(404, 'No such thing'));
  expect(errorReply(new ServiceError('abandoned', 'gone'))).toEqual(text(499, 'gone'));
  expect(errorReply(new ServiceError('unavailable', 'The index is not built'))).toEqual(text(503, 'The index is not built'));
});

test('too busy: 503 with Retry-After when the error says when', () => {
  expect(errorReply(new RenderQueueFull(3, 7))).toEqual(text(503, 'Too many static maps waiting to be rendered (3); retry in 7 s', { 'Retry-After': '7' }));
  expect(errorReply(new ServiceError('too-busy', 'busy'))).toEqual(text(503, 'busy'));
});

test("damaged data: 500 with a fixed text, never the store's own message", () => {
  expect(errorReply(new DamagedTileError('damaged tile 3/1/2: incorrect header check'))).toEqual(text(500, 'Damaged tile: the stored tile cannot be decompressed'));
  expect(errorReply(new ServiceError('damaged', 'internal detail'))).toEqual(text(500, 'Damaged tile: the stored tile cannot be decompressed'));
});

test("http's own errors keep their status, message and headers", () => {
  expect(errorReply(new HttpError(405, 'Method not allowed', { Allow: 'GET, HEAD' }))).toEqual(text(405, 'Method not allowed', { Allow: 'GET, HEAD' }));
});

test('anything else: the caller is told, the client gets 500 "Internal error"', () => {
  const told: unknown[] = [];
  const bug = new TypeError('x is undefined');
  expect(errorReply(bug, undefined, (err) => told.push(err))).toEqual(text(500, 'Internal error'));
  expect(told).toEqual([bug]);
  // Expected errors are not reported as failures.
  errorReply(new ServiceError('invalid', 'bad'), undefined, (err) => told.push(err));
  expect(told).toEqual([bug]);
});

test('a dialect words the same answer its own way', () => {
  const json: ErrorDialect = ({ status, message, kind }) => ({ status, body: Buffer.from(JSON.stringify({ status, kind, message })), type: 'application/json', cache: 'none' });
  const reply = errorReply(new ServiceError('invalid', 'Invalid x: no'), json);
  expect(reply.status).toBe(400);
  expect(JSON.parse(String(reply.body))).toEqual({ status: 400, kind: 'invalid', message: 'Invalid x: no' });
});
