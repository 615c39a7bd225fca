// Every EPSG CRS, not a sample: Debian sid's PROJ (python3-pyproj over libproj 9.9, the newest PROJ in Debian, in the
// root filesystem of test/setup/proj-sid.sh) reads its own registry (Debian's proj.db; the server's must be at least
// as current) with no grid files (as the server without coordinates.gridDir), lists every non-deprecated EPSG CRS,
// and transforms the centre of each one's area of use from EPSG:4326 and back with its default choice
// (proj_transform_oracle.py).
// The server must answer both directions over HTTP and agree to 5 cm in the CRS's linear unit, 1e-7° in its
// angular one; where PROJ has no operation, it must refuse (400). The counts (tested, passed, each family refused
// with its reason) are printed and asserted, and bench/README.md's location section quotes them.

import { spawn } from 'node:child_process';
import { copyFileSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { DEFAULT_INDEX_DIR } from '../../src/config/load';
import { KEY, serverConfig, startServer, type TestServer } from '../helpers/server';
import { tempDirs } from '../helpers/temp-dirs';
import Database from 'better-sqlite3';
import { chrootProj, gdalTest, PROJ_SID_ROOT, REPO_ROOT } from './helpers';
import { cacheKey, cachedLines } from './oracle-cache';

const ORACLE = path.join(__dirname, 'proj_transform_oracle.py');
/** The oracle's registry: Debian's proj.db, as its PROJ ships it. */
const PROJ_DB = path.join(PROJ_SID_ROOT, 'usr', 'share', 'proj', 'proj.db');
/** The registry the server's is made from (proj-wasm's). */
const SERVER_PROJ_DB = path.join(REPO_ROOT, 'node_modules', 'proj-wasm', 'dist', 'proj.db');
/**
 * Requests in flight: each of the server's PROJ threads (coordinates.projThreads, at most 4 by default) builds one
 * pipeline at a time; two per thread keep every thread busy while the others' answers cross HTTP and JSON.
 */
const IN_FLIGHT = 8;
const METRE_TOLERANCE = 0.05;

/**
 * The CRS where the server and Debian's PROJ are known to disagree, each with why. Named one by one so that a new
 * disagreement fails the test and one that goes away is reported; bench/README.md's location section
 * gives the same list. The server's PROJ is proj-wasm's 9.9.0, the oracle Debian sid's 9.9.0.
 */
const KNOWN_DISAGREEMENTS = new Map<number, string>([]);
const DEGREE_TOLERANCE = 1e-7;

interface Answer {
  code: number;
  type: string;
  name: string;
  point?: [number, number];
  status: 'ok' | 'none' | 'outside' | 'refused';
  reason?: string;
  default?: number | null;
  fwd?: [number, number, number];
  back?: [number, number, number];
  units?: number[];
  angular?: boolean[];
  fwdOp?: string;
  invOp?: string;
}
interface About {
  proj: string;
  pyproj: string;
  epsg: string;
  total: number;
}
interface Reply {
  status: number;
  results?: { x: number; y: number; z: number }[];
  strategy?: string;
  text?: string;
}

const sid = chrootProj();
/** The oracle's folder, inside the root filesystem its PROJ runs in. */
const chrootTemp = tempDirs('tilemirror-proj-transform-', sid.tempBase);
const it = gdalTest(sid);

let srv: TestServer;
beforeAll(async () => {
  // A CRS whose pipeline takes long to build (seconds on a busy machine) is no stalled connection.
  srv = await startServer({ config: { indexDir: DEFAULT_INDEX_DIR, ...serverConfig({ socketTimeoutSeconds: 3600 }) } });
});
afterAll(() => srv?.close());

async function transform(point: number[], s: number, t: number): Promise<Reply> {
  const r = await fetch(`${srv.url}/coordinates/transform/${point.join(',')}.json?s_srs=${s}&t_srs=${t}&key=${KEY}`);
  const text = await r.text();
  if (r.status !== 200) return { status: r.status, text: text.slice(0, 300) };
  const body = JSON.parse(text) as { results: Reply['results']; transformer_selection_strategy: string };
  return { status: 200, results: body.results, strategy: body.transformer_selection_strategy };
}

/** Runs `work` over `items`, IN_FLIGHT at a time. */
async function pool<T>(items: T[], work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const lane = async (): Promise<void> => {
    while (next < items.length) await work(items[next++]);
  };
  await Promise.all(Array.from({ length: IN_FLIGHT }, lane));
}

/** Tolerance of each axis in its own unit: 5 cm, or 1e-7° (units: metres or radians per unit). */
function tolerances(units: number[], angular: boolean[]): number[] {
  return units.map((u, i) => (angular[i] ? (DEGREE_TOLERANCE * Math.PI) / 180 / u : METRE_TOLERANCE / u));
}

/** What differs between ours and PROJ's (x, y, z), beyond the tolerances; '' when they agree. */
function difference(ours: { x: number; y: number; z: number }, proj: number[], tol: number[]): string {
  const got = [ours.x, ours.y, ours.z];
  // A 2D CRS: PROJ passes the given height through; so must we (5 cm).
  const bad = proj.map((v, i) => Math.abs(got[i] - v) > (tol[i] ?? METRE_TOLERANCE));
  return bad.some(Boolean) ? `ours ${got.join(',')} PROJ ${proj.join(',')}` : '';
}

/** What decides the oracle's answers: its script, the registry it reads, and the PROJ and pyproj of the root filesystem. */
function oracleKey(): string {
  const status = readFileSync(path.join(PROJ_SID_ROOT, 'var', 'lib', 'dpkg', 'status'), 'utf8');
  const versions = ['libproj25', 'python3-pyproj'].map((p) => {
    const v = /^Version: (.*)$/m.exec(status.split(`\nPackage: ${p}\n`)[1] ?? '')?.[1];
    if (!v) throw new Error(`${p} is not installed in ${PROJ_SID_ROOT}`);
    return `${p} ${v}`;
  });
  return cacheKey([readFileSync(ORACLE), readFileSync(PROJ_DB), ...versions]);
}

/** Runs the oracle in sid's root filesystem, giving each line of its output to `line` as it comes. */
async function runOracle(line: (text: string) => Promise<void>): Promise<void> {
  // The oracle's PROJ reads its registry from a directory of its own, with no grid and no network.
  const tmp = chrootTemp.tempDir();
  try {
    copyFileSync(PROJ_DB, path.join(tmp, 'proj.db'));
    writeFileSync(path.join(tmp, 'proj.ini'), 'network = off\n');
    copyFileSync(ORACLE, path.join(tmp, 'oracle.py'));
    const inv = sid.invocation('python3', ['-W', 'ignore', sid.pathFor(path.join(tmp, 'oracle.py'))], tmp);
    const child = spawn(inv.file, inv.args, { env: { ...inv.env, PROJ_DATA: sid.pathFor(tmp), PROJ_NETWORK: 'OFF' }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => void (stderr = (stderr + d.toString()).slice(-4000)));
    const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
    // One chunk at a time: the next line waits until the server has answered the previous one.
    for await (const text of createInterface({ input: child.stdout })) await line(text);
    const code = await exited;
    if (code !== 0) throw new Error(`${inv.file} ${inv.args.join(' ')} exited with ${code}: ${stderr}`);
  } finally {
    chrootTemp.removeTempDirs();
  }
}

/**
 * The oracle's answers, each chunk handed to `chunk` as it comes (the server works on one chunk while the oracle
 * computes the next): computed once per PROJ, pyproj, registry and oracle script, then read from the cache
 * (oracle-cache.ts). Resolves with the oracle's header once every chunk is done.
 */
async function oracleAnswers(chunk: (answers: Answer[]) => Promise<void>): Promise<About> {
  let about: About | undefined;
  const { cached, file } = await cachedLines('proj-transform', oracleKey(), runOracle, async (text) => {
    if (!about) about = JSON.parse(text) as About;
    else await chunk((JSON.parse(text) as { answers: Answer[] }).answers);
  });
  // eslint-disable-next-line no-console
  console.log(`PROJ's answers ${cached ? 'read from' : 'computed and kept in'} ${file}`);
  if (!about) throw new Error(`the oracle gave no header line (${file})`);
  return about;
}

/** 'v13.102' → 13.102, comparable. */
function epsgNumber(version: string): number {
  const m = /^v(\d+)\.(\d+)$/.exec(version);
  if (!m) throw new Error(`not an EPSG registry version: ${version}`);
  return Number(m[1]) + Number(m[2]) / 1000;
}

/** The EPSG version a proj.db carries. */
function registryVersion(file: string): number {
  const db = new Database(file, { readonly: true, fileMustExist: true });
  try {
    return epsgNumber((db.prepare("SELECT value FROM metadata WHERE key = 'EPSG.VERSION'").get() as { value: string }).value);
  } finally {
    db.close();
  }
}

it(
  'every EPSG CRS that PROJ transforms from EPSG:4326 transforms here as PROJ does, both directions, at the centre of its area of use',
  async () => {
    const all: Answer[] = [];
    const failures: string[] = [];
    const known = new Map<number, string[]>();
    const answeredAnyway: string[] = [];
    let passed = 0;
    const check = async (a: Answer): Promise<void> => {
      if (a.status === 'none' || a.status === 'refused') {
        // Where PROJ has no operation, or the CRS has no horizontal part, the server refuses with a 400.
        const r = await transform(a.point ?? [0, 0], 4326, a.code);
        if (r.status !== 400) answeredAnyway.push(`4326→${a.code} (${a.name}, ${a.status}: ${a.reason}): ${r.status} ${r.strategy ?? r.text}`);
        return;
      }
      if (a.status !== 'ok') return;
      const tol = tolerances(a.units ?? [], a.angular ?? []);
      const fwd = await transform(a.point as number[], 4326, a.code);
      const back = await transform(a.fwd as number[], a.code, 4326);
      const found: string[] = [];
      if (!fwd.results) found.push(`4326→${a.code} (${a.name}): ${fwd.status} ${fwd.text}; PROJ: ${a.fwdOp}`);
      else {
        const d = difference(fwd.results[0], a.fwd as number[], tol);
        if (d) found.push(`4326→${a.code} (${a.name}) at ${(a.point as number[]).join(',')}: ${d}; ours ${fwd.strategy}, PROJ ${a.fwdOp}`);
      }
      if (!back.results) found.push(`${a.code}→4326 (${a.name}): ${back.status} ${back.text}; PROJ: ${a.invOp}`);
      else {
        const d = difference(back.results[0], a.back as number[], tolerances([Math.PI / 180, Math.PI / 180, 1], [true, true, false]));
        if (d) found.push(`${a.code}→4326 (${a.name}) from ${(a.fwd as number[]).join(',')}: ${d}; ours ${back.strategy}, PROJ ${a.invOp}`);
      }
      if (found.length === 0) passed++;
      else if (KNOWN_DISAGREEMENTS.has(a.code)) known.set(a.code, found);
      else failures.push(...found);
    };
    const about = await oracleAnswers(async (answers) => {
      all.push(...answers);
      await pool(answers, check);
    });
    // The server's registry is at least as current as the newest PROJ's in Debian.
    expect(registryVersion(SERVER_PROJ_DB)).toBeGreaterThanOrEqual(epsgNumber(about.epsg));
    expect(all.length).toBe(about.total);

    // The note: counts by family (status and reason without the coordinates), with a few codes each.
    const ok = all.filter((a) => a.status === 'ok');
    const families = new Map<string, number[]>();
    for (const a of all.filter((x) => x.status !== 'ok')) {
      const reason = `${a.status}: ${(a.reason ?? '').replace(/ at \[.*$| from \[.*$/, '')} (${a.type})`;
      families.set(reason, [...(families.get(reason) ?? []), a.code]);
    }
    const byType = new Map<string, number>();
    for (const a of ok) byType.set(a.type, (byType.get(a.type) ?? 0) + 1);
    // eslint-disable-next-line no-console
    console.log(
      [
        `PROJ ${about.proj} (pyproj ${about.pyproj}) over EPSG ${about.epsg}: ${all.length} non-deprecated EPSG CRS`,
        `tested ${ok.length} (${[...byType].map(([t, n]) => `${t} ${n}`).join(', ')}), both directions: passed ${passed}, failed ${ok.length - passed} (${known.size} of them known, below)`,
        `not tested ${all.length - ok.length}:`,
        ...[...families].sort((x, y) => y[1].length - x[1].length).map(([r, codes]) => `  ${codes.length} ${r}: ${codes.slice(0, 8).join(' ')}${codes.length > 8 ? ' …' : ''}`),
        ...(known.size ? [`known disagreements (${known.size}):`, ...[...known].map(([c, f]) => `  ${c}: ${KNOWN_DISAGREEMENTS.get(c)}: ${f.join('; ')}`)] : []),
        ...(failures.length ? [`failures (${failures.length}):`, ...failures] : []),
        ...(answeredAnyway.length ? [`answered where PROJ refuses (${answeredAnyway.length}):`, ...answeredAnyway] : []),
      ].join('\n'),
    );
    const gone = [...KNOWN_DISAGREEMENTS.keys()].filter((c) => ok.some((a) => a.code === c) && !known.has(c));
    // eslint-disable-next-line no-console
    console.log(`known disagreements: ${known.size} (${[...known.keys()].join(' ')}); listed but agreeing or untested now: ${gone.join(' ') || 'none'}`);
    expect(failures.slice(0, 50)).toEqual([]);
    expect(answeredAnyway.slice(0, 50)).toEqual([]);
    // Every CRS of the registry's families is there: a broken oracle cannot pass by testing nothing.
    expect(ok.length).toBeGreaterThan(6500);
  },
  2_400_000,
);
