import { get, type IncomingHttpHeaders } from 'node:http';
import { resolve } from 'node:path';
import { parseConfig } from '../../src/config/load';
import { startTilemirror as start, type ServeOptions, type Tilemirror } from '../../src/serve';

export const SAMPLE_DIR = resolve(__dirname, '../../mirror');
export const KEY = 'demo';

export interface TestServer {
  url: string;
  close(): Promise<void>;
  server: Tilemirror;
}

/**
 * Starts the real server in this process on a free loopback port: the sample data directory and key `demo`
 * unless told otherwise. `config` is merged over that (same shape as the YAML file).
 */
export async function startServer(opts: { dataDir?: string; config?: Record<string, unknown>; serve?: ServeOptions } = {}): Promise<TestServer> {
  const data = opts.dataDir ?? SAMPLE_DIR;
  const raw: Record<string, unknown> = {
    server: { host: '127.0.0.1', port: 0, requestLog: false },
    data,
    keys: [{ key: KEY, plan: 'paid' }],
    logLevel: 'silent',
    ...opts.config,
    render: sampleRender(data, opts.config?.render),
    wms: sampleWms(data, opts.config?.wms),
  };
  const config = parseConfig(raw, 'test', process.cwd(), {});
  const server = await start(config, undefined, opts.serve);
  return {
    url: server.url,
    close: async () => {
      await server.close();
    },
    server,
  };
}

/**
 * The `render` section of a test server over `data`: over the shared sample, renders are drawn but never kept (test
 * files run side by side; one writing render stores into mirror/ would change what another copies from it).
 */
export function sampleRender(data: string, render: unknown): Record<string, unknown> {
  const given = render && typeof render === 'object' ? (render as Record<string, unknown>) : {};
  return resolve(data) === SAMPLE_DIR ? { keep: false, ...given } : given;
}

/** The `wms` section of a test server over `data`: over the shared sample, tiles of other grids are not kept (as renders). */
export function sampleWms(data: string, wms: unknown): Record<string, unknown> {
  const given = wms && typeof wms === 'object' ? (wms as Record<string, unknown>) : {};
  return resolve(data) === SAMPLE_DIR ? { keepGridTiles: false, ...given } : given;
}

/** A `server` section for startServer's `config` (loopback, a free port, no request log) with `extra` over it. */
export function serverConfig(extra: Record<string, unknown> = {}): { server: Record<string, unknown> } {
  return { server: { host: '127.0.0.1', port: 0, requestLog: false, ...extra } };
}

/** GET without any decoding by the client: the bytes and headers exactly as the server sent them. */
export function rawGet(url: string, headers: Record<string, string> = {}, localAddress?: string): Promise<{ status: number; headers: IncomingHttpHeaders; body: Buffer }> {
  return new Promise((resolvePromise, reject) => {
    get(url, { headers, localAddress }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolvePromise({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
      res.on('error', reject);
    }).on('error', reject);
  });
}

/** GET from a chosen loopback address (all of 127.0.0.0/8 is loopback on Linux: a client, a proxy, a site), as text. */
export async function getFrom(url: string, localAddress = '127.0.0.1', headers: Record<string, string> = {}): Promise<{ status: number; headers: IncomingHttpHeaders; text: string }> {
  const r = await rawGet(url, headers, localAddress);
  return { status: r.status, headers: r.headers, text: r.body.toString('utf8') };
}

/**
 * The sample server of a test file: started before its tests, closed after them (then `cleanup`, e.g. removing the
 * file's temporary folders). Read the server through the returned getter inside tests.
 */
export function sampleServerForFile(config?: Record<string, unknown>, cleanup?: () => void): () => TestServer {
  let srv: TestServer | undefined;
  beforeAll(async () => {
    srv = await startServer(config ? { config } : {});
  });
  afterAll(async () => {
    await srv?.close();
    cleanup?.();
  });
  return () => {
    if (!srv) throw new Error('the sample server is not started (use it inside a test)');
    return srv;
  };
}
