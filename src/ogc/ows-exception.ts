// OWS Common 1.1 exception reports (OGC 06-121r3 §8, owsExceptionReport.xsd), as WMTS 1.0 answers its errors
// (OGC 07-057r7 §7.1.2, §7.2.2, §8.4). Pure: exceptions in, XML text out.

/**
 * The exception codes of OWS Common (06-121r3 Table 25) and the one WMTS adds for GetTile (07-057r7 Table 23).
 * The locator of each: the name of the missing, invalid or out-of-range parameter (as the request encoding writes
 * it), the name of the operation not supported; none for VersionNegotiationFailed, InvalidUpdateSequence and
 * NoApplicableCode.
 */
export type OwsExceptionCode =
  | 'OperationNotSupported'
  | 'MissingParameterValue'
  | 'InvalidParameterValue'
  | 'VersionNegotiationFailed'
  | 'InvalidUpdateSequence'
  | 'OptionNotSupported'
  | 'TileOutOfRange'
  | 'NoApplicableCode';

/** One detected error: its code, the parameter (or operation) it concerns, and a short text for people. */
export interface OwsException {
  code: OwsExceptionCode;
  locator?: string;
  text: string;
}

/**
 * The HTTP status of each code in a KVP answer: 07-057r7 Tables 21 (GetCapabilities) and 24 (GetTile), 06-121r3
 * Table 28. NoApplicableCode takes the status of what happened (3xx, 4xx or 5xx); 500 when nothing else says.
 */
export const OWS_EXCEPTION_STATUS: Readonly<Record<OwsExceptionCode, number>> = {
  OperationNotSupported: 501,
  MissingParameterValue: 400,
  InvalidParameterValue: 400,
  VersionNegotiationFailed: 400,
  InvalidUpdateSequence: 400,
  OptionNotSupported: 501,
  TileOutOfRange: 400,
  NoApplicableCode: 500,
};

const OWS_NS = 'http://www.opengis.net/ows/1.1';
const OWS_SCHEMA = 'http://schemas.opengis.net/ows/1.1.0/owsExceptionReport.xsd';

// XML 1.0 forbids most control characters even when escaped; user text (a parameter value quoted back) loses them.
// eslint-disable-next-line no-control-regex
const XML_INVALID = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]/g;
const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;' };
const escape = (s: string): string => s.replace(XML_INVALID, '').replace(/[&<>"']/g, (c) => ESCAPES[c]);

/**
 * An ows:ExceptionReport of one or more exceptions. `version` is the version of the service's standard the
 * request was for (WMTS: 1.0.0); the language of the texts is English. The HTTP status of the answer follows the
 * first exception (07-057r7, the notes to Tables 21 and 24): the caller decides it.
 */
export function buildOwsExceptionReport(exceptions: readonly OwsException[], version = '1.0.0'): string {
  if (exceptions.length === 0) throw new RangeError('an exception report holds at least one exception');
  const items = exceptions.map((e) => {
    const locator = e.locator === undefined ? '' : ` locator="${escape(e.locator)}"`;
    return `  <ows:Exception exceptionCode="${e.code}"${locator}>\n    <ows:ExceptionText>${escape(e.text)}</ows:ExceptionText>\n  </ows:Exception>\n`;
  });
  return (
    '<?xml version="1.0" encoding="UTF-8"?>\n' +
    `<ows:ExceptionReport xmlns:ows="${OWS_NS}" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" ` +
    `xsi:schemaLocation="${OWS_NS} ${OWS_SCHEMA}" version="${escape(version)}" xml:lang="en">\n` +
    items.join('') +
    '</ows:ExceptionReport>\n'
  );
}
