#!/usr/bin/env node
'use strict';
// `npm run bench [-- <benchmark>...] [--option value ...]`: runs benchmarks of bench/, each a sibling module
// exporting { description, options, run(opts) }. Without a name, every benchmark runs but those of ONLY_NAMED.
//   npm run bench -- serve --duration 5 --only tilemirror,bare
//   npm run bench -- --help

const path = require('node:path');
const fs = require('node:fs');

// One module per benchmark; add `static` and `mirror` here when they exist.
const BENCHMARKS = ['serve', 'static', 'mirror', 'location', 'geocoding', 'geolocation', 'soak', 'pmtiles', 'topology', 'bundle', 'wan', 'slowread', 'country', 'render', 'wms', 'grid-tiles'].filter((n) => fs.existsSync(path.join(__dirname, `${n}.js`)));

// Run only when named: `country` generates a 5 GB store and takes ~40 minutes.
const ONLY_NAMED = ['country'];

function parseArgs(argv) {
  const names = [];
  const flags = {};
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--help' || a === '-h') flags.help = true;
    else if (a.startsWith('--no-')) flags[a.slice(5)] = false;
    else if (a.startsWith('--')) {
      const eq = a.indexOf('=');
      if (eq > 0) flags[a.slice(2, eq)] = a.slice(eq + 1);
      else if (i + 1 < argv.length && !argv[i + 1].startsWith('--')) flags[a.slice(2)] = argv[++i];
      else flags[a.slice(2)] = true;
    } else names.push(a);
  }
  return { names, flags };
}

function optionsFor(bench, flags) {
  const opts = {};
  for (const [name, spec] of Object.entries(bench.options ?? {})) {
    let v = flags[name] ?? spec.default;
    if (typeof spec.default === 'number') {
      v = Number(v);
      if (!Number.isFinite(v)) throw new Error(`--${name} needs a number`);
    } else if (typeof spec.default === 'boolean') v = v === true || v === 'true';
    opts[name] = v;
  }
  for (const k of Object.keys(flags)) if (k !== 'help' && !(k in (bench.options ?? {}))) throw new Error(`unknown option --${k}`);
  return opts;
}

function usage() {
  const lines = ['usage: npm run bench -- [benchmark ...] [--option value ...]', ''];
  for (const n of BENCHMARKS) {
    const b = require(`./${n}`);
    lines.push(`${n}: ${b.description}`);
    for (const [o, s] of Object.entries(b.options ?? {})) lines.push(`  --${o.padEnd(12)} ${s.help} (default ${s.default})`);
    lines.push('');
  }
  return lines.join('\n');
}

async function main() {
  const { names, flags } = parseArgs(process.argv.slice(2));
  if (flags.help) return console.log(usage());
  for (const n of names) if (!BENCHMARKS.includes(n)) throw new Error(`unknown benchmark ${n} (have: ${BENCHMARKS.join(', ')})`);
  for (const n of names.length ? names : BENCHMARKS.filter((b) => !ONLY_NAMED.includes(b))) {
    const bench = require(`./${n}`);
    await bench.run(optionsFor(bench, flags));
  }
}

main().then(
  () => process.exit(process.exitCode ?? 0),
  (err) => {
    console.error(`bench: ${err.stack ?? err}`);
    process.exit(1);
  },
);
