// src/http/admin-console/console-bundle.ts: the build step that joins the console's compiled browser modules into
// the one script /admin/console.js serves. On small modules written here (as tsc writes them), and on the real
// build: the served script is made of the browser's modules and the pure ones they share, never of server code.

import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { CONSOLE_ENTRY, CONSOLE_MODULES_DIR, joinModules } from '../../src/http/admin-console/console-bundle';
import { tempDirs } from '../helpers/temp-dirs';

const { tempDir, removeTempDirs } = tempDirs('tilemirror-console-bundle-');
afterAll(removeTempDirs);

const SERVED = { lib: '../assets/lib/lib.mjs' };

/** A folder of compiled modules: file name → text. */
function modules(files: Record<string, string>): string {
  const dir = tempDir();
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, name)), { recursive: true });
    writeFileSync(join(dir, name), text);
  }
  return dir;
}

test('joins the modules each after those it imports, drops their exports, points a served package at its URL', () => {
  const dir = modules({
    'a/main.js': "import { Thing } from 'lib';\nimport { twice } from './two.js';\nimport { one } from '../b/one.js';\nexport {};\nconsole.log(new Thing(twice(one)));\n",
    'a/two.js': "import { one } from '../b/one.js';\nexport function twice(n) {\n    return 2 * n * one;\n}\n//# sourceMappingURL=two.js.map\n",
    'b/one.js': 'export const one = 1;\n',
  });
  const { text, modules: order } = joinModules(dir, 'a/main.js', SERVED);
  expect(order).toEqual(['b/one.js', 'a/two.js', 'a/main.js']);
  expect(text.split('\n')[0]).toBe("import { Thing } from '../assets/lib/lib.mjs';");
  expect(text.match(/^import /gm)).toHaveLength(1);
  expect(text).not.toMatch(/^export|sourceMappingURL/m);
  expect(text.indexOf('const one = 1;')).toBeLessThan(text.indexOf('function twice(n)'));
  expect(text.indexOf('function twice(n)')).toBeLessThan(text.indexOf('console.log(new Thing'));
  // It runs: the modules' code in one scope, the package given.
  const run = new Function('Thing', 'console', text.replace(/^import .*$/m, ''));
  const logged: unknown[] = [];
  run(
    class {
      constructor(readonly n: number) {}
    },
    { log: (v: unknown) => logged.push(v) },
  );
  expect(logged).toEqual([{ n: 2 }]);
});

test.each([
  ['two modules declare one name', { 'main.js': "import { f } from './f.js';\nconst g = 1;\nf(g);\n", 'f.js': 'const g = 2;\nexport function f(x) { return x + g; }\n' }, /g is declared by both f\.js and main\.js/],
  ['an import renames', { 'main.js': "import { f as h } from './f.js';\nh();\n", 'f.js': 'export function f() {}\n' }, /imports \.\/f\.js as "\{ f as h \}"/],
  ['a namespace import', { 'main.js': "import * as m from './f.js';\nm.f();\n", 'f.js': 'export function f() {}\n' }, /imports \.\/f\.js as "\* as m"/],
  ['a package the server does not serve', { 'main.js': "import { readFileSync } from 'node:fs';\nreadFileSync('x');\n" }, /imports node:fs, neither compiled here nor a package the server serves/],
  ['a module other than the entry imports a served package', { 'main.js': "import { f } from './f.js';\nf();\n", 'f.js': "import { Thing } from 'lib';\nexport function f() { return new Thing(); }\n" }, /f\.js imports lib \(only the entry may/],
  ['a default export', { 'main.js': "import { f } from './f.js';\nf();\n", 'f.js': 'export function f() {}\nexport default f;\n' }, /f\.js has an export other than a declaration/],
  ['a circle', { 'main.js': "import { f } from './f.js';\nf();\n", 'f.js': "import { g } from './g.js';\nexport function f() { g(); }\n", 'g.js': "import { f } from './f.js';\nexport function g() { f(); }\n" }, /imports itself through others/],
])('fails the build when %s', (_what, files, message) => {
  expect(() => joinModules(modules(files), 'main.js', SERVED)).toThrow(message);
});

test('the built console is its browser modules and the pure ones they share: no server module, MapLibre from /assets', () => {
  const { text, modules: order } = joinModules(CONSOLE_MODULES_DIR, CONSOLE_ENTRY);
  expect([...order].sort()).toEqual([
    'http/admin-console/browser/console.js',
    'http/admin-console/browser/dom.js',
    'http/admin-console/browser/jobs-view.js',
    'http/admin-console/coverage-colours.js',
    'store/units.js',
  ]);
  expect(order[order.length - 1]).toBe(CONSOLE_ENTRY);
  expect(text.match(/^import .*$/gm)).toEqual(["import { Map, NavigationControl } from '../assets/maplibre-gl/maplibre-gl.mjs';"]);
  expect(text).not.toMatch(/\brequire\(|node:/);
});
