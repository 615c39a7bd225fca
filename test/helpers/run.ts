// Running a program (a real client: GDAL, a Python script, a browser driver) as a child process from a test.
// Always asynchronously: a server under test may live in the jest process, and a synchronous spawn would block the
// event loop it answers from.
import { execFile } from 'node:child_process';

export interface RunResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  /** The command line, for failure messages. */
  command: string;
}

export async function run(
  cmd: string,
  args: string[],
  opts: { env?: NodeJS.ProcessEnv; cwd?: string; timeoutMs?: number } = {},
): Promise<RunResult> {
  const command = [cmd, ...args].map((a) => (/^[\w@%+=:,./-]+$/.test(a) ? a : `'${a.replace(/'/g, `'\\''`)}'`)).join(' ');
  return new Promise((resolve) => {
    execFile(
      cmd,
      args,
      {
        env: opts.env ?? process.env,
        cwd: opts.cwd,
        timeout: opts.timeoutMs ?? 45_000,
        maxBuffer: 64 * 1024 * 1024,
        encoding: 'utf8',
      },
      (error, stdout, stderr) => {
        const e = error as (Error & { code?: number | string; signal?: NodeJS.Signals }) | null;
        resolve({
          code: e ? (typeof e.code === 'number' ? e.code : -1) : 0,
          signal: e?.signal ?? null,
          stdout,
          stderr: e && typeof e.code !== 'number' ? `${stderr}\n${e.message}` : stderr,
          command,
        });
      },
    );
  });
}

/** Throws with the command, exit status and output when a client exits non-zero. */
export function assertOk(r: RunResult): RunResult {
  if (r.code !== 0) {
    throw new Error(
      `command failed (exit ${r.code}${r.signal ? `, signal ${r.signal}` : ''}): ${r.command}\n` +
        `--- stdout ---\n${r.stdout.slice(-4000)}\n--- stderr ---\n${r.stderr.slice(-4000)}`,
    );
  }
  return r;
}

/** Environment for clients: no proxy for the local server, GDAL without its on-disk tile cache or .aux.xml files. */
export function clientEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const k of ['http_proxy', 'HTTP_PROXY', 'https_proxy', 'HTTPS_PROXY', 'all_proxy', 'ALL_PROXY']) delete env[k];
  env.NO_PROXY = env.no_proxy = '127.0.0.1,localhost';
  env.GDAL_ENABLE_WMS_CACHE = 'NO';
  env.GDAL_PAM_ENABLED = 'NO';
  env.GDAL_HTTP_TIMEOUT = '30';
  env.CPL_VSIL_CURL_ALLOWED_EXTENSIONS = '';
  env.GDAL_DISABLE_READDIR_ON_OPEN = 'EMPTY_DIR';
  return { ...env, ...extra };
}
