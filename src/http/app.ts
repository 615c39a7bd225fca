import express from 'express';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { dirname } from 'node:path';
import type { Logger } from 'pino';
import type { Config } from '../config/schema';
import { RENDER_PAGE, RENDER_PAGE_PATH } from '../services/renderer/page';
import type { Catalog } from '../store/catalog/catalog';
import { Dispatcher, type TimedRequest } from './dispatch';
import { admit } from './backpressure';
import { Drain } from './drain';
import { ASSETS_ROUTE } from './metrics';
import { releaseOnClose } from './piped-streams';
import { dialectOfPath } from './path-dialect';
import { closeStalledSockets } from './stalled-sockets';
import { textReply } from './reply';
import { matchRoute, type Route } from './route-table';
import { routes as apiRoutes } from './routes';
import type { Services } from './service-root';

/** Longest request URI answered; the spec names 8192 bytes (414 above). */
export const MAX_URI_BYTES = 8192;

function splitUrl(url: string): [string, string] {
  const q = url.indexOf('?');
  return q < 0 ? [url, ''] : [url.slice(0, q), url.slice(q + 1)];
}

/** The Express app: static viewer assets and a plain 404 for anything else (the listener answers the route table). */
export function createApp(dispatcher: Dispatcher): express.Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  const maplibreDist = dirname(require.resolve('maplibre-gl/dist/maplibre-gl.mjs'));
  const swaggerUiDist = dirname(require.resolve('swagger-ui-dist/package.json'));
  // Static files are answered by Express itself, not through the dispatcher: log them when they finish
  // (a missing file falls through to the 404 answer, which the dispatcher logs).
  const logAssets = dispatcher.config.server.requestLog;
  const requests = dispatcher.services.metrics?.requests;
  app.use('/assets', (req, res, next) => {
    // A pipelined file answer whose connection closes before its turn must not keep its file open.
    releaseOnClose(req.socket, res);
    (req as TimedRequest).route = ASSETS_ROUTE;
    if (logAssets || requests) {
      res.once('finish', () => {
        if (res.statusCode >= 400) return;
        if (logAssets) dispatcher.logRequest(req, res.statusCode);
        const started = (req as TimedRequest).startedAt;
        const bytes = req.method === 'HEAD' ? 0 : Number(res.getHeader('Content-Length') ?? 0);
        if (requests && started !== undefined) requests.record(ASSETS_ROUTE, res.statusCode, bytes, started);
      });
    }
    next();
  });
  // The viewers' library files: public (no key), long-cached; the worker is loaded with `?v=...`, which static ignores.
  // `redirect: false`: serve-static answers a directory with a 301 to `dir/` that repeats the query, key and all,
  // in Location and the body; there is nothing to list, so a directory is simply not found.
  const assets = { maxAge: '1d', index: false, fallthrough: true, redirect: false } as const;
  app.use('/assets/maplibre-gl', express.static(maplibreDist, assets));
  // The renderer browsers' page (services/renderer/page.ts): no data and no key in it, like the library it loads.
  app.get(RENDER_PAGE_PATH, (_req: express.Request, res: express.Response) => void res.type('html').set('Cache-Control', 'no-store').send(RENDER_PAGE));
  // The /docs page's viewer (Swagger UI), shipped in npm: offline like the map viewer.
  app.use('/assets/swagger-ui', express.static(swaggerUiDist, assets));
  app.use((req: express.Request, res: express.Response) => {
    dispatcher.send(req, res, dialectOfPath(req.path)({ status: 404, message: 'Not found' }), { 'Access-Control-Allow-Origin': '*' });
  });
  // Express reaches here only for errors of its own (e.g. a static file read failing): answer, never crash.
  // A client error of serve-static (416 for a range past the end, 412 for a failed precondition) keeps its status.
  app.use((err: Error & { status?: unknown }, req: express.Request, res: express.Response, _next: express.NextFunction) => {
    res.locals.error = err;
    const status = err.status;
    if (typeof status === 'number' && status >= 400 && status < 500) return dispatcher.send(req, res, textReply(status, err.message));
    dispatcher.send(req, res, dispatcher.errorReply(err, req));
  });
  return app;
}

/**
 * The request listener: size and method checks, then the route table (matched here, in its order: Express's own
 * routing cost ~70 µs a request), then Express for the viewer's library files and the 404. Every request is
 * logged once, with the key redacted.
 */
export function createListener(config: Config, catalog: Catalog, log: Logger, services: Services, routes: readonly Route[] = apiRoutes): (req: IncomingMessage, res: ServerResponse) => void {
  const dispatcher = new Dispatcher(config, catalog, log, services, routes);
  // POST reaches only the routes that take it (the admin API's writes); GET and HEAD only the others.
  const readRoutes = routes.filter((r) => r.method === undefined);
  const postRoutes = routes.filter((r) => r.method === 'POST');
  const app = createApp(dispatcher);
  const stamp = config.server.requestLog || services.metrics !== undefined;
  return (req, res) => {
    // Every answer goes out through dispatcher.send (or the static files' hook), which logs and counts it with this stamp.
    if (stamp) (req as TimedRequest).startedAt = performance.now();
    // A UTF-16 unit is at most 3 bytes of UTF-8: most URLs are measured without encoding them.
    const target = req.url ?? '/';
    if (target.length * 3 > MAX_URI_BYTES && Buffer.byteLength(target) > MAX_URI_BYTES) {
      return dispatcher.send(req, res, dialectOfPath(target)({ status: 414, message: `URI too long (maximum ${MAX_URI_BYTES} bytes)` }));
    }
    const post = req.method === 'POST' && postRoutes.length > 0 && matchRoute(postRoutes, splitUrl(originForm(req) ?? '')[0]);
    if (post) {
      const [path, query] = splitUrl(req.url ?? '/');
      return dispatcher.run(post.route, 'badEncoding' in post ? undefined : post.params, req, res, path, query);
    }
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      const refused = { status: 405, message: 'Method not allowed: this API is read-only (GET, HEAD)', headers: { Allow: 'GET, HEAD' } };
      return dispatcher.send(req, res, dialectOfPath(target)(refused));
    }
    const url = originForm(req);
    if (url === undefined) return dispatcher.send(req, res, textReply(400, 'Bad request target: a path starting with "/", or an absolute http(s) URL'));
    const [path, query] = splitUrl(url);
    const found = matchRoute(readRoutes, path);
    if (found) return dispatcher.run(found.route, 'badEncoding' in found ? undefined : found.params, req, res, path, query);
    app(req, res);
  };
}

const ABSOLUTE_FORM = /^https?:\/\/([^/?#]*)/i;

/**
 * The request target in origin form (`/path?query`). An absolute-form target (`GET http://host/path HTTP/1.1`, as
 * some proxies send) is routed by its path; as RFC 9112 §3.2.2 requires, its authority replaces the Host header,
 * so links in documents are built from it exactly as from a Host header (same validation, same trust: the client
 * chose both). The authority is not checked against a list: this server answers whatever Host it is sent, and
 * a check here would refuse what the same request in origin form gets. Anything else (`*`, `foo`, `ftp://…`):
 * undefined, answered 400.
 */
function originForm(req: IncomingMessage): string | undefined {
  const url = req.url ?? '/';
  if (url.startsWith('/')) return url;
  const m = ABSOLUTE_FORM.exec(url);
  if (!m) return undefined;
  const rest = url.slice(m[0].length);
  const path = rest.startsWith('/') ? rest : `/${rest}`;
  if (m[1]) req.headers.host = m[1];
  // Express and the log read req.url: they see the same origin form.
  req.url = path;
  return path;
}

/** Logs connections closed for reading too slowly: at most one line a minute, with the count since the last. */
function slowReaderLog(log: Logger, minSendRate: number, minSendRateSeconds: number): () => void {
  let closed = 0;
  let loggedAt = -Infinity;
  return () => {
    closed += 1;
    const now = performance.now();
    if (now - loggedAt < 60_000) return;
    log.warn({ minSendRate, minSendRateSeconds, closed }, 'slow readers closed: they took their answers slower than server.minSendRate');
    loggedAt = now;
    closed = 0;
  };
}

export interface RunningServer {
  server: Server;
  url: string;
  /**
   * Stops accepting and closes every connection once its response is out, waiting at most `graceMs` for them
   * (default 0: everything is cut at once). Resolves true when nothing had to be cut.
   */
  close(graceMs?: number): Promise<boolean>;
}

/** Starts serving on the configured host and port (port 0 picks a free one). */
export function listen(config: Config, catalog: Catalog, log: Logger, services: Services): Promise<RunningServer> {
  const listener = createListener(config, catalog, log, services);
  // Node's default header limit (16 KiB) would answer 431 before we could say 414 for long URIs.
  const server = createServer({ maxHeaderSize: 64 * 1024, keepAliveTimeout: 65_000 }, (req, res) => {
    drain.mark(res);
    admit(req, res, () => listener(req, res));
  });
  // A connection with no traffic either way for this long is closed (stalled-sockets.ts: not with server.timeout,
  // whose per-request timer work cost more than the check), and so is one that reads its answers too slowly.
  const { socketTimeoutSeconds, minSendRate, minSendRateSeconds } = config.server;
  closeStalledSockets(server, socketTimeoutSeconds * 1000, { bytesPerSecond: minSendRate, windowMs: minSendRateSeconds * 1000, onClosed: slowReaderLog(log, minSendRate, minSendRateSeconds) });
  const drain = new Drain(server);
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.server.port, config.server.host, () => {
      const addr = server.address();
      const port = typeof addr === 'object' && addr ? addr.port : config.server.port;
      const host = config.server.host.includes(':') ? `[${config.server.host}]` : config.server.host;
      resolve({
        server,
        url: `http://${host === '0.0.0.0' ? '127.0.0.1' : host}:${port}`,
        close: (graceMs = 0) => drain.close(graceMs),
      });
    });
  });
}
