import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import ts from 'typescript';

// The import graph of src/, read with TypeScript's own parser and module resolution (type-only imports count:
// a circle of types is still a circle a reader has to hold in mind). Two rules of docs/architecture.md:
// no module imports itself through others, and imports point one way down the layers.

const SRC = resolve(__dirname, '../../src');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = join(dir, e.name);
    if (e.isDirectory()) return sourceFiles(p);
    return /\.(ts|js)$/.test(e.name) && !e.name.endsWith('.d.ts') ? [p] : [];
  });
}

const options: ts.CompilerOptions = { module: ts.ModuleKind.CommonJS, moduleResolution: ts.ModuleResolutionKind.Node10, allowJs: true };

/** Every file of src/ with the files of src/ it imports (relative to src/, without extension). */
function importGraph(): Map<string, string[]> {
  const name = (file: string) => relative(SRC, file).replace(/\.(ts|js)$/, '');
  const graph = new Map<string, string[]>();
  for (const file of sourceFiles(SRC)) {
    const info = ts.preProcessFile(readFileSync(file, 'utf8'), true, true);
    const targets = new Set<string>();
    for (const imported of info.importedFiles) {
      if (!imported.fileName.startsWith('.')) continue;
      const found = ts.resolveModuleName(imported.fileName, file, options, ts.sys).resolvedModule?.resolvedFileName;
      if (!found) throw new Error(`${name(file)}: cannot resolve ${imported.fileName}`);
      if (found.startsWith(SRC)) targets.add(name(found));
    }
    graph.set(name(file), [...targets]);
  }
  return graph;
}

/** Strongly connected components of more than one file, or of one file importing itself (Tarjan). */
function circles(graph: Map<string, string[]>): string[][] {
  let counter = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (v: string): void => {
    index.set(v, counter);
    low.set(v, counter++);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) {
        low.set(v, Math.min(low.get(v)!, index.get(w)!));
      }
    }
    if (low.get(v) === index.get(v)) {
      const component: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        component.push(w);
      } while (w !== v);
      if (component.length > 1 || graph.get(v)!.includes(v)) found.push(component.sort());
    }
  };
  for (const v of graph.keys()) if (!index.has(v)) visit(v);
  return found;
}

const graph = importGraph();

/** The layer of a file: its folder under src/, or the file itself at the top. */
const layer = (file: string): string => (file.includes('/') ? file.slice(0, file.indexOf('/')) : file);

test('the graph is read: every layer is there and files import each other', () => {
  for (const l of ['geo', 'store', 'services', 'ogc', 'http', 'mirror', 'config', 'cli']) {
    expect([...graph.keys()].some((f) => layer(f) === l)).toBe(true);
  }
  // A known edge, so a resolution that silently finds nothing fails here.
  expect(graph.get('http/server')).toEqual(expect.arrayContaining([expect.stringMatching(/^store\//)]));
});

test('no import circle anywhere in src/', () => {
  expect(circles(graph)).toEqual([]);
});

// What each layer may import besides itself (docs/architecture.md, "Layers").
const ALLOWED: Record<string, readonly string[]> = {
  errors: [],
  // The mirror jobs' records and interfaces, between store (the state file), http (status, admin) and mirror.
  'job-contracts': [],
  geo: ['errors'],
  config: ['geo', 'errors'],
  store: ['geo', 'config', 'errors', 'job-contracts'],
  ogc: ['geo', 'store', 'errors'],
  services: ['geo', 'store', 'ogc', 'config', 'errors'],
  http: ['geo', 'store', 'ogc', 'services', 'config', 'errors', 'job-contracts'],
  mirror: ['geo', 'store', 'ogc', 'services', 'config', 'errors', 'job-contracts'],
  bundle: ['geo', 'store', 'config', 'errors'],
  sample: ['geo', 'store', 'ogc', 'services', 'config', 'errors'],
};

test('imports point one way down the layers; nothing imports http, mirror or the command line but the top', () => {
  const wrong: string[] = [];
  for (const [file, targets] of graph) {
    const from = layer(file);
    const allowed = ALLOWED[from];
    if (!allowed) continue; // the top: cli, serve and the composition root wire everything
    for (const t of targets) {
      const to = layer(t);
      if (to !== from && !allowed.includes(to)) wrong.push(`${file} -> ${t}`);
    }
  }
  expect(wrong).toEqual([]);
});
