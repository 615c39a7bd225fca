// @ts-check
// The order the suite's files start in: the longest ones first, named below, then jest's own order (the last run's
// durations from its cache, else the largest file first). On a fresh machine jest has no durations: the exhaustive
// EPSG test (ten minutes of one worker, a middle-sized file) started 34th and ran on alone after every other file
// had ended, while the second worker stood idle. Started first, its ten minutes overlap everything else.
// The list is the longest files of the last CI, longest first; a file missing from it only starts in jest's order.
'use strict';

const path = require('node:path');

/** @type {typeof import('@jest/test-sequencer').default} */
const Sequencer = require(require.resolve('@jest/test-sequencer', { paths: [path.dirname(require.resolve('jest'))] })).default;

const ROOT = path.resolve(__dirname, '..');
const LONGEST = [
  'test/interop/coordinates-transform-every-crs.interop.test.ts',
  'test/integration/slow-readers.memory.test.ts',
  'test/integration/renderer.test.ts',
  'test/integration/topology.nginx-redis.test.ts',
  'test/integration/mirror.faults.test.ts',
  'test/integration/maps.rendered.test.ts',
  'test/e2e/admin-console.browser.test.ts',
  'test/integration/mirror.cloud-faults.test.ts',
];

class LongestFirst extends Sequencer {
  /**
   * @override
   * @param {import('@jest/test-result').Test[]} tests
   * @returns {Promise<import('@jest/test-result').Test[]>}
   */
  async sort(tests) {
    const order = await super.sort(tests);
    /** @param {import('@jest/test-result').Test} t */
    const rank = (t) => {
      const i = LONGEST.indexOf(path.relative(ROOT, t.path).split(path.sep).join('/'));
      return i < 0 ? LONGEST.length : i;
    };
    return order.map((t, i) => ({ t, i })).sort((a, b) => rank(a.t) - rank(b.t) || a.i - b.i).map((x) => x.t);
  }
}

module.exports = LongestFirst;
