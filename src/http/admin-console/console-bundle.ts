// The last step of `npm run build` for the console: tsc (tsconfig.console.json) compiles browser/console.ts and the
// modules it imports to ES modules in dist/console/modules; this joins them into dist/console/console.js, the one
// file /admin/console.js serves (its route table has that one script, and the page loads no other).
//
// Not a general bundler: it reads what tsc writes for these sources and refuses anything else, loudly, at build
// time. Each module's imports of other compiled modules are removed and the module placed before its importer
// (its `export` keywords dropped). A package the server serves itself (MapLibre, under /assets) is imported by its
// npm name in the sources, so TypeScript checks it against the package's own types; here that import is pointed
// at the server's copy, relative to /admin/console.js. Only the entry may import such a package, and any other
// import fails the build. Two modules declaring the same top-level name would collide in one scope: that fails too.

import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

/** Where the build puts the modules and the joined script (this file is in src|dist/http/admin-console). */
export const CONSOLE_BUILD_DIR = resolve(__dirname, '..', '..', '..', 'dist', 'console');
export const CONSOLE_MODULES_DIR = join(CONSOLE_BUILD_DIR, 'modules');
export const CONSOLE_SCRIPT_FILE = join(CONSOLE_BUILD_DIR, 'console.js');
/** The entry, relative to the modules' folder (tsc keeps the source tree under src/). */
export const CONSOLE_ENTRY = 'http/admin-console/browser/console.js';
/** The packages the console imports from the server's /assets, as URLs relative to /admin/console.js (app.ts serves them). */
export const SERVED_PACKAGES: Readonly<Record<string, string>> = { 'maplibre-gl': '../assets/maplibre-gl/maplibre-gl.mjs' };

const IMPORT = /^import\s+([^;]*?)\s+from\s+'([^']+)';?[ \t]*$/gm;
const SIDE_EFFECT_IMPORT = /^import\s+'[^']+';?/m;
const EXPORT_DECLARATION = /^export (?=(?:async\s+)?(?:function\*?|class|const|let|var)\s)/gm;
const EMPTY_EXPORT = /^export \{\};?[ \t]*$/gm;
const TOP_LEVEL_NAME = /^(?:async\s+)?(?:function\*?|class|const|let|var)\s+([A-Za-z_$][\w$]*)/gm;

export interface JoinedScript {
  text: string;
  /** The modules joined, relative to the modules' folder, each after those it imports (the entry last). */
  modules: string[];
}

/**
 * Joins `entry` (relative to `dir`) and the compiled modules it imports into one ES module's text; `served` maps the
 * packages the entry may import to the URLs they are served at.
 */
export function joinModules(dir: string, entry: string, served: Readonly<Record<string, string>> = SERVED_PACKAGES): JoinedScript {
  const order: string[] = [];
  const bodies = new Map<string, string>();
  const external: string[] = [];
  const visiting = new Set<string>();
  const visit = (file: string): void => {
    if (bodies.has(file)) return;
    if (visiting.has(file)) throw new Error(`console build: ${relative(dir, file)} imports itself through others`);
    visiting.add(file);
    let text = readFileSync(file, 'utf8').replace(/^\/\/# sourceMappingURL=.*$/m, '');
    if (SIDE_EFFECT_IMPORT.test(text)) throw new Error(`console build: ${relative(dir, file)} has an import without bindings`);
    text = text.replace(IMPORT, (_statement: string, clause: string, specifier: string) => {
      const target = specifier.startsWith('.') ? resolve(dirname(file), specifier) : '';
      const compiled = [target, `${target}.js`].find((f) => f && f.endsWith('.js') && existsSync(f) && f.startsWith(dir));
      if (!compiled) {
        const url = Object.hasOwn(served, specifier) ? served[specifier] : undefined;
        if (!url) throw new Error(`console build: ${relative(dir, file)} imports ${specifier}, neither compiled here nor a package the server serves`);
        if (file !== join(dir, entry)) throw new Error(`console build: ${relative(dir, file)} imports ${specifier} (only the entry may import a served package)`);
        external.push(`import ${clause} from '${url}';`);
        return '';
      }
      if (!/^\{[\w$\s,]*\}$/.test(clause) || /\sas\s/.test(clause)) throw new Error(`console build: ${relative(dir, file)} imports ${specifier} as "${clause}" (only named imports without renaming are joined)`);
      visit(compiled);
      return '';
    });
    if (/^export\s+(?!(?:async\s+)?(?:function\*?|class|const|let|var)\s|\{\};?[ \t]*$)/m.test(text)) {
      throw new Error(`console build: ${relative(dir, file)} has an export other than a declaration`);
    }
    text = text.replace(EMPTY_EXPORT, '').replace(EXPORT_DECLARATION, '').trim();
    visiting.delete(file);
    bodies.set(file, text);
    order.push(file);
  };
  visit(join(dir, entry));

  const declaredIn = new Map<string, string>();
  for (const file of order) {
    for (const m of bodies.get(file)!.matchAll(TOP_LEVEL_NAME)) {
      const other = declaredIn.get(m[1]);
      if (other && other !== file) throw new Error(`console build: ${m[1]} is declared by both ${relative(dir, other)} and ${relative(dir, file)}`);
      declaredIn.set(m[1], file);
    }
  }
  const modules = order.map((f) => relative(dir, f));
  const parts = order.map((f) => `// ---- ${relative(dir, f)}\n${bodies.get(f)}\n`);
  const head = '// tilemirror console: built from src/http/admin-console/browser by `npm run build` (tsconfig.console.json, then console-bundle.ts); do not edit.\n';
  return { text: `${external.join('\n')}\n${head}\n${parts.join('\n')}`, modules };
}

/** `node dist/http/admin-console/console-bundle.js`: writes dist/console/console.js from the compiled modules. */
if (require.main === module) {
  const { text, modules } = joinModules(CONSOLE_MODULES_DIR, CONSOLE_ENTRY);
  mkdirSync(dirname(CONSOLE_SCRIPT_FILE), { recursive: true });
  writeFileSync(CONSOLE_SCRIPT_FILE, text);
  process.stdout.write(`console: ${modules.length} modules joined into ${relative(process.cwd(), CONSOLE_SCRIPT_FILE)} (${text.length} bytes)\n`);
}
