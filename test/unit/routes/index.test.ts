// src/http/routes/index.ts: every route of the table belongs to one route file, and every route file that owns
// routes has its handler test here, named for it; so a route added to the table without one fails at once.

import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { routes } from '../../../src/http/routes';
import { patternsOf } from '../../helpers/in-process';

const ROUTES_DIR = join(__dirname, '../../../src/http/routes');

/** Each route file of src/http/routes (the table itself aside) and the patterns whose handler it exports. */
const owners = readdirSync(ROUTES_DIR)
  .filter((f) => f.endsWith('.ts') && f !== 'index.ts')
  .map((f) => {
    const name = f.slice(0, -'.ts'.length);
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    return { name, patterns: patternsOf(require(join(ROUTES_DIR, f)) as Record<string, unknown>) };
  });

test('every pattern of the table is handled by exactly one route file', () => {
  const claims = routes.map((r) => [r.pattern, owners.filter((o) => o.patterns.includes(r.pattern)).map((o) => o.name)]);
  expect(claims.filter(([, by]) => by.length !== 1)).toEqual([]);
});

test('every route file with routes has its handler test beside this one', () => {
  const missing = owners.filter((o) => o.patterns.length > 0 && !existsSync(join(__dirname, `${o.name}.test.ts`))).map((o) => o.name);
  expect(missing).toEqual([]);
});
