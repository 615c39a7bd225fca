// Shared helpers of the interop suite: real clients (GDAL, OWSLib, OpenLayers, xmllint) run against the
// real server, and what they fetch is compared pixel by pixel with the tile stored in the .mbtiles file.
//
// Clients run as child processes, always asynchronously: the server under test lives in the jest
// process, so a synchronous spawn would block the event loop the server answers from.
import { execFile, execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import sharp from 'sharp';
import { XMLParser } from 'fast-xml-parser';
import { clientsRequired, which, type ClientCheck } from '../helpers/clients';
import { startServer } from '../helpers/server';

export const REPO_ROOT = path.resolve(__dirname, '..', '..');
/** The data directory the server serves and the stored tiles are read from (override: TILEMIRROR_TEST_MIRROR). */
export const MIRROR_DIR = process.env.TILEMIRROR_TEST_MIRROR ?? path.join(REPO_ROOT, 'mirror');
export const API_KEY = 'demo';

/** Half the width of the Web Mercator world in metres (EPSG:3857). */
export const MERCATOR_HALF = 20037508.342789244;

// ---------------------------------------------------------------------------------------------
// Clients: present, missing, required (test/helpers/clients.ts; re-exported for the interop tests)
// ---------------------------------------------------------------------------------------------

export { clientsRequired, gatedTest, missingPartsSync, SYSTEM_PYTHON, which, type ClientCheck, type GatedTest } from '../helpers/clients';

// ---------------------------------------------------------------------------------------------
// Child processes
// ---------------------------------------------------------------------------------------------

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

/** A private temporary directory (in `base`, the system's temporary directory by default), removed by the returned cleanup. */
export function makeTempDir(prefix: string, base: string = tmpdir()): { dir: string; cleanup: () => void } {
  const dir = mkdtempSync(path.join(base, `tilemirror-${prefix}-`));
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

// ---------------------------------------------------------------------------------------------
// Stored tiles (MBTiles: tile_row counted from the south)
// ---------------------------------------------------------------------------------------------

export interface TileAddress {
  z: number;
  x: number;
  /** XYZ row, counted from the north (as WMTS TileRow and OGC API tileRow). */
  y: number;
}

export function tmsRow(z: number, y: number): number {
  return 2 ** z - 1 - y;
}

/** Absolute path of a store of the bundled sample, e.g. storePath('maps/sample.mbtiles'). */
export function storePath(rel: string): string {
  return path.join(MIRROR_DIR, rel);
}

/** The sample's stores the interop tests compare clients' tiles with. */
export const MAP_STORE = storePath('maps/sample.mbtiles');
export const TERRAIN_STORE = storePath('tiles/sample-terrain.mbtiles');
export const VECTOR_STORE = storePath('tiles/sample-vector.mbtiles');
/** The sample's weather variable: its WMTS layer, and the keyframe tile set of each of its times. */
export const WEATHER_LAYER = 'weather/temperature-2m.sample';
export const KEYFRAMES = [
  { time: '2024-01-01T00:00:00Z', store: storePath('tiles/sample-temperature-0000.mbtiles') },
  { time: '2024-01-01T06:00:00Z', store: storePath('tiles/sample-temperature-0600.mbtiles') },
] as const;

function openReadOnly(file: string): Database.Database {
  return new Database(file, { readonly: true, fileMustExist: true });
}

/** Name of the pyramid held in the MBTiles `tiles` table (tilemirror's first pyramid), if the store says. */
function mainPyramidName(db: Database.Database): string | undefined {
  try {
    const row = db.prepare('SELECT name FROM tilemirror_pyramids ORDER BY ord LIMIT 1').get() as { name: string } | undefined;
    return row?.name;
  } catch {
    return undefined;
  }
}

/** SQL source of the tiles of one pyramid: the MBTiles `tiles` table for the main one, tilemirror_tiles otherwise. */
function pyramidSource(db: Database.Database, pyramid?: string): { where: string; params: unknown[] } {
  if (pyramid === undefined || pyramid === mainPyramidName(db)) return { where: 'tiles WHERE', params: [] };
  return { where: 'tilemirror_tiles WHERE pyramid = ? AND', params: [pyramid] };
}

/** The bytes of one stored tile, read straight from the store file (XYZ address). */
export function readStoredTile(file: string, t: TileAddress, pyramid?: string): Buffer {
  const db = openReadOnly(file);
  try {
    const src = pyramidSource(db, pyramid);
    const row = db
      .prepare(`SELECT tile_data FROM ${src.where} zoom_level = ? AND tile_column = ? AND tile_row = ?`)
      .get(...src.params, t.z, t.x, tmsRow(t.z, t.y)) as { tile_data: Buffer } | undefined;
    if (!row) throw new Error(`no tile ${t.z}/${t.x}/${t.y} (pyramid ${pyramid ?? 'main'}) in ${file}`);
    return row.tile_data;
  } finally {
    db.close();
  }
}

/** MBTiles `metadata` as a map. */
export function readMetadata(file: string): Record<string, string> {
  const db = openReadOnly(file);
  try {
    const rows = db.prepare('SELECT name, value FROM metadata').all() as { name: string; value: string }[];
    return Object.fromEntries(rows.map((r) => [r.name, r.value]));
  } finally {
    db.close();
  }
}

/** Web Mercator bounds of an XYZ tile: [minX, minY, maxX, maxY] in metres. */
export function tileBounds3857(t: TileAddress): [number, number, number, number] {
  const size = (2 * MERCATOR_HALF) / 2 ** t.z;
  const minX = -MERCATOR_HALF + t.x * size;
  const maxY = MERCATOR_HALF - t.y * size;
  return [minX, maxY - size, minX + size, maxY];
}

/** WGS 84 bounds [west, south, east, north] of an XYZ tile. */
export function tileBoundsLonLat(t: TileAddress): [number, number, number, number] {
  const n = 2 ** t.z;
  const lon = (x: number) => (x / n) * 360 - 180;
  const lat = (y: number) => (Math.atan(Math.sinh(Math.PI * (1 - (2 * y) / n))) * 180) / Math.PI;
  return [lon(t.x), lat(t.y + 1), lon(t.x + 1), lat(t.y)];
}

/**
 * A stored tile worth comparing: at zoom z, not on the edge of the world, inside `inside` (lon/lat bounds)
 * when given, and the largest one there (most detail, so a wrong tile cannot pass by accident).
 */
export function pickTile(file: string, z: number, opts: { pyramid?: string; inside?: [number, number, number, number] } = {}): TileAddress {
  const db = openReadOnly(file);
  try {
    const src = pyramidSource(db, opts.pyramid);
    const rows = db
      .prepare(`SELECT tile_column AS x, tile_row AS r, length(tile_data) AS n FROM ${src.where} zoom_level = ? ORDER BY n DESC, x, r`)
      .all(...src.params, z) as { x: number; r: number; n: number }[];
    const n = 2 ** z;
    const candidates = rows
      .map((row) => ({ z, x: row.x, y: tmsRow(z, row.r) }))
      .filter((t) => n < 4 || (t.x > 0 && t.x < n - 1 && t.y > 0 && t.y < n - 1))
      .filter((t) => {
        if (!opts.inside) return true;
        const [w, s, e, no] = tileBoundsLonLat(t);
        const [bw, bs, be, bn] = opts.inside;
        return w >= bw && e <= be && s >= bs && no <= bn;
      });
    if (!candidates.length) throw new Error(`no suitable tile at z${z} (pyramid ${opts.pyramid ?? 'main'}) in ${file}`);
    return candidates[0];
  } finally {
    db.close();
  }
}

// ---------------------------------------------------------------------------------------------
// Pixels
// ---------------------------------------------------------------------------------------------

export interface RGBA {
  width: number;
  height: number;
  data: Buffer;
}

/** Decodes any image sharp reads into raw 8-bit RGBA (alpha 255 added where the image has none). */
export async function decodeRGBA(input: Buffer | string): Promise<RGBA> {
  const { data, info } = await sharp(input).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
  if (info.channels !== 4) throw new Error(`expected 4 channels after ensureAlpha, got ${info.channels}`);
  return { width: info.width, height: info.height, data };
}

export interface PixelDiff {
  sameSize: boolean;
  size: string;
  /** Number of pixels whose RGBA differs by more than the tolerance in some channel. */
  differing: number;
  /** Largest channel difference found. */
  maxDelta: number;
  firstDifference?: string;
}

export function comparePixels(actual: RGBA, expected: RGBA, tolerance = 0): PixelDiff {
  const size = `${actual.width}x${actual.height} vs expected ${expected.width}x${expected.height}`;
  if (actual.width !== expected.width || actual.height !== expected.height) {
    return { sameSize: false, size, differing: -1, maxDelta: -1 };
  }
  let differing = 0;
  let maxDelta = 0;
  let firstDifference: string | undefined;
  for (let i = 0; i < expected.data.length; i += 4) {
    let worst = 0;
    for (let c = 0; c < 4; c++) worst = Math.max(worst, Math.abs(actual.data[i + c] - expected.data[i + c]));
    if (worst > maxDelta) maxDelta = worst;
    if (worst > tolerance) {
      differing++;
      if (!firstDifference) {
        const p = i / 4;
        firstDifference =
          `pixel (${p % expected.width}, ${Math.floor(p / expected.width)}): ` +
          `got [${[...actual.data.subarray(i, i + 4)].join(',')}] expected [${[...expected.data.subarray(i, i + 4)].join(',')}]`;
      }
    }
  }
  return { sameSize: true, size, differing, maxDelta, firstDifference };
}

/** Asserts that an image a client produced has exactly the stored tile's pixels (within `tolerance` per channel). */
export async function expectSamePixels(actual: Buffer | string, expected: Buffer, label: string, tolerance = 0): Promise<void> {
  const [a, e] = await Promise.all([decodeRGBA(actual), decodeRGBA(expected)]);
  if (isUniform(e)) throw new Error(`${label}: the stored tile is a single colour, a useless reference (pick another tile)`);
  const d = comparePixels(a, e, tolerance);
  if (!d.sameSize || d.differing !== 0) {
    throw new Error(
      `${label}: pixels differ from the stored tile: size ${d.size}` +
        (d.sameSize ? `, ${d.differing} pixel(s) off by up to ${d.maxDelta}; first at ${d.firstDifference}` : ''),
    );
  }
}

export function isUniform(img: RGBA): boolean {
  const first = img.data.readUInt32LE(0);
  for (let i = 4; i < img.data.length; i += 4) if (img.data.readUInt32LE(i) !== first) return false;
  return true;
}

// ---------------------------------------------------------------------------------------------
// HTTP
// ---------------------------------------------------------------------------------------------

/** Appends the API key (and other parameters) to a path or URL. */
export function withKey(url: string, params: Record<string, string> = {}): string {
  const u = new URL(url);
  if (!u.searchParams.has('key')) u.searchParams.set('key', API_KEY);
  for (const [k, v] of Object.entries(params)) u.searchParams.set(k, v);
  return u.toString();
}

export async function fetchOk(url: string): Promise<{ body: Buffer; contentType: string }> {
  const res = await fetch(url);
  const body = Buffer.from(await res.arrayBuffer());
  if (res.status !== 200) {
    throw new Error(`GET ${url} -> ${res.status} ${res.headers.get('content-type') ?? ''}: ${body.toString('utf8', 0, 500)}`);
  }
  return { body, contentType: res.headers.get('content-type') ?? '' };
}

export async function fetchText(url: string): Promise<string> {
  return (await fetchOk(url)).body.toString('utf8');
}

export async function fetchJson<T = unknown>(url: string): Promise<T> {
  const { body, contentType } = await fetchOk(url);
  if (!/json/.test(contentType)) throw new Error(`GET ${url}: expected a JSON media type, got '${contentType}'`);
  return JSON.parse(body.toString('utf8')) as T;
}

// ---------------------------------------------------------------------------------------------
// WMTS capabilities, read just enough to find identifiers (the clients under test do the real parsing)
// ---------------------------------------------------------------------------------------------

export interface CapsTileMatrix {
  identifier: string;
  scaleDenominator: number;
  tileWidth: number;
  tileHeight: number;
}
export interface CapsMatrixSet {
  identifier: string;
  supportedCRS: string;
  matrices: CapsTileMatrix[];
}
export interface CapsLayer {
  identifier: string;
  formats: string[];
  matrixSetLinks: string[];
  resourceUrls: { format: string; resourceType: string; template: string }[];
}
export interface CapsSummary {
  layers: CapsLayer[];
  matrixSets: CapsMatrixSet[];
}

const ARRAY_ELEMENTS = new Set(['Layer', 'TileMatrixSet', 'TileMatrix', 'TileMatrixSetLink', 'Format', 'ResourceURL', 'Style']);
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Node = any;

/** A small reading of WMTS capabilities: layer identifiers, their matrix set links and the matrix sets. */
export function summarizeCapabilities(xml: string): CapsSummary {
  const parser = new XMLParser({
    ignoreAttributes: false,
    attributeNamePrefix: '@',
    removeNSPrefix: true,
    parseTagValue: false,
    isArray: (name, jpath) => ARRAY_ELEMENTS.has(name) && !String(jpath).endsWith('TileMatrixSetLink.TileMatrixSet'),
  });
  const doc: Node = parser.parse(xml);
  const contents: Node = doc?.Capabilities?.Contents ?? {};
  const text = (v: Node): string => (typeof v === 'string' ? v : (v?.['#text'] ?? '')).toString().trim();
  const layers: CapsLayer[] = (contents.Layer ?? []).map((l: Node) => ({
    identifier: text(l.Identifier),
    formats: (l.Format ?? []).map(text),
    matrixSetLinks: (l.TileMatrixSetLink ?? []).map((k: Node) => text(k.TileMatrixSet)),
    resourceUrls: (l.ResourceURL ?? []).map((r: Node) => ({
      format: r['@format'] ?? '',
      resourceType: r['@resourceType'] ?? '',
      template: r['@template'] ?? '',
    })),
  }));
  const matrixSets: CapsMatrixSet[] = (contents.TileMatrixSet ?? []).map((s: Node) => ({
    identifier: text(s.Identifier),
    supportedCRS: text(s.SupportedCRS),
    matrices: (s.TileMatrix ?? []).map((m: Node) => ({
      identifier: text(m.Identifier),
      scaleDenominator: Number(text(m.ScaleDenominator)),
      tileWidth: Number(text(m.TileWidth)),
      tileHeight: Number(text(m.TileHeight)),
    })),
  }));
  return { layers, matrixSets };
}

/** Scale denominator of zoom z of a Web Mercator set of `tileSize` px tiles (0.28 mm pixels). */
export function mercatorScaleDenominator(z: number, tileSize: number): number {
  return (2 * Math.PI * 6378137) / tileSize / 0.00028 / 2 ** z;
}

/** The TileMatrix identifier of zoom z in a Web Mercator matrix set, found by its scale. */
export function matrixIdForZoom(set: CapsMatrixSet, z: number): string {
  const tileSize = set.matrices[0]?.tileWidth ?? 256;
  const want = mercatorScaleDenominator(z, tileSize);
  const m = set.matrices.find((tm) => Math.abs(tm.scaleDenominator - want) / want < 1e-6);
  if (!m) throw new Error(`matrix set ${set.identifier} has no matrix at zoom ${z} (scale ${want})`);
  return m.identifier;
}

/** The matrix set a layer links to, for tiles of `tileSize` px. */
export function layerMatrixSet(caps: CapsSummary, layerId: string, tileSize: number): CapsMatrixSet {
  const layer = caps.layers.find((l) => l.identifier === layerId);
  if (!layer) throw new Error(`no layer '${layerId}' in capabilities (layers: ${caps.layers.map((l) => l.identifier).join(', ')})`);
  const sets = layer.matrixSetLinks
    .map((id) => caps.matrixSets.find((s) => s.identifier === id))
    .filter((s): s is CapsMatrixSet => !!s && /3857|900913/.test(s.supportedCRS) && s.matrices[0]?.tileWidth === tileSize);
  if (!sets.length) {
    throw new Error(`layer '${layerId}' links no Web Mercator matrix set of ${tileSize} px tiles (links: ${layer.matrixSetLinks.join(', ')})`);
  }
  return sets[0];
}

// ---------------------------------------------------------------------------------------------
// The server under test
// ---------------------------------------------------------------------------------------------

export interface InteropServer {
  /** Base URL without a trailing slash. */
  url: string;
  close(): Promise<void>;
}

/**
 * Starts the real server in this process (test/helpers/server.ts), serving mirror/ with key `demo`.
 * TILEMIRROR_TEST_URL points the suite at a server that already runs instead (with TILEMIRROR_TEST_MIRROR
 * naming the data directory it serves, so stored tiles can be compared).
 */
export async function startInteropServer(): Promise<InteropServer> {
  const external = process.env.TILEMIRROR_TEST_URL;
  if (external) return { url: external.replace(/\/+$/, ''), close: async () => undefined };
  const s = await startServer({ dataDir: MIRROR_DIR });
  return { url: s.url.replace(/\/+$/, ''), close: () => s.close() };
}

// ---------------------------------------------------------------------------------------------
// GDAL
// ---------------------------------------------------------------------------------------------

export const GDAL_CHECK: ClientCheck = { bins: ['gdal_translate', 'gdalinfo'], packages: ['gdal-bin'] };

/**
 * Debian trixie's root filesystem with its gdal-bin (GDAL 3.10), made by test/setup/gdal-trixie.sh and run
 * with chroot: a GDAL newer than the system's without mixing releases (override: TILEMIRROR_GDAL_TRIXIE_ROOT).
 */
export const GDAL_TRIXIE_ROOT = process.env.TILEMIRROR_GDAL_TRIXIE_ROOT || '/var/cache/tilemirror/gdal-trixie';
const GDAL_TRIXIE_SETUP = 'bash test/setup/gdal-trixie.sh';

export type GdalVersion = [number, number, number];

/** How to start one GDAL program: file, arguments, environment and working directory of the child process. */
interface GdalInvocation {
  file: string;
  args: string[];
  env: NodeJS.ProcessEnv;
  cwd: string | undefined;
}

/** One GDAL installation the tests drive: the system's (on PATH) or one inside a root filesystem, run with chroot. */
export interface Gdal {
  /** For test names and messages, e.g. 'system GDAL 3.6.2'. */
  label: string;
  /** Its version; undefined when it cannot run. */
  version: GdalVersion | undefined;
  /** Why it cannot run and how to get it; undefined when it runs. */
  missing: string | undefined;
  /** The path at which this GDAL sees a file of the host (throws when it cannot see it). */
  pathFor(hostPath: string): string;
  /** A private temporary directory (a host path) this GDAL reads and writes too, removed by cleanup. */
  makeTempDir(prefix: string): { dir: string; cleanup: () => void };
  /** How to run one of its programs with `args`, in the host directory `cwd`. */
  invocation(program: string, args: string[], cwd: string | undefined): GdalInvocation;
}

/** Runs `gdalinfo --version` synchronously (test registration needs the answer at module load). */
function probeVersion(inv: GdalInvocation): { version?: GdalVersion; error?: string } {
  try {
    const out = execFileSync(inv.file, inv.args, { encoding: 'utf8', timeout: 20_000, stdio: 'pipe', env: inv.env, cwd: inv.cwd });
    const m = /GDAL (\d+)\.(\d+)\.(\d+)/.exec(out);
    return m ? { version: [Number(m[1]), Number(m[2]), Number(m[3])] } : { error: `unexpected version output: ${out.trim()}` };
  } catch (e) {
    const err = e as Error & { stderr?: string };
    return { error: (err.stderr || err.message).trim().split('\n').slice(-3).join(' ') };
  }
}

let systemGdalCache: Gdal | undefined;
/** The GDAL on PATH (Debian gdal-bin). Probed once, synchronously. */
export function systemGdal(): Gdal {
  if (systemGdalCache) return systemGdalCache;
  const invocation = (program: string, args: string[], cwd: string | undefined): GdalInvocation => ({ file: program, args, env: clientEnv(), cwd });
  const p =
    which('gdalinfo') && which('gdal_translate')
      ? probeVersion(invocation('gdalinfo', ['--version'], undefined))
      : { error: 'gdalinfo/gdal_translate not on PATH' };
  systemGdalCache = {
    label: p.version ? `system GDAL ${p.version.join('.')}` : 'system GDAL',
    version: p.version,
    missing: p.version ? undefined : `${p.error}; install the Debian package gdal-bin (bash test/run.sh does)`,
    pathFor: (hostPath) => hostPath,
    makeTempDir,
    invocation,
  };
  return systemGdalCache;
}

/** Variables of the host that would point a GDAL in another root filesystem at the host's files. */
const HOST_ONLY_ENV = ['LD_LIBRARY_PATH', 'LD_PRELOAD', 'GDAL_DATA', 'GDAL_DRIVER_PATH', 'PROJ_LIB', 'PROJ_DATA', 'PYTHONPATH', 'NODE_OPTIONS'];
const chrootGdalCache = new Map<string, Gdal>();

/**
 * The GDAL of a Debian root filesystem (default: GDAL_TRIXIE_ROOT), run as `chroot ROOT env -C DIR program ...`.
 * chroot needs root; otherwise a user namespace (`unshare --map-root-user`) is tried. chroot shares the
 * network namespace, so the programs reach the test server on 127.0.0.1. Probed once, synchronously.
 */
export function chrootGdal(root: string = GDAL_TRIXIE_ROOT): Gdal {
  const cached = chrootGdalCache.get(root);
  if (cached) return cached;
  const pathFor = (hostPath: string): string => {
    const rel = path.relative(root, path.resolve(hostPath));
    if (rel.startsWith('..') || path.isAbsolute(rel)) throw new Error(`${hostPath} is outside ${root}: the GDAL in it cannot see it`);
    return `/${rel}`;
  };
  const env = clientEnv({ PATH: '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' });
  for (const k of HOST_ONLY_ENV) delete env[k];
  const through = (prefix: string[], program: string, args: string[], cwd: string | undefined): GdalInvocation => ({
    file: prefix[0],
    args: [...prefix.slice(1), 'env', '-C', cwd ? pathFor(cwd) : '/tmp', program, ...args],
    env,
    cwd: undefined,
  });
  // chroot needs root (CAP_SYS_CHROOT); a user namespace gives that to others where the kernel allows it.
  const prefixes = [['chroot', root]];
  if (process.getuid?.() !== 0) prefixes.push(['unshare', '--map-root-user', 'chroot', root]);
  let prefix: string[] | undefined;
  let version: GdalVersion | undefined;
  const errors: string[] = [];
  if (!existsSync(path.join(root, 'usr/bin/gdalinfo'))) {
    errors.push(`no GDAL in ${root}`);
  } else {
    for (const candidate of prefixes) {
      const p = probeVersion(through(candidate, 'gdalinfo', ['--version'], undefined));
      if (p.version) {
        [prefix, version] = [candidate, p.version];
        break;
      }
      errors.push(`${candidate.join(' ')}: ${p.error}`);
    }
  }
  const gdal: Gdal = {
    label: `GDAL ${version ? `${version.join('.')} ` : ''}of ${root} (chroot)`,
    version,
    missing: prefix ? undefined : `${errors.join('; ')}; make it with ${GDAL_TRIXIE_SETUP} (as root; bash test/run.sh does)`,
    pathFor,
    makeTempDir: (name) => makeTempDir(name, path.join(root, 'tmp')),
    invocation: (program, args, cwd) => {
      if (!prefix) throw new Error(`${root}: ${gdal.missing}`);
      return through(prefix, program, args, cwd);
    },
  };
  chrootGdalCache.set(root, gdal);
  return gdal;
}

/** True when this GDAL is at least major.minor (and true when the version is unknown: let the test show what happens). */
export function gdalAtLeast(gdal: Gdal, major: number, minor: number): boolean {
  const v = gdal.version;
  if (!v) return true;
  return v[0] > major || (v[0] === major && v[1] >= minor);
}

export type TestRegistrar = (name: string, fn: jest.ProvidesCallback, timeout?: number) => void;

/**
 * `test` when this GDAL runs. When it cannot: under CI (or TILEMIRROR_REQUIRE_CLIENTS) tests that fail with
 * the reason, else a visible test.skip with a warning. Decided when the test file is loaded, never in the test.
 */
export function gdalTest(gdal: Gdal): TestRegistrar {
  if (!gdal.missing) return test;
  const reason = `${gdal.label} cannot run: ${gdal.missing}`;
  if (clientsRequired()) {
    return (name, _fn, timeout) =>
      test(
        name,
        () => {
          throw new Error(`${reason} (required: CI=true or TILEMIRROR_REQUIRE_CLIENTS)`);
        },
        timeout,
      );
  }
  // eslint-disable-next-line no-console
  console.warn(`SKIPPED tests of ${reason}. Set TILEMIRROR_REQUIRE_CLIENTS=1 to make this a failure.`);
  return test.skip;
}

export interface GdalInfo {
  size: [number, number];
  geoTransform: number[];
  bands: { band: number; colorInterpretation?: string; overviews?: { size: [number, number] }[] }[];
  coordinateSystem?: { wkt?: string };
  metadata?: Record<string, Record<string, string>>;
  driverShortName?: string;
}

/** Runs one GDAL program (`gdal`: which GDAL, the system's by default). */
async function runGdal(gdal: Gdal, program: string, args: string[], cwd: string | undefined): Promise<RunResult> {
  const inv = gdal.invocation(program, args, cwd);
  return run(inv.file, inv.args, { env: inv.env, cwd: inv.cwd });
}

/** `gdalinfo -json`; a `source` that is a file must be one `gdal` sees (gdal.pathFor). */
export async function gdalinfo(source: string, openOptions: string[] = [], cwd?: string, gdal: Gdal = systemGdal()): Promise<GdalInfo> {
  const args = ['-json', ...openOptions.flatMap((o) => ['-oo', o]), source];
  const r = assertOk(await runGdal(gdal, 'gdalinfo', args, cwd));
  return JSON.parse(r.stdout) as GdalInfo;
}

/** `gdalinfo` that must fail: its result, to check the error. */
export async function gdalinfoFailing(source: string, openOptions: string[], cwd: string, gdal: Gdal): Promise<RunResult> {
  const r = await runGdal(gdal, 'gdalinfo', ['-json', ...openOptions.flatMap((o) => ['-oo', o]), source], cwd);
  if (r.code === 0) throw new Error(`expected ${r.command} to fail, it succeeded:\n${r.stdout.slice(0, 2000)}`);
  return r;
}

/**
 * gdal_translate of one tile's footprint to a PNG of `tileSize` px: -projwin on the tile's EPSG:3857 bounds
 * (where the dataset's grid is the tile grid, the output is exactly the tile) or, with `srcwin`, the pixel
 * window those bounds cover in `info`'s grid, rounded to whole pixels. `outFile` is a host path `gdal` sees
 * (in its makeTempDir); `gdal` is the system's by default.
 */
export async function gdalTranslateTile(
  source: string,
  tile: TileAddress,
  tileSize: number,
  outFile: string,
  opts: { openOptions?: string[]; srcwinFrom?: GdalInfo; cwd?: string; gdal?: Gdal } = {},
): Promise<RunResult> {
  const gdal = opts.gdal ?? systemGdal();
  const [minX, minY, maxX, maxY] = tileBounds3857(tile);
  let window: string[];
  if (opts.srcwinFrom) {
    const gt = opts.srcwinFrom.geoTransform;
    const x0 = Math.round((minX - gt[0]) / gt[1]);
    const y0 = Math.round((maxY - gt[3]) / gt[5]);
    const x1 = Math.round((maxX - gt[0]) / gt[1]);
    const y1 = Math.round((minY - gt[3]) / gt[5]);
    window = ['-srcwin', String(x0), String(y0), String(x1 - x0), String(y1 - y0)];
  } else {
    window = ['-projwin', String(minX), String(maxY), String(maxX), String(minY)];
  }
  const args = [
    '-q',
    '-of',
    'PNG',
    ...(opts.openOptions ?? []).flatMap((o) => ['-oo', o]),
    ...window,
    '-outsize',
    String(tileSize),
    String(tileSize),
    source,
    gdal.pathFor(outFile),
  ];
  const r = assertOk(await runGdal(gdal, 'gdal_translate', args, opts.cwd ?? path.dirname(outFile)));
  // A window partly outside the dataset is only a warning to gdal_translate (it fills with zeros): fail instead.
  if (/partially outside|ERROR \d+/i.test(r.stderr)) throw new Error(`${r.command}\n${r.stderr}`);
  return r;
}
