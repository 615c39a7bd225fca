// The upstream key must never leave the process: not in a log line, an error message, progress output or a
// stored document. Every string that may hold a URL goes through one redactor before it is printed.

/** Query parameters that carry credentials in the upstream's URLs (MapTiler uses `key`). */
const SECRET_PARAMS = /([?&](?:key|access_token|api_key|apikey|token)=)[^&#\s"'<>]*/gi;
/** The password of a URL's user info (`redis://:password@host`, `https://user:password@host`). */
const URL_PASSWORD = /(\b[a-z][a-z0-9+.-]*:\/\/[^\s/?#@:]*:)[^\s/?#@]+@/gi;

export type Redactor = (text: string) => string;

/**
 * Returns a function that hides `key=` style query values and every literal occurrence of the given
 * secrets (raw and percent-encoded), so even a key echoed in an upstream error body is caught.
 */
export function createRedactor(...secrets: (string | undefined)[]): Redactor {
  const literals = new Set<string>();
  for (const s of secrets) {
    if (!s) continue;
    literals.add(s);
    literals.add(encodeURIComponent(s));
  }
  // Longest first, so a secret that contains another is replaced whole.
  const sorted = [...literals].sort((a, b) => b.length - a.length);
  return (text: string): string => {
    let out = text.replace(SECRET_PARAMS, '$1***').replace(URL_PASSWORD, '$1***@');
    for (const s of sorted) if (s.length > 0) out = out.split(s).join('***');
    return out;
  };
}
