// PROJ itself (Debian python3-pyproj, run with /usr/bin/python3) as the oracle of /coordinates/transform: about
// 300 EPSG projected CRS (every n-th non-deprecated one the system's PROJ knows), two points inside each CRS's area
// of use, both directions between the CRS and its base geographic CRS. That pair uses one operation only (the
// map projection, no datum change), so both PROJ builds must agree to 1 cm — where both carry the same definition
// of the CRS: the system PROJ's EPSG version is older than proj-wasm's, and EPSG revises definitions, so a CRS whose
// PROJ.4 string differs between the two (our search's `exports.proj4` against pyproj's `to_proj4()`) is not
// compared, and at least 200 CRS must be.

import { copyFileSync } from 'node:fs';
import path from 'node:path';
import { DEFAULT_INDEX_DIR } from '../../src/config/load';
import { KEY, startServer, type TestServer } from '../helpers/server';
import { gatedTest, SYSTEM_PYTHON } from '../helpers/clients';
import { assertOk, clientEnv, run } from '../helpers/run';
import { tempDirs } from '../helpers/temp-dirs';

const { tempDir, removeTempDirs } = tempDirs('grids-gsb-');

const SCRIPT = path.join(__dirname, 'pyproj_oracle.py');

interface Case {
  code: number;
  base: number;
  geog: [number, number][];
  proj: [number, number][];
  back: [number, number][];
  proj4: string;
  factor: number; // metres per unit of the projected CRS's first axis
}
interface Transform {
  results: { x: number; y: number }[];
  transformer_selection_strategy: string;
}

let srv: TestServer;
beforeAll(async () => {
  srv = await startServer({ config: { indexDir: DEFAULT_INDEX_DIR } });
});
afterAll(() => srv.close());

async function get<T>(p: string): Promise<{ status: number; body: T | string }> {
  const r = await fetch(`${srv.url}${p}&key=${KEY}`);
  const text = await r.text();
  return { status: r.status, body: r.status === 200 ? (JSON.parse(text) as T) : text };
}

/** PROJ.4 parameters as a set: the order and the `+type=crs`/`+no_defs` markers differ between PROJ versions. */
const params = (s: string): string =>
  s
    .split(/\s+/)
    .filter((t) => t && t !== '+no_defs' && t !== '+type=crs')
    .sort()
    .join(' ');

const pyprojTest = gatedTest('pyproj', { pythonModules: ['pyproj'], packages: ['python3-pyproj'] });

pyprojTest(
  'over ≥ 200 EPSG projected CRS, both directions agree with PROJ (pyproj) to 1 cm',
  async () => {
    const r = assertOk(await run(SYSTEM_PYTHON, ['-W', 'ignore', SCRIPT], { env: clientEnv(), timeoutMs: 120_000 }));
    const cases = JSON.parse(r.stdout) as Case[];
    expect(cases.length).toBeGreaterThanOrEqual(250);

    const compared: number[] = [];
    const differentDefinition: number[] = [];
    const failures: string[] = [];
    for (const c of cases) {
      const s = await get<{ results: { exports: { proj4: string } }[] }>(`/coordinates/search/${encodeURIComponent(`code:${c.code} deprecated:*`)}.json?exports=true`);
      if (s.status !== 200 || typeof s.body === 'string' || s.body.results.length !== 1) {
        failures.push(`${c.code}: search answered ${s.status} ${JSON.stringify(s.body).slice(0, 200)}`);
        continue;
      }
      if (params(s.body.results[0].exports.proj4) !== params(c.proj4)) {
        differentDefinition.push(c.code);
        continue;
      }
      compared.push(c.code);
      const tolProj = 0.01 / c.factor; // 1 cm in the CRS's unit
      const tolDeg = 1e-7; // ≈ 1 cm of latitude

      const fwd = await get<Transform>(`/coordinates/transform/${c.geog.map((p) => p.join(',')).join(';')}.json?s_srs=${c.base}&t_srs=${c.code}`);
      if (typeof fwd.body === 'string') failures.push(`${c.base}→${c.code}: ${fwd.status} ${fwd.body.slice(0, 200)}`);
      else
        fwd.body.results.forEach((p, i) => {
          const [x, y] = c.proj[i];
          if (!(Math.abs(p.x - x) <= tolProj && Math.abs(p.y - y) <= tolProj))
            failures.push(`${c.base}→${c.code} point ${i}: ours ${p.x},${p.y} PROJ ${x},${y}`);
        });

      const inv = await get<Transform>(`/coordinates/transform/${c.proj.map((p) => p.join(',')).join(';')}.json?s_srs=${c.code}&t_srs=${c.base}`);
      if (typeof inv.body === 'string') failures.push(`${c.code}→${c.base}: ${inv.status} ${inv.body.slice(0, 200)}`);
      else
        inv.body.results.forEach((p, i) => {
          const [x, y] = c.back[i];
          if (!(Math.abs(p.x - x) <= tolDeg && Math.abs(p.y - y) <= tolDeg))
            failures.push(`${c.code}→${c.base} point ${i}: ours ${p.x},${p.y} PROJ ${x},${y}`);
        });
    }
    // eslint-disable-next-line no-console
    console.log(`pyproj oracle: ${compared.length} CRS compared, ${differentDefinition.length} with a different definition in the older EPSG (${differentDefinition.join(' ')})`);
    expect(failures).toEqual([]);
    expect(compared.length).toBeGreaterThanOrEqual(200);
  },
  600_000,
);

// Grid files: Debian's proj-data carries BETA2007.gsb (DHDN → ETRS89, EPSG:15948). The system PROJ uses it for
// DHDN → ETRS89 (its best operation); ours uses it when the operator puts it in `coordinates.gridDir`, and without
// it answers a 400 naming the grid rather than a silently different operation.
const BETA2007 = '/usr/share/proj/BETA2007.gsb';
const gridTest = gatedTest('pyproj with the BETA2007 grid', { pythonModules: ['pyproj', 'osgeo'], files: [[BETA2007]], packages: ['python3-pyproj', 'proj-data', 'python3-gdal'] });

gridTest(
  'an operation that needs a grid: 400 naming it without the file, PROJ-exact with it in coordinates.gridDir',
  async () => {
    const points: [number, number][] = [[9, 50], [13.4, 52.5], [7.1, 51.2], [11.6, 48.1]];
    const py = `import json\nfrom pyproj.transformer import TransformerGroup\nt = TransformerGroup(4314, 4258, always_xy=True).transformers[0]\npts = [t.transform(x, y) for x, y in ${JSON.stringify(points)}]\nprint(json.dumps({'op': t.description, 'points': pts}))`;
    const r = assertOk(await run(SYSTEM_PYTHON, ['-W', 'ignore', '-c', py], { env: clientEnv(), timeoutMs: 60_000 }));
    const oracle = JSON.parse(r.stdout) as { op: string; points: [number, number][] };
    expect(oracle.op).toContain('DHDN to ETRS89 (8)'); // EPSG:15948, the grid one: the oracle really used the grid
    const path4 = `/coordinates/transform/${points.map((p) => p.join(',')).join(';')}.json?s_srs=4314&t_srs=4258&ops=15948`;
    const searchPath = `/coordinates/search/${encodeURIComponent('code:4314')}.json?transformations=true`;
    // EPSG:15949, DHDN to WGS 84 (3), needs the same grid: the search lists operations to WGS 84.
    const usable = (body: { results: { transformations: { id: { code: number }; usable: boolean }[] }[] }): boolean | undefined =>
      body.results[0].transformations.find((t) => t.id.code === 15949)?.usable;

    const without = await get<Transform>(`${path4}`);
    expect(without.status).toBe(400);
    expect(String(without.body)).toContain('BETA2007.gsb');
    const s0 = await get<Parameters<typeof usable>[0]>(searchPath);
    expect(typeof s0.body !== 'string' && usable(s0.body)).toBe(false);

    // The grid as Debian ships it (NTv2), and the same grid as a GeoTIFF (the format cdn.proj.org distributes),
    // converted by GDAL under the name PROJ ≥ 7 gives it: each alone in coordinates.gridDir.
    const gsbDir = tempDir();
    copyFileSync(BETA2007, path.join(gsbDir, 'BETA2007.gsb'));
    const tifDir = tempDir('grids-tif-');
    assertOk(await run(SYSTEM_PYTHON, [path.join(__dirname, 'ntv2_to_geotiff.py'), BETA2007, path.join(tifDir, 'de_adv_BETA2007.tif')], { env: clientEnv(), timeoutMs: 60_000 }));
    for (const gridDir of [gsbDir, tifDir]) {
      const withGrid = await startServer({ config: { indexDir: DEFAULT_INDEX_DIR, coordinates: { gridDir } } });
      try {
        const res = await fetch(`${withGrid.url}${path4}&key=${KEY}`);
        expect(res.status).toBe(200);
        const body = (await res.json()) as Transform;
        expect(body.transformer_selection_strategy).toBe('listed');
        body.results.forEach((p, i) => {
          const [x, y] = oracle.points[i];
          expect(Math.abs(p.x - x)).toBeLessThanOrEqual(1e-7); // ≈ 1 cm
          expect(Math.abs(p.y - y)).toBeLessThanOrEqual(1e-7);
        });
        // The grid shift is real: the Helmert default lands metres away from the grid's answer.
        const helmert = (await (await fetch(`${withGrid.url}/coordinates/transform/9,50.json?s_srs=4314&t_srs=4258&key=${KEY}`)).json()) as Transform;
        expect(Math.abs(helmert.results[0].x - oracle.points[0][0]) + Math.abs(helmert.results[0].y - oracle.points[0][1])).toBeGreaterThan(1e-6);
        const s1 = (await (await fetch(`${withGrid.url}${searchPath}&key=${KEY}`)).json()) as Parameters<typeof usable>[0];
        expect(usable(s1)).toBe(true);
      } finally {
        await withGrid.close();
      }
    }
  },
  120_000,
);

afterAll(removeTempDirs);
