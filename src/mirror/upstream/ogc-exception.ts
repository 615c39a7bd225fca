// OGC exception answers: a WMS ServiceExceptionReport (1.1.1 and 1.3.0) or an OWS ExceptionReport (WMTS, WCS),
// which MapProxy and GeoServer send with HTTP 200 in place of an image. Pure: the text the operator needs, and
// whether a retry can help.

const HEAD = 4096;

/**
 * Exception codes that name a fault in the request (WMS 1.1.1/1.3.0, OWS 1.1, WMTS 1.0): the same request gets
 * the same answer, so a retry cannot help. Everything else — no code, `NoApplicableCode`, a server's own code —
 * is the server's trouble (MapProxy's "Could not get any sources" when its own source is down) and may pass.
 */
const REQUEST_FAULTS = new Set([
  'InvalidFormat',
  'InvalidCRS',
  'InvalidSRS',
  'LayerNotDefined',
  'StyleNotDefined',
  'LayerNotQueryable',
  'InvalidPoint',
  'CurrentUpdateSequence',
  'InvalidUpdateSequence',
  'MissingDimensionValue',
  'InvalidDimensionValue',
  'OperationNotSupported',
  'MissingParameterValue',
  'InvalidParameterValue',
  'VersionNegotiationFailed',
  'OptionNotSupported',
  'TileOutOfRange',
]);

export interface OgcException {
  /** What the operator needs: each exception's code in brackets and its text. */
  text: string;
  /** True when a code names a fault in the request: asking again gets the same answer. */
  permanent: boolean;
}

/** The exception text of an OGC exception document, or undefined when the body is not one. */
export function ogcExceptionText(body: Buffer): string | undefined {
  return ogcException(body)?.text;
}

/** An OGC exception document's text and whether it is permanent, or undefined when the body is not one. */
export function ogcException(body: Buffer): OgcException | undefined {
  const head = body.subarray(0, HEAD).toString('utf8').replace(/^\uFEFF/, '').trimStart();
  if (!head.startsWith('<') || !/<(?:\w+:)?(?:ServiceExceptionReport|ExceptionReport)\b/.test(head)) return undefined;
  const xml = body.subarray(0, 65536).toString('utf8');
  const texts: string[] = [];
  let permanent = false;
  const re = /<(?:\w+:)?(ServiceException|Exception)\b([^>]*?)(?:\/>|>([\s\S]*?)<\/(?:\w+:)?\1>)/g;
  for (let m = re.exec(xml); m && texts.length < 5; m = re.exec(xml)) {
    const code = /\bexceptionCode="([^"]*)"|\bcode="([^"]*)"/.exec(m[2]);
    const inner = (m[3] ?? '').replace(/<(?:\w+:)?ExceptionText>([\s\S]*?)<\/(?:\w+:)?ExceptionText>/g, '$1');
    const text = inner
      .replace(/<!\[CDATA\[([\s\S]*?)\]\]>/g, '$1')
      .replace(/<[^>]+>/g, ' ')
      .replace(/&lt;/g, '<')
      .replace(/&gt;/g, '>')
      .replace(/&quot;/g, '"')
      .replace(/&apos;/g, "'")
      .replace(/&amp;/g, '&')
      .replace(/\s+/g, ' ')
      .trim();
    const c = code?.[1] ?? code?.[2];
    if (c !== undefined && REQUEST_FAULTS.has(c)) permanent = true;
    texts.push([c && `[${c}]`, text].filter(Boolean).join(' ') || '(no text)');
  }
  return { text: texts.length > 0 ? texts.join('; ') : 'an exception report without an exception', permanent };
}
