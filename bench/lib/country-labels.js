'use strict';
// A child process of the country bench: builds the label index of a store through its tile reader (the built
// dist/, as `serve` does), alone in its process so its peak RSS is the build's, and prints one JSON line with
// the build's statistics, wall time, CPU seconds and peak RSS; with --queries <manifest.json> it then opens the
// index with the geocoding service as `serve` does and answers the manifest's known-answer queries (forward and
// reverse), timing each.
//
//   node bench/lib/country-labels.js --store <file.mbtiles|.pmtiles> --out <index.sqlite> [--queries <manifest>]

const fs = require('node:fs');
const path = require('node:path');
const ROOT = path.resolve(__dirname, '..', '..');

function arg(name, d) {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : d;
}

/** The store opened as the catalog opens it (same signature, so the same version: `serve` uses the index as is). */
function openReader(file) {
  const { openTileStore, signatureOf } = require(path.join(ROOT, 'dist', 'store', 'open.js'));
  return openTileStore(file, 'tiles', 'country', signatureOf(file).signature);
}

function rssMb() {
  return Number(/VmRSS:\s+(\d+)/.exec(fs.readFileSync('/proc/self/status', 'utf8'))[1]) / 1024;
}

async function build(store, out) {
  // As `serve` builds it: in a worker thread (process.cpuUsage counts every thread of the process).
  const { buildLabelIndexInThread } = require(path.join(ROOT, 'dist', 'services', 'geocoding', 'labels-build-thread.js'));
  const reader = openReader(store);
  let peakSampled = rssMb();
  const sampler = setInterval(() => (peakSampled = Math.max(peakSampled, rssMb())), 200);
  const cpu0 = process.cpuUsage();
  const t0 = Date.now();
  const stats = await buildLabelIndexInThread(reader, out, {});
  const wall = (Date.now() - t0) / 1000;
  const cpu = process.cpuUsage(cpu0);
  clearInterval(sampler);
  reader.close();
  return { ...stats, wallSeconds: wall, cpuSeconds: (cpu.user + cpu.system) / 1e6, peakRssMb: Math.max(peakSampled, process.resourceUsage().maxRSS / 1024) };
}

const pct = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];

function metres(a, b) {
  const r = Math.PI / 180;
  const h = Math.sin(((b[1] - a[1]) * r) / 2) ** 2 + Math.cos(a[1] * r) * Math.cos(b[1] * r) * Math.sin(((b[0] - a[0]) * r) / 2) ** 2;
  return 2 * 6_371_008.8 * Math.asin(Math.sqrt(h));
}

/** Distance from a point to a polyline (metres, on a local flat projection: the lines are ~1.4 km). */
function metresToLine(p, line) {
  const k = Math.cos((p[1] * Math.PI) / 180);
  let best = Infinity;
  for (let i = 0; i + 1 < line.length; i++) {
    const [ax, ay] = [line[i][0] * k, line[i][1]];
    const [bx, by] = [line[i + 1][0] * k, line[i + 1][1]];
    const [px, py] = [p[0] * k, p[1]];
    const dx = bx - ax;
    const dy = by - ay;
    const t = Math.max(0, Math.min(1, ((px - ax) * dx + (py - ay) * dy) / (dx * dx + dy * dy || 1)));
    best = Math.min(best, Math.hypot(px - (ax + t * dx), py - (ay + t * dy)) * 111_320);
  }
  return best;
}

/** The geocoding service over the gazetteer and this one label index, as `serve` builds it. */
function service(indexFile) {
  const { LabelIndex } = require(path.join(ROOT, 'dist', 'services', 'geocoding', 'labels-index.js'));
  const { GeocodingService } = require(path.join(ROOT, 'dist', 'services', 'geocoding', 'service.js'));
  const { DEFAULT_INDEX_DIR } = require(path.join(ROOT, 'dist', 'config', 'load.js'));
  const ix = new LabelIndex(indexFile);
  const finder = {
    search: (text, opts) => ix.search(text, opts),
    nearest: (lon, lat, opts) => ix.nearest(lon, lat, opts),
    byId: (id) => ix.byNumber(Number(id.slice(id.lastIndexOf('.') + 1))),
    attribution: () => [ix.attribution],
  };
  return { svc: new GeocodingService({ indexDir: DEFAULT_INDEX_DIR, labels: finder }), ix };
}

/**
 * Where each POI name of the query set was placed, over the whole country (the generator's content function, not
 * the index): a POI name can repeat (a chain's), and then any of its places is a right answer.
 */
function poiPlaces(manifest) {
  const content = require('./country-content');
  const wanted = new Map(manifest.queries.poi.map((k) => [k.name, []]));
  const { area } = manifest;
  for (let y = area.y0; y <= area.y1; y++) {
    for (let x = area.x0; x <= area.x1; x++) for (const p of content.z14Content(area, x, y).pois) wanted.get(p.name)?.push(p.lonlat);
  }
  return wanted;
}

function queries(indexFile, manifest) {
  const { svc } = service(indexFile);
  const poiAt = poiPlaces(manifest);
  const forwardOpts = { autocomplete: true, fuzzyMatch: true, limit: 5, language: [] };
  const kinds = {};
  const q = manifest.queries;
  // Right when top-1 is the thing placed: the address within 30 m of its point with the right number, the
  // street within 30 m of its line, the POI / place within 30 m of its point with the name asked (a POI name
  // placed more than once: within 30 m of any of its points).
  const checks = {
    address: (f, k) => f.address === k.housenumber && f.text === k.street && metres(f.center, k.lonlat) <= 30,
    street: (f, k) => f.text === k.name && metresToLine(f.center, k.line) <= 30,
    poi: (f, k) => f.text === k.name && poiAt.get(k.name).some((at) => metres(f.center, at) <= 30),
    place: (f, k) => f.text === k.name && metres(f.center, k.lonlat) <= 30,
  };
  // With towns (the same names in each), a name alone has as many answers as towns: the known answers are asked
  // with proximity ~300 m from what was placed (the placed one is then the nearest of its name), and once more
  // without, where any town's is right.
  const towns = manifest.area.town > 0;
  const near = (lonlat) => [lonlat[0] + 0.003, lonlat[1] + 0.002];
  const pointOf = { address: (k) => k.lonlat, street: (k) => k.line[Math.floor(k.line.length / 2)], poi: (k) => k.lonlat, place: () => undefined };
  if (towns) {
    const named = { address: (f, k) => f.address === k.housenumber && f.text === k.street, street: (f, k) => f.text === k.name, poi: (f, k) => f.text === k.name };
    for (const [kind, check] of Object.entries(named)) checks[`${kind}, any town`] = check;
  }
  const optsOf = (kind, k) => {
    if (!towns || kind.endsWith('any town')) return forwardOpts;
    const at = pointOf[kind](k);
    return at ? { ...forwardOpts, proximity: near(at) } : forwardOpts;
  };
  for (const pass of ['warm', 'measured']) {
    for (const kind of Object.keys(checks)) {
      const times = [];
      let right = 0;
      const wrong = [];
      for (const k of q[kind.replace(', any town', '')]) {
        const t = process.hrtime.bigint();
        const fc = svc.forward(k.query, optsOf(kind, k));
        times.push(Number(process.hrtime.bigint() - t) / 1e6);
        const top = fc.features[0];
        if (top && checks[kind](top, k)) right++;
        else if (wrong.length < 3) wrong.push({ query: k.query, got: top && { text: top.text, address: top.address, center: top.center } });
      }
      times.sort((a, b) => a - b);
      if (pass === 'measured') kinds[kind] = { n: times.length, right, p50: pct(times, 50), p99: pct(times, 99), wrong };
    }
  }
  Object.assign(kinds, commonQueries(svc, manifest));
  const rev = [];
  let revRight = 0;
  for (const pass of ['warm', 'measured']) {
    for (const k of q.address) {
      const t = process.hrtime.bigint();
      const fc = svc.reverse(k.lonlat[0], k.lonlat[1], { language: [] });
      const ms = Number(process.hrtime.bigint() - t) / 1e6;
      if (pass === 'measured') {
        rev.push(ms);
        if (fc.features.find((f) => f.place_type.includes('address'))?.address === k.housenumber) revRight++;
      }
    }
  }
  rev.sort((a, b) => a - b);
  return { forward: kinds, reverse: { n: rev.length, right: revRight, p50: pct(rev, 50), p99: pct(rev, 99) }, rssMb: rssMb() };
}

/**
 * The queries whose words many labels hold, asked at the placed addresses (the generator's record): a category word
 * (the POI classes, in English as a category and in French as the names say), with proximity, without, with a
 * bbox around the point and with types=poi; one- and two-letter prefixes with autocomplete; a street and the first
 * digit of a house number. Right: a category's top-1 is a POI of the class, and under proximity no POI of the class
 * was placed nearer than it (the generator's content of the 7 x 7 tiles around); a prefix's top-1 begins with it
 * (the name shown, or the one that matched: another language's);
 * a street and a digit's top-1 is an address of that street whose number begins with the digit.
 */
function commonQueries(svc, manifest) {
  const content = require('./country-content');
  const { area } = manifest;
  const addresses = manifest.queries.address;
  const CLASSES = [['cafe', 'cafe', 'café'], ['pharmacy', 'pharmacy', 'pharmacie'], ['school', 'school', 'école'], ['hotel', 'lodging', 'hôtel'], ['fuel', 'fuel', 'station'], ['restaurant', 'restaurant', 'restaurant']];
  const tileOf = ([lon, lat]) => {
    const n = 2 ** 14;
    const x = Math.floor(((lon + 180) / 360) * n);
    const y = Math.floor(((1 - Math.log(Math.tan((lat * Math.PI) / 180) + 1 / Math.cos((lat * Math.PI) / 180)) / Math.PI) / 2) * n);
    return [x, y];
  };
  /** The nearest POI of a class placed within 3 tiles of the point (metres), from the generator's content. */
  const nearestPlaced = (point, cls) => {
    const [tx, ty] = tileOf(point);
    let best = Infinity;
    for (let y = Math.max(area.y0, ty - 3); y <= Math.min(area.y1, ty + 3); y++)
      for (let x = Math.max(area.x0, tx - 3); x <= Math.min(area.x1, tx + 3); x++)
        for (const p of content.z14Content(area, x, y).pois) if (p.class === cls) best = Math.min(best, metres(point, p.lonlat));
    return best;
  };
  const base = { autocomplete: true, fuzzyMatch: true, limit: 5, language: [] };
  const isClass = (f, cls) => (f.properties?.categories ?? []).includes(cls);
  const sets = {
    'category, proximity': addresses.map((k, i) => {
      const [word, cls] = CLASSES[i % CLASSES.length];
      return { query: word, opts: { ...base, proximity: k.lonlat }, right: (f) => isClass(f, cls) && metres(f.center, k.lonlat) <= nearestPlaced(k.lonlat, cls) + 1 };
    }),
    'category': addresses.map((k, i) => {
      const [word, cls] = CLASSES[i % CLASSES.length];
      return { query: word, opts: base, right: (f) => isClass(f, cls) };
    }),
    'category, bbox': addresses.map((k, i) => {
      const [word, cls] = CLASSES[i % CLASSES.length];
      const [lon, lat] = k.lonlat;
      return { query: word, opts: { ...base, bbox: [lon - 0.05, lat - 0.05, lon + 0.05, lat + 0.05] }, right: (f) => isClass(f, cls) };
    }),
    'category, types=poi, proximity': addresses.map((k, i) => {
      const [word, cls] = CLASSES[i % CLASSES.length];
      return { query: word, opts: { ...base, types: ['poi'], proximity: k.lonlat }, right: (f) => isClass(f, cls) };
    }),
    'category in French, proximity': addresses.map((k, i) => {
      const [, cls, word] = CLASSES[i % CLASSES.length];
      return { query: word, opts: { ...base, proximity: k.lonlat }, right: (f) => f.text.toLowerCase().includes(word) || isClass(f, cls) };
    }),
    'prefix of 1-2 letters, proximity': addresses.map((k, i) => {
      const prefix = k.street.slice(0, 1 + (i % 2));
      return { query: prefix, opts: { ...base, proximity: k.lonlat }, right: (f) => (f.matching_text ?? f.text).toLowerCase().startsWith(prefix.toLowerCase()) };
    }),
    'prefix of 1-2 letters': addresses.map((k, i) => {
      const prefix = k.street.slice(0, 1 + (i % 2));
      return { query: prefix, opts: base, right: (f) => (f.matching_text ?? f.text).toLowerCase().startsWith(prefix.toLowerCase()) };
    }),
    'street and a digit, proximity': addresses.map((k) => {
      const digit = k.housenumber[0];
      return { query: `${k.street} ${digit}`, opts: { ...base, proximity: k.lonlat }, right: (f) => f.text === k.street && String(f.address ?? '').startsWith(digit) };
    }),
  };
  const out = {};
  for (const pass of ['warm', 'measured']) {
    for (const [kind, list] of Object.entries(sets)) {
      const times = [];
      let right = 0;
      const wrong = [];
      for (const k of list) {
        const t = process.hrtime.bigint();
        const fc = svc.forward(k.query, k.opts);
        times.push(Number(process.hrtime.bigint() - t) / 1e6);
        const top = fc.features[0];
        if (top && k.right(top)) right++;
        else if (wrong.length < 3) wrong.push({ query: k.query, got: top && { text: top.text, address: top.address, center: top.center } });
      }
      times.sort((a, b) => a - b);
      if (pass === 'measured') out[kind] = { n: times.length, right, p50: pct(times, 50), p99: pct(times, 99), wrong };
    }
  }
  return out;
}

async function main() {
  const out = arg('out');
  const result = {};
  if (arg('store')) result.build = await build(arg('store'), out);
  if (arg('queries')) result.queries = queries(out, JSON.parse(fs.readFileSync(arg('queries'), 'utf8')));
  console.log(`COUNTRY_JSON ${JSON.stringify(result)}`);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
