// OGC exception answers: a WMS ServiceExceptionReport (1.1.1 and 1.3.0) or an OWS ExceptionReport (WMTS, WCS),
// which MapProxy and GeoServer send with HTTP 200 in place of an image. Pure: the text the operator needs.

const HEAD = 4096;

/** The exception text of an OGC exception document, or undefined when the body is not one. */
export function ogcExceptionText(body: Buffer): string | undefined {
  const head = body.subarray(0, HEAD).toString('utf8').replace(/^\uFEFF/, '').trimStart();
  if (!head.startsWith('<') || !/<(?:\w+:)?(?:ServiceExceptionReport|ExceptionReport)\b/.test(head)) return undefined;
  const xml = body.subarray(0, 65536).toString('utf8');
  const texts: string[] = [];
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
    texts.push([c && `[${c}]`, text].filter(Boolean).join(' ') || '(no text)');
  }
  return texts.length > 0 ? texts.join('; ') : 'an exception report without an exception';
}
