// Real clients the suite drives (GDAL, OWSLib, xmllint, Chromium): present, missing or required.
// A test file decides at load time, synchronously, whether its client tests run (gatedTest): skipped and
// visible when the client is missing, failing when it is required (CI=true or TILEMIRROR_REQUIRE_CLIENTS).
import { spawnSync } from 'node:child_process';
import { accessSync, constants, existsSync } from 'node:fs';
import path from 'node:path';

export const SYSTEM_PYTHON = '/usr/bin/python3';

/** GDAL's command line programs (Debian gdal-bin): the raster client most tests drive. */
export const GDAL_CHECK: ClientCheck = { bins: ['gdal_translate', 'gdalinfo'], packages: ['gdal-bin'] };

/** On CI (or when asked) a missing client fails the run instead of skipping its tests. */
export function clientsRequired(): boolean {
  const flag = process.env.TILEMIRROR_REQUIRE_CLIENTS;
  return process.env.CI === 'true' || (flag !== undefined && flag !== '' && flag !== '0' && flag !== 'false');
}

/** Full path of an executable found on PATH (or an absolute path that is executable), else undefined. */
export function which(bin: string): string | undefined {
  const candidates = bin.includes('/') ? [bin] : (process.env.PATH ?? '').split(path.delimiter).map((d) => path.join(d, bin));
  for (const c of candidates) {
    try {
      accessSync(c, constants.X_OK);
      return c;
    } catch {
      /* next */
    }
  }
  return undefined;
}

function pythonImports(modules: string[]): string {
  return modules.map((m) => `import ${m}`).join('; ');
}

export interface ClientCheck {
  /** Executables that must be on PATH. */
  bins?: string[];
  /** Modules the system python must import. */
  pythonModules?: string[];
  /** Files that must exist (e.g. a schema a package ships); the first existing one of each inner list counts. */
  files?: string[][];
  /** Debian packages that provide them, for the message. */
  packages: string[];
}

/** Names of what is missing for a client, empty when it can run. Synchronous: decided at module load, before any server of the test file runs. */
export function missingPartsSync(check: ClientCheck): string[] {
  const missing = [...missingBinsAndFiles(check)];
  if (check.pythonModules?.length) {
    const ok =
      !!which(SYSTEM_PYTHON) &&
      spawnSync(SYSTEM_PYTHON, ['-c', pythonImports(check.pythonModules)], { stdio: 'ignore', timeout: 30_000 }).status === 0;
    if (!ok) missing.push(pythonMissing(check.pythonModules));
  }
  return missing;
}

function missingBinsAndFiles(check: ClientCheck): string[] {
  const bins = (check.bins ?? []).filter((b) => !which(b));
  const files = (check.files ?? []).filter((alternatives) => !alternatives.some((f) => existsSync(f))).map((alternatives) => alternatives.join(' or '));
  return [...bins, ...files];
}

function pythonMissing(modules: string[]): string {
  return `python modules ${modules.join(', ')} under ${SYSTEM_PYTHON}`;
}

/** `test` as the gates hand it out: plain and table-driven forms. */
export interface GatedTest {
  (title: string, fn: jest.ProvidesCallback, timeout?: number): void;
  each: jest.It['each'];
}

/**
 * The `test` to declare a client's tests with, decided synchronously when the test file loads:
 *  - the client is there: jest's `test`;
 *  - it is missing: `test.skip`, so the tests show as skipped (with a warning naming the packages), never as
 *    passed; under CI the skip reporter (test/reporters/skip-guard.js) fails the run for them;
 *  - it is missing and required (CI=true or TILEMIRROR_REQUIRE_CLIENTS): tests that fail with what is missing.
 *
 *     const clientTest = gatedTest('GDAL WMTS driver', GDAL_CHECK);
 *     clientTest('reads the capabilities', async () => { ... });
 */
export function gatedTest(name: string, check: ClientCheck): GatedTest {
  const missing = missingPartsSync(check);
  if (!missing.length) return test;
  const what = `${name}: missing ${missing.join(', ')}; install the Debian packages ${check.packages.join(' ')} (bash test/run.sh does)`;
  if (clientsRequired()) {
    const fail = (): never => {
      throw new Error(`${what}. It is required here (CI=true or TILEMIRROR_REQUIRE_CLIENTS is set).`);
    };
    const failing = (title: string, _fn: jest.ProvidesCallback, timeout?: number): void => test(title, fail, timeout);
    // test.each's overloads cannot be re-declared one by one; the table is handed through unchanged.
    const each = ((table: readonly unknown[]) => (title: string, _fn: unknown, timeout?: number) =>
      test.each(table as unknown[][])(title, fail, timeout)) as unknown as jest.It['each'];
    return Object.assign(failing, { each });
  }
  // eslint-disable-next-line no-console
  console.warn(`SKIPPED ${what}, or set TILEMIRROR_REQUIRE_CLIENTS=1 to make this a failure.`);
  return test.skip;
}

