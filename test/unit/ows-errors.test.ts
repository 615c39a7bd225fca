import { ServiceError } from '../../src/errors';
import { errorReply } from '../../src/http/error-reply';
import { owsError, owsErrors } from '../../src/http/ows-errors';
import { HttpError } from '../../src/http/reply';
import { parseExceptionReport } from '../helpers/ows-exception';

// The WMTS routes' error dialect: every answer an ExceptionReport; the code and locator a handler named, or
// NoApplicableCode with the status the error had.

const answer = (err: unknown) => {
  const r = errorReply(err, owsErrors);
  return { status: r.status, type: r.type, cache: r.cache, headers: r.headers, exceptions: parseExceptionReport(String(r.body)).exceptions };
};
const TYPE = 'application/xml; charset=utf-8';

test('an exception a handler threw: KVP status of its code, or the status the binding chose', () => {
  expect(answer(owsError({ code: 'TileOutOfRange', locator: 'TileRow', text: 'out' }))).toEqual({ status: 400, type: TYPE, cache: 'none', headers: undefined, exceptions: [{ code: 'TileOutOfRange', locator: 'TileRow', text: 'out' }] });
  expect(answer(owsError({ code: 'OperationNotSupported', locator: 'GetFeatureInfo', text: 'no' })).status).toBe(501);
  expect(answer(owsError({ code: 'VersionNegotiationFailed', text: 'v' })).exceptions).toEqual([{ code: 'VersionNegotiationFailed', text: 'v' }]);
  expect(answer(owsError({ code: 'InvalidParameterValue', locator: 'Layer', text: 'x' }, 404))).toMatchObject({ status: 404, exceptions: [{ code: 'InvalidParameterValue', locator: 'Layer' }] });
});

test('any other error: NoApplicableCode with its status, headers kept, no locator', () => {
  expect(answer(new HttpError(403, 'Missing key'))).toMatchObject({ status: 403, exceptions: [{ code: 'NoApplicableCode', text: 'Missing key' }] });
  expect(answer(new ServiceError('too-busy', 'busy', 3))).toMatchObject({ status: 503, headers: { 'Retry-After': '3' }, exceptions: [{ code: 'NoApplicableCode', text: 'busy' }] });
  expect(answer(new TypeError('bug'))).toMatchObject({ status: 500, exceptions: [{ code: 'NoApplicableCode', text: 'Internal error' }] });
  // A code of another standard is not an OWS code: neither it nor its locator is written.
  const foreign = answer(new HttpError(400, 'x', undefined, { code: 'bad-thing', locator: 'y' }));
  expect([foreign.status, foreign.exceptions]).toEqual([400, [{ code: 'NoApplicableCode', text: 'x' }]]);
  expect(answer(new HttpError(403, 'Missing key')).exceptions).toEqual([{ code: 'NoApplicableCode', text: 'Missing key' }]);
});
