// The Accept request header (RFC 9110 §12.5.1): whether a client takes one of the media types an answer can have.

/**
 * True when the header is absent or empty (the client takes anything), or when one of its media ranges with a
 * q above 0 matches one of `types` (`type/subtype`, `type/*` or `*\/*`; parameters other than q are ignored).
 */
export function acceptsAny(header: string | string[] | undefined, types: readonly string[]): boolean {
  const value = Array.isArray(header) ? header.join(',') : header;
  if (value === undefined || value.trim() === '') return true;
  const wanted = types.map((t) => t.toLowerCase().split('/'));
  return value.split(',').some((range) => {
    const [mediaRange, ...params] = range.split(';').map((s) => s.trim().toLowerCase());
    const q = params.find((p) => /^q\s*=/.test(p));
    if (q !== undefined && !(Number(q.replace(/^q\s*=\s*/, '')) > 0)) return false;
    const [type, subtype] = mediaRange.split('/');
    if (!type || subtype === undefined) return false;
    return wanted.some(([t, s]) => (type === '*' || type === t) && (subtype === '*' || subtype === s));
  });
}
