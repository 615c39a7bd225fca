// The WMTS routes' error dialect: every error answer an OWS 1.1 ExceptionReport (OGC 06-121r3 §8, 07-057r7
// §8.4), and the errors WMTS handlers throw to name the exception code and locator.
//
// An answer that carries no code of its own (a refused key, an unknown resource, a store that cannot be read, a
// bug) is NoApplicableCode with the status it had: OWS lets NoApplicableCode take any 3xx, 4xx or 5xx status
// (06-121r3 Table 28).

import { buildOwsExceptionReport, OWS_EXCEPTION_STATUS, type OwsException, type OwsExceptionCode } from '../ogc/ows-exception';
import { KIND_STATUS, type ErrorDialect } from './error-reply';
import { HttpError } from './reply';

/** application/xml, as the OWS Common examples answer their exception reports. */
export const OWS_EXCEPTION_TYPE = 'application/xml; charset=utf-8';

const CODES = new Set<string>(Object.keys(OWS_EXCEPTION_STATUS));
const isOwsCode = (code: string | undefined): code is OwsExceptionCode => code !== undefined && CODES.has(code);

/** Words any error answer as an ExceptionReport of one exception, never cached. */
export const owsErrors: ErrorDialect = ({ status, message, headers, code, locator }) => {
  const exception: OwsException = isOwsCode(code) ? { code, text: message } : { code: 'NoApplicableCode', text: message };
  if (isOwsCode(code) && locator !== undefined) exception.locator = locator;
  return { status, body: Buffer.from(buildOwsExceptionReport([exception])), type: OWS_EXCEPTION_TYPE, cache: 'none', headers };
};

/**
 * The error that answers an exception: in a KVP request with the status the standards give its code (07-057r7
 * Tables 21 and 24, 06-121r3 Table 28), or with `status` when the binding decides otherwise (RESTful: 404).
 */
export function owsError(exception: OwsException, status: number = OWS_EXCEPTION_STATUS[exception.code]): HttpError {
  return new HttpError(status, exception.text, undefined, exception.locator === undefined ? { code: exception.code } : { code: exception.code, locator: exception.locator });
}

/**
 * The error that answers an exception in a RESTful request: `not-found` whatever its code, as a URL that names no
 * tile names no resource (the HTTP semantics 07-057r7 §7.1.3 and §7.2 point RESTful errors at).
 */
export function owsRestError(exception: OwsException): HttpError {
  return owsError(exception, KIND_STATUS['not-found']);
}
