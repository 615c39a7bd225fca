// The WMS routes' error dialect: every error a ServiceExceptionReport (06-042 Annex E, 01-068r3's exception DTD),
// in the version the request asked for. A WMS exception (ogc/wms-exception.ts) is answered with the status of its
// code: 501 for an operation the server does not offer (as OWS Common answers OperationNotSupported), 400 for
// every other, all of which name something wrong in the request. Anything else (a refused key, a full queue, a
// bug) keeps its status and is reported without a code, as WMS does for errors it names no code for.

import { buildWmsExceptionReport, WMS_EXCEPTION_TYPE, type WmsException, type WmsVersion } from '../ogc/wms-exception';
import type { ErrorDialect } from './error-reply';
import type { Reply } from './reply';

const STATUS = { OperationNotSupported: 501 } as const;
const INVALID_REQUEST = 400;

/** The report that answers a WMS exception. */
export function wmsExceptionReply(e: WmsException, version: WmsVersion): Reply {
  return {
    status: (STATUS as Record<string, number>)[e.code] ?? INVALID_REQUEST,
    body: Buffer.from(buildWmsExceptionReport(e, version)),
    type: WMS_EXCEPTION_TYPE[version],
    cache: 'none',
  };
}

/** Any other error of a WMS route, as a 1.3.0 report without a code. */
export const wmsErrors: ErrorDialect = ({ status, message, headers }) => {
  return { status, body: Buffer.from(buildWmsExceptionReport({ text: message }, '1.3.0')), type: WMS_EXCEPTION_TYPE['1.3.0'], cache: 'none', headers };
};
