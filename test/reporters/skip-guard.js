// @ts-check
// A jest reporter that makes a skipped test visible and, under CI, a failure: a suite cannot pass by not running.
//
// Every test that did not run (test.skip, test.todo, a describe.skip, a client gate that skipped) is counted
// by its name: "<file relative to the repository> › <describe> › … › <test>". Under CI (CI=true, or the
// reporter option `enforce: true`) the run fails when one of them is not on the allow-list
// (test/skip-allowlist.json: name → reason), and when an allow-list entry is stale: its file ran but that test
// did not skip (or the file no longer exists). Outside CI the skipped tests are only listed.
// Tests left out by a -t/--testNamePattern filter are not counted (nor entries of files that did not run).
//
// Runs outside ts-jest (reporters are loaded by jest itself), hence plain JavaScript with JSDoc types,
// type-checked by `tsc -p test/tsconfig.json`.
//
//   node test/reporters/skip-guard.js --print     prints the allow-list with the reasons (.ci/run does)
'use strict';

const fs = require('node:fs');
const path = require('node:path');

const SEP = ' › ';
const DEFAULT_ALLOW_LIST = path.join(__dirname, '..', 'skip-allowlist.json');
const ROOT = path.resolve(__dirname, '..', '..');
/** Statuses of a test that was declared but did not run. */
const NOT_RUN = new Set(['pending', 'skipped', 'todo', 'disabled']);

/**
 * @typedef {{ title: string, ancestorTitles: string[], status: string }} AssertionLike
 * @typedef {{ testFilePath: string, testResults: AssertionLike[] }} TestFileLike
 * @typedef {{ name: string, status: string }} NotRun
 * @typedef {{ allowed: (NotRun & { reason: string })[], unallowed: NotRun[], stale: { name: string, reason: string, why: string }[] }} Verdict
 * @typedef {{ allowList?: string, enforce?: boolean, rootDir?: string }} Options
 */

/**
 * The allow-list: an object of test name → reason. Throws on anything else (a reason must be given).
 * @param {string} file
 * @returns {Record<string, string>}
 */
function readAllowList(file) {
  if (!fs.existsSync(file)) return {};
  /** @type {unknown} */
  const parsed = JSON.parse(fs.readFileSync(file, 'utf8'));
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) throw new Error(`${file}: expected an object of test name → reason`);
  /** @type {Record<string, string>} */
  const list = {};
  for (const [name, reason] of Object.entries(parsed)) {
    if (typeof reason !== 'string' || !reason.trim()) throw new Error(`${file}: "${name}" needs a reason (a non-empty string)`);
    if (!name.includes(SEP)) throw new Error(`${file}: "${name}" is not "<file>${SEP}<test name>"`);
    list[name] = reason;
  }
  return list;
}

/**
 * The name a test is counted by.
 * @param {string} rootDir
 * @param {string} testFilePath
 * @param {AssertionLike} a
 */
function testName(rootDir, testFilePath, a) {
  const file = path.relative(rootDir, testFilePath).split(path.sep).join('/');
  return [file, ...a.ancestorTitles, a.title].join(SEP);
}

/**
 * Sorts the tests that did not run into allowed and not allowed, and finds stale allow-list entries.
 * Pure but for `exists` (does an allow-listed file still exist).
 * @param {TestFileLike[]} files the test files that ran
 * @param {Record<string, string>} allowList
 * @param {{ rootDir: string, filtered: boolean, exists?: (file: string) => boolean }} opts
 * @returns {Verdict}
 */
function judge(files, allowList, opts) {
  const exists = opts.exists ?? ((f) => fs.existsSync(path.join(opts.rootDir, f)));
  /** @type {Verdict} */
  const verdict = { allowed: [], unallowed: [], stale: [] };
  const ranFiles = new Set();
  const notRun = new Set();
  for (const f of files) {
    ranFiles.add(path.relative(opts.rootDir, f.testFilePath).split(path.sep).join('/'));
    for (const a of f.testResults) {
      if (!NOT_RUN.has(a.status)) continue;
      const name = testName(opts.rootDir, f.testFilePath, a);
      // With a name filter, jest marks every test it left out as skipped: those say nothing.
      if (opts.filtered && a.status !== 'todo') continue;
      notRun.add(name);
      const reason = allowList[name];
      if (reason !== undefined) verdict.allowed.push({ name, status: a.status, reason });
      else verdict.unallowed.push({ name, status: a.status });
    }
  }
  for (const [name, reason] of Object.entries(allowList)) {
    const file = name.slice(0, name.indexOf(SEP));
    if (!exists(file)) verdict.stale.push({ name, reason, why: `${file} does not exist` });
    else if (ranFiles.has(file) && !opts.filtered && !notRun.has(name)) verdict.stale.push({ name, reason, why: 'the test ran (or is gone): remove the entry' });
  }
  return verdict;
}

/**
 * What the reporter prints after a run.
 * @param {Verdict} v
 * @param {boolean} enforce
 */
function describeVerdict(v, enforce) {
  const lines = [];
  if (v.allowed.length) {
    lines.push(`Skipped, on the allow-list (${v.allowed.length}):`);
    for (const t of v.allowed) lines.push(`  ${t.name} [${t.status}]\n      reason: ${t.reason}`);
  }
  if (v.unallowed.length) {
    lines.push(`Skipped, NOT on the allow-list (${v.unallowed.length})${enforce ? ': this fails the run under CI' : ''}:`);
    for (const t of v.unallowed) lines.push(`  ${t.name} [${t.status}]`);
  }
  if (v.stale.length) {
    lines.push(`Stale allow-list entries (${v.stale.length})${enforce ? ': this fails the run under CI' : ''}:`);
    for (const t of v.stale) lines.push(`  ${t.name}: ${t.why}`);
  }
  return lines.join('\n');
}

class SkipGuard {
  /**
   * @param {{ rootDir: string, testNamePattern?: string | null }} globalConfig
   * @param {Options} [options]
   */
  constructor(globalConfig, options = {}) {
    this.rootDir = options.rootDir ?? ROOT;
    this.allowListFile = options.allowList ? path.resolve(this.rootDir, options.allowList) : DEFAULT_ALLOW_LIST;
    this.enforce = options.enforce ?? process.env.CI === 'true';
    this.filtered = !!globalConfig.testNamePattern;
    /** @type {Error | undefined} */
    this.error = undefined;
  }

  /**
   * @param {unknown} _contexts
   * @param {{ testResults: TestFileLike[] }} results
   */
  onRunComplete(_contexts, results) {
    let verdict;
    try {
      verdict = judge(results.testResults, readAllowList(this.allowListFile), { rootDir: this.rootDir, filtered: this.filtered });
    } catch (e) {
      this.error = e instanceof Error ? e : new Error(String(e));
      process.stderr.write(`\n[skip-guard] ${this.error.message}\n`);
      return;
    }
    const text = describeVerdict(verdict, this.enforce);
    if (text) process.stderr.write(`\n[skip-guard]\n${text}\n`);
    if (this.enforce && (verdict.unallowed.length || verdict.stale.length)) {
      this.error = new Error(
        `[skip-guard] ${verdict.unallowed.length} skipped test(s) not on ${path.relative(this.rootDir, this.allowListFile)}, ` +
          `${verdict.stale.length} stale entr${verdict.stale.length === 1 ? 'y' : 'ies'}`,
      );
      process.stderr.write(`${this.error.message}: the run fails\n`);
    }
  }

  getLastError() {
    return this.error;
  }
}

/** Prints the allow-list with its reasons. */
function printAllowList(file = DEFAULT_ALLOW_LIST) {
  const list = readAllowList(file);
  const names = Object.keys(list);
  process.stdout.write(`Tests allowed to skip (${path.relative(ROOT, file)}): ${names.length}\n`);
  for (const name of names) process.stdout.write(`  ${name}\n      reason: ${list[name]}\n`);
}

module.exports = SkipGuard;
module.exports.judge = judge;
module.exports.readAllowList = readAllowList;
module.exports.describeVerdict = describeVerdict;
module.exports.SEP = SEP;

if (require.main === module && process.argv.includes('--print')) printAllowList();
