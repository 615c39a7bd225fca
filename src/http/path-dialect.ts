// The error dialect of a request no route answers: a path nothing matched, a method or a URI refused before
// routing. A client of one API family reads that family's errors wherever it errs, so the path's family decides:
// OGC API problem details under /ogc, OWS ExceptionReports for WMTS paths, the cloud API's plain text elsewhere.

import { cloudErrors, type ErrorDialect } from './error-reply';
import { owsErrors } from './ows-errors';
import { problemErrors } from './problem-errors';

const under = (path: string, root: string): boolean => path === root || path.startsWith(`${root}/`) || path.startsWith(`${root}?`);

export function dialectOfPath(path: string): ErrorDialect {
  if (under(path, '/ogc')) return problemErrors;
  if (under(path, '/wmts') || /\/WMTSCapabilities\.xml(?:\?|$)/.test(path)) return owsErrors;
  return cloudErrors;
}
