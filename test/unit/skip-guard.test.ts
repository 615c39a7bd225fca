// The skip guard (test/reporters/skip-guard.js): under CI a test that did not run fails the run unless the
// allow-list names it, and an allow-list entry that no longer matches is a failure too. Judged here on made-up
// results, then end to end: jest runs in a child process on a small test file with a skipped and a todo test.
import { execFile } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import SkipGuard = require('../reporters/skip-guard');
import { tempDirs } from '../helpers/temp-dirs';

const { tempDir, removeTempDirs } = tempDirs('tm-skip-guard-');

const { judge, readAllowList, SEP } = SkipGuard;
const ROOT = resolve(__dirname, '../..');
const GUARD = join(ROOT, 'test/reporters/skip-guard.js');
const JEST = join(ROOT, 'node_modules/jest/bin/jest.js');

const file = (name: string, tests: [string[], string, string][]) => ({
  testFilePath: join('/repo', name),
  testResults: tests.map(([ancestorTitles, title, status]) => ({ ancestorTitles, title, status })),
});
const everywhere = () => true;

describe('judge', () => {
  const results = [
    file('test/a.test.ts', [
      [['suite'], 'runs', 'passed'],
      [['suite'], 'skipped one', 'pending'],
      [[], 'to do', 'todo'],
      [['suite', 'inner'], 'fails', 'failed'],
    ]),
    file('test/b.test.ts', [[[], 'runs too', 'passed']]),
  ];

  test('names each test that did not run by file and titles; the allow-list lets some through with their reason', () => {
    const allow = { [`test/a.test.ts${SEP}suite${SEP}skipped one`]: 'needs a client this machine lacks' };
    const v = judge(results, allow, { rootDir: '/repo', filtered: false, exists: everywhere });
    expect(v.allowed).toEqual([{ name: `test/a.test.ts${SEP}suite${SEP}skipped one`, status: 'pending', reason: 'needs a client this machine lacks' }]);
    expect(v.unallowed).toEqual([{ name: `test/a.test.ts${SEP}to do`, status: 'todo' }]);
    expect(v.stale).toEqual([]);
  });

  test('stale entries: the test ran, is gone, or its file is gone; entries of files that did not run are kept', () => {
    const allow = {
      [`test/a.test.ts${SEP}suite${SEP}runs`]: 'was skipped once',
      [`test/a.test.ts${SEP}renamed`]: 'old name',
      [`test/gone.test.ts${SEP}x`]: 'file removed',
      [`test/c.test.ts${SEP}y`]: 'file not in this run',
    };
    const v = judge(results, allow, { rootDir: '/repo', filtered: false, exists: (f) => f !== 'test/gone.test.ts' });
    expect(v.stale.map((s) => s.name).sort()).toEqual(
      [`test/a.test.ts${SEP}renamed`, `test/a.test.ts${SEP}suite${SEP}runs`, `test/gone.test.ts${SEP}x`].sort(),
    );
  });

  test('a -t filter: the tests it left out are not counted and no entry is called stale, but todo still counts', () => {
    const allow = { [`test/a.test.ts${SEP}suite${SEP}runs`]: 'x' };
    const v = judge(results, allow, { rootDir: '/repo', filtered: true, exists: everywhere });
    expect(v.unallowed).toEqual([{ name: `test/a.test.ts${SEP}to do`, status: 'todo' }]);
    expect(v.stale).toEqual([]);
  });

  test('the allow-list needs a reason for every entry and full names', () => {
    const dir = tempDir();
    const f = join(dir, 'allow.json');
    writeFileSync(f, JSON.stringify({ [`test/a.test.ts${SEP}x`]: '' }));
    expect(() => readAllowList(f)).toThrow(/needs a reason/);
    writeFileSync(f, JSON.stringify({ 'just a title': 'why' }));
    expect(() => readAllowList(f)).toThrow(/is not "<file>/);
    writeFileSync(f, JSON.stringify([]));
    expect(() => readAllowList(f)).toThrow(/expected an object/);
    expect(readAllowList(join(dir, 'missing.json'))).toEqual({});
  });

  test('the repository allow-list reads and every entry names an existing file', () => {
    const list = readAllowList(join(ROOT, 'test/skip-allowlist.json'));
    const v = judge([], list, { rootDir: ROOT, filtered: false });
    expect(v.stale).toEqual([]);
  });
});

describe('as a jest reporter (jest in a child process)', () => {
  const run = promisify(execFile);
  let dir: string;
  beforeAll(() => {
    dir = tempDir('tm-skip-guard-run-');
    writeFileSync(
      join(dir, 'sample.fixture.js'),
      `describe('box', () => {\n  test('runs', () => expect(1 + 1).toBe(2));\n  test.skip('skipped', () => {});\n});\ntest.todo('later');\n`,
    );
  });
  afterAll(removeTempDirs);

  async function jest(allow: Record<string, string>, env: Record<string, string>): Promise<{ code: number; err: string }> {
    const allowFile = join(dir, `allow-${Object.keys(allow).length}-${env.CI ?? 'local'}.json`);
    writeFileSync(allowFile, JSON.stringify(allow));
    const config = {
      rootDir: dir,
      testMatch: ['**/*.fixture.js'],
      transform: {},
      reporters: ['default', [GUARD, { allowList: allowFile, rootDir: dir }]],
    };
    const clean = { ...process.env };
    delete clean.CI;
    try {
      const r = await run(process.execPath, [JEST, '--config', JSON.stringify(config), '--ci'], { cwd: dir, env: { ...clean, ...env } });
      return { code: 0, err: r.stderr };
    } catch (e) {
      const x = e as { code: number; stderr: string };
      return { code: x.code, err: x.stderr };
    }
  }

  test('CI=true: unlisted skips fail the run; listed ones pass and are printed with the reason; a stale entry fails', async () => {
    const skipped = `sample.fixture.js${SEP}box${SEP}skipped`;
    const todo = `sample.fixture.js${SEP}later`;
    const [none, both, stale, local] = await Promise.all([
      jest({}, { CI: 'true' }),
      jest({ [skipped]: 'reason one', [todo]: 'reason two' }, { CI: 'true' }),
      jest({ [skipped]: 'reason one', [todo]: 'reason two', [`sample.fixture.js${SEP}box${SEP}runs`]: 'stale' }, { CI: 'true' }),
      jest({}, {}),
    ]);
    expect(none.code).toBe(1);
    expect(none.err).toContain('NOT on the allow-list (2)');
    expect(none.err).toContain(skipped);
    expect(none.err).toContain(todo);

    expect(both.code).toBe(0);
    expect(both.err).toContain('reason: reason one');
    expect(both.err).toContain('reason: reason two');

    expect(stale.code).toBe(1);
    expect(stale.err).toMatch(/Stale allow-list entries \(1\)[^\n]*\n[^\n]*box › runs/);

    // Outside CI: listed, not a failure.
    expect(local.code).toBe(0);
    expect(local.err).toContain('NOT on the allow-list (2)');
  });
});
