// Helpers of the interop suite only: the sample's stores the clients' tiles are compared with, a small reading of
// WMTS capabilities, the server under test (or one already running), and the GDAL installations the tests drive
// (the system's, and Debian trixie's in a root filesystem of its own). What other suites share (running clients,
// stored tiles, pixels, HTTP) is in test/helpers/.
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { XMLParser } from 'fast-xml-parser';
import { clientsRequired, which } from '../helpers/clients';
import { assertOk, clientEnv, run, type RunResult } from '../helpers/run';
import { startServer } from '../helpers/server';
import { tileBounds3857, type TileAddress } from '../helpers/stored-tiles';

export const REPO_ROOT = path.resolve(__dirname, '..', '..');
/** The data directory the server serves and the stored tiles are read from (override: TILEMIRROR_TEST_MIRROR). */
export const MIRROR_DIR = process.env.TILEMIRROR_TEST_MIRROR ?? path.join(REPO_ROOT, 'mirror');

// ---------------------------------------------------------------------------------------------
// The sample's stores
// ---------------------------------------------------------------------------------------------

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
 * Starts the real server in this process (test/helpers/server.ts), serving mirror/ with key `demo`, with `config`
 * over the default configuration (sections of the YAML file, e.g. `grids`).
 * TILEMIRROR_TEST_URL points the suite at a server that already runs instead (with TILEMIRROR_TEST_MIRROR
 * naming the data directory it serves, so stored tiles can be compared; and configured as `config` says).
 */
export async function startInteropServer(config?: Record<string, unknown>): Promise<InteropServer> {
  const external = process.env.TILEMIRROR_TEST_URL;
  if (external) return { url: external.replace(/\/+$/, ''), close: async () => undefined };
  const s = await startServer({ dataDir: MIRROR_DIR, ...(config && { config }) });
  return { url: s.url.replace(/\/+$/, ''), close: () => s.close() };
}

// ---------------------------------------------------------------------------------------------
// GDAL
// ---------------------------------------------------------------------------------------------

/**
 * Debian trixie's root filesystem with its gdal-bin (GDAL 3.10), made by test/setup/gdal-trixie.sh and run
 * with chroot: a GDAL newer than the system's without mixing releases (override: TILEMIRROR_GDAL_TRIXIE_ROOT).
 */
export const GDAL_TRIXIE_ROOT = process.env.TILEMIRROR_GDAL_TRIXIE_ROOT || '/var/cache/tilemirror/gdal-trixie';
/**
 * Debian sid's root filesystem with its proj-bin and python3-pyproj (PROJ 9.9), made by test/setup/proj-sid.sh: the
 * newest PROJ in Debian (override: TILEMIRROR_PROJ_SID_ROOT).
 */
export const PROJ_SID_ROOT = process.env.TILEMIRROR_PROJ_SID_ROOT || '/var/cache/tilemirror/proj-sid';

/** What shows that a root filesystem's programs run, and its version: a program, its version line, and its maker. */
interface RootProbe {
  name: string;
  program: string;
  args: string[];
  pattern: RegExp;
  setup: string;
}
const GDAL_PROBE: RootProbe = { name: 'GDAL', program: 'gdalinfo', args: ['--version'], pattern: /GDAL (\d+)\.(\d+)\.(\d+)/, setup: 'bash test/setup/gdal-trixie.sh' };
const PROJ_PROBE: RootProbe = {
  name: 'PROJ',
  program: 'python3',
  args: ['-c', 'import pyproj; print("PROJ " + pyproj.proj_version_str)'],
  pattern: /PROJ (\d+)\.(\d+)\.(\d+)/,
  setup: 'bash test/setup/proj-sid.sh',
};

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
  /** Where temporary folders this GDAL reads and writes too are made (host path): `tempDirs(prefix, gdal.tempBase)`. */
  tempBase: string;
  /** How to run one of its programs with `args`, in the host directory `cwd`. */
  invocation(program: string, args: string[], cwd: string | undefined): GdalInvocation;
}

/** Runs `gdalinfo --version` (or another probe) synchronously (test registration needs the answer at module load). */
function probeVersion(inv: GdalInvocation, pattern = GDAL_PROBE.pattern): { version?: GdalVersion; error?: string } {
  try {
    const out = execFileSync(inv.file, inv.args, { encoding: 'utf8', timeout: 20_000, stdio: 'pipe', env: inv.env, cwd: inv.cwd });
    const m = pattern.exec(out);
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
    tempBase: tmpdir(),
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
 * (`probe`: what shows the root works and its version; chrootProj's is PROJ's.)
 */
export function chrootGdal(root: string = GDAL_TRIXIE_ROOT, probe: RootProbe = GDAL_PROBE): Gdal {
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
  if (!existsSync(path.join(root, 'usr/bin', probe.program))) {
    errors.push(`no ${probe.name} in ${root}`);
  } else {
    for (const candidate of prefixes) {
      const p = probeVersion(through(candidate, probe.program, probe.args, undefined), probe.pattern);
      if (p.version) {
        [prefix, version] = [candidate, p.version];
        break;
      }
      errors.push(`${candidate.join(' ')}: ${p.error}`);
    }
  }
  const gdal: Gdal = {
    label: `${probe.name} ${version ? `${version.join('.')} ` : ''}of ${root} (chroot)`,
    version,
    missing: prefix ? undefined : `${errors.join('; ')}; make it with ${probe.setup} (as root; bash test/run.sh does)`,
    pathFor,
    tempBase: path.join(root, 'tmp'),
    invocation: (program, args, cwd) => {
      if (!prefix) throw new Error(`${root}: ${gdal.missing}`);
      return through(prefix, program, args, cwd);
    },
  };
  chrootGdalCache.set(root, gdal);
  return gdal;
}

/** Debian sid's PROJ (python3-pyproj, cs2cs) in its root filesystem, run like chrootGdal's programs. */
export function chrootProj(root: string = PROJ_SID_ROOT): Gdal {
  return chrootGdal(root, PROJ_PROBE);
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
export async function runGdal(gdal: Gdal, program: string, args: string[], cwd: string | undefined): Promise<RunResult> {
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
 * (in a folder under its tempBase); `gdal` is the system's by default.
 */
export async function gdalTranslateTile(
  source: string,
  tile: TileAddress,
  tileSize: number,
  outFile: string,
  opts: { openOptions?: string[]; srcwinFrom?: GdalInfo; cwd?: string; gdal?: Gdal } = {},
): Promise<RunResult> {
  const bounds = tileBounds3857(tile);
  if (!opts.srcwinFrom) return gdalTranslateWindow(source, bounds, { width: tileSize, height: tileSize }, outFile, opts);
  const [minX, minY, maxX, maxY] = bounds;
  const gt = opts.srcwinFrom.geoTransform;
  const x0 = Math.round((minX - gt[0]) / gt[1]);
  const y0 = Math.round((maxY - gt[3]) / gt[5]);
  const x1 = Math.round((maxX - gt[0]) / gt[1]);
  const y1 = Math.round((minY - gt[3]) / gt[5]);
  const window = ['-srcwin', String(x0), String(y0), String(x1 - x0), String(y1 - y0)];
  return translate(source, window, { width: tileSize, height: tileSize }, outFile, opts);
}

/**
 * gdal_translate of EPSG:3857 `bounds` [minX, minY, maxX, maxY] (-projwin) to a PNG of `size`: where the bounds are
 * whole tiles of one zoom and the size is their pixels, the output is those tiles side by side, pixel for pixel.
 */
export async function gdalTranslateWindow(
  source: string,
  bounds: [number, number, number, number],
  size: { width: number; height: number },
  outFile: string,
  opts: { openOptions?: string[]; cwd?: string; gdal?: Gdal } = {},
): Promise<RunResult> {
  const [minX, minY, maxX, maxY] = bounds;
  return translate(source, ['-projwin', String(minX), String(maxY), String(maxX), String(minY)], size, outFile, opts);
}

async function translate(
  source: string,
  window: string[],
  size: { width: number; height: number },
  outFile: string,
  opts: { openOptions?: string[]; cwd?: string; gdal?: Gdal },
): Promise<RunResult> {
  const gdal = opts.gdal ?? systemGdal();
  const args = [
    '-q',
    '-of',
    'PNG',
    ...(opts.openOptions ?? []).flatMap((o) => ['-oo', o]),
    ...window,
    '-outsize',
    String(size.width),
    String(size.height),
    source,
    gdal.pathFor(outFile),
  ];
  const r = assertOk(await runGdal(gdal, 'gdal_translate', args, opts.cwd ?? path.dirname(outFile)));
  // A window partly outside the dataset is only a warning to gdal_translate (it fills with zeros): fail instead.
  if (/partially outside|ERROR \d+/i.test(r.stderr)) throw new Error(`${r.command}\n${r.stderr}`);
  return r;
}
