import type { Logger } from 'pino';

// The one log line every request writes. pino's generic path (merge the object, walk its keys, look up
// serializers, escape each string) cost ~2.4 µs a line in the serve profile, for a line whose shape never changes.
// For a logger made by `createLogger` (server.ts), whose options are known (no base, no mixin, no formatters, no
// serializers for these keys), the line is written as pino would write it, straight to its destination. Any other
// logger (a test's, a child) goes through pino. test/unit/request-log.test.ts holds both to the same bytes.

/** Where a logger's lines go, for the loggers whose line format this module knows (registered by createLogger). */
const directOut = new WeakMap<Logger, { write(line: string): unknown }>();

/** Marks `log` as plain (made with `{ base: undefined }` and nothing else) and writing to `destination`. */
export function registerPlainLogger(log: Logger, destination: { write(line: string): unknown }): void {
  directOut.set(log, destination);
}

/** pino's numeric level for `info`. */
const INFO = 30;

/** The method of nearly every line, written once. */
const GET = ',"method":"GET"';

export type RequestLine = (method: string | undefined, url: string, status: number, ms: number | undefined) => void;

/** Writes `{"level":30,"time":…,"method":…,"url":…,"status":…,"ms":…,"msg":"request"}` for each request. */
export function requestLineWriter(log: Logger): RequestLine {
  const out = directOut.get(log);
  if (!out) return (method, url, status, ms) => log.info({ method, url, status, ms }, 'request');
  return (method, url, status, ms) => {
    // Read per line: a level changed at run time (log.level = 'warn') is honoured at once.
    if (log.levelVal > INFO) return;
    out.write(
      `{"level":30,"time":${Date.now()}${method === 'GET' ? GET : method === undefined ? '' : `,"method":${JSON.stringify(method)}`},"url":${JSON.stringify(url)},` +
        `"status":${status}${ms === undefined ? '' : `,"ms":${ms}`},"msg":"request"}\n`,
    );
  };
}
