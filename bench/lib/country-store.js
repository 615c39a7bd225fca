'use strict';
// The synthetic country: a vector tile set of the OpenMapTiles schema (`country-content.js` says what each tile
// holds), encoded as MVT with vt-pbf, gzip-compressed, written with the project's StoreWriter into
// `<dir>/tiles/country.mbtiles`, beside `<dir>/manifest.json` (counts, the generator's parameters, and a sample of
// known answers for the geocoding queries). Worker threads (one per core) encode and compress; the main thread
// writes. The result is cached under `.bench/country/<GENERATOR>-s<scale>-b<buildings>/`: a second call with the
// same parameters returns it at once.
//
//   node bench/lib/country-store.js [--scale 1] [--buildings 700] [--dir <folder>]   (prints the folder)

const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const zlib = require('node:zlib');
const { Worker, isMainThread, parentPort, workerData } = require('node:worker_threads');
const content = require('./country-content');

/** Bump when what is generated changes: a cached store of another version is not reused. */
const GENERATOR = 'v1';
const ROOT = path.resolve(__dirname, '..', '..');
const CACHE = path.join(ROOT, '.bench', 'country');

function folderOf({ scale, buildings, towns = 0 }) {
  return path.join(CACHE, `${GENERATOR}-s${scale}-b${buildings}${towns ? `-t${towns}` : ''}`);
}

// ---- worker: encode and compress the tiles of a list of jobs ----

function encodeLayers(vtpbf, layers) {
  const named = {};
  for (const [name, features] of Object.entries(layers)) if (features.length) named[name] = { features };
  return Buffer.from(vtpbf.fromGeojsonVt(named, { version: 2, extent: content.EXTENT }));
}

/** Distinct filler layer sets encoded once per worker; a tile takes one by its address. */
const FILLER_POOL = 256;

function workerMain() {
  const vtpbf = require(path.join(ROOT, 'node_modules', 'vt-pbf'));
  const { area, buildings } = workerData;
  // An MVT tile is a sequence of layer messages: the label layers encoded per tile followed by a filler set
  // encoded once is a valid tile holding both (encoding 1,000 buildings per tile would triple generation time).
  const pool = [];
  for (let i = 0; i < FILLER_POOL; i++) pool.push(encodeLayers(vtpbf, content.filler(20, i, i, buildings)));
  const fillerOf = (z, x, y) => pool[(Math.imul(x, 2654435761) ^ Math.imul(y, 40503) ^ z) >>> 24];
  const tile = (z, x, y, layers) => zlib.gzipSync(Buffer.concat([encodeLayers(vtpbf, layers), fillerOf(z, x, y)]));
  parentPort.on('message', (job) => {
    if (job === 'exit') return process.exit(0);
    const out = [];
    const counts = { address: 0, road: 0, poi: 0, place: 0 };
    if (job.z === 14) {
      for (let x = area.x0; x <= area.x1; x++) {
        const c = content.z14Content(area, x, job.y);
        counts.address += c.addresses.length;
        counts.road += c.streets.length;
        counts.poi += c.pois.length;
        counts.place += c.places.length;
        out.push({ z: 14, x, y: job.y, data: tile(14, x, job.y, c.layers) });
      }
    } else {
      // Parents: their places and filler of the same weight (OpenMapTiles' lower zooms are no lighter).
      for (let x = job.x0; x <= job.x1; x++) out.push({ z: job.z, x, y: job.y, data: tile(job.z, x, job.y, { place: content.parentPlaces(area, job.z, x, job.y) }) });
    }
    parentPort.postMessage({ tiles: out, counts });
  });
}

// ---- main: the jobs, the workers, the writer ----

function jobsOf(area) {
  const jobs = [];
  for (let y = area.y0; y <= area.y1; y++) jobs.push({ z: 14, y });
  for (let z = 13; z >= 0; z--) {
    const d = 2 ** (14 - z);
    for (let y = Math.floor(area.y0 / d); y <= Math.floor(area.y1 / d); y++) jobs.push({ z, y, x0: Math.floor(area.x0 / d), x1: Math.floor(area.x1 / d) });
  }
  return jobs;
}

/**
 * Known answers for the geocoding queries: `n` of each kind, from z14 tiles picked by a seeded PRNG (the
 * content function again, not the store).
 */
function knownAnswers(area, n) {
  const r = content.rng(20260611);
  const pick = () => [area.x0 + Math.floor(r() * area.side), area.y0 + Math.floor(r() * area.side)];
  const out = { address: [], street: [], poi: [], place: [] };
  while (out.address.length < n || out.street.length < n || out.poi.length < n) {
    const [x, y] = pick();
    const c = content.z14Content(area, x, y);
    if (out.address.length < n) {
      const a = c.addresses[Math.floor(r() * c.addresses.length)];
      out.address.push({ query: `${a.housenumber} ${a.street}`, housenumber: a.housenumber, street: a.street, lonlat: a.lonlat });
    }
    if (out.street.length < n) {
      const s = c.streets[Math.floor(r() * c.streets.length)];
      out.street.push({ query: s.name, name: s.name, line: s.line });
    }
    if (out.poi.length < n) {
      const p = c.pois[Math.floor(r() * c.pois.length)];
      out.poi.push({ query: p.name, name: p.name, class: p.class, lonlat: p.lonlat });
    }
  }
  // The national roads (one name, many pieces): a tenth of the street queries.
  const national = content.nationalRoads(area);
  for (let i = 0; i < Math.min(national.length, Math.ceil(n / 10)); i++) {
    const s = national[Math.floor(r() * national.length)];
    out.street[i] = { query: s.name, name: s.name, line: s.line };
  }
  for (let i = 0; out.place.length < n && i < n * 1000; i++) {
    const [x, y] = pick();
    for (const p of content.z14Content(area, x, y).places) if (out.place.length < n) out.place.push({ query: p.name, name: p.name, class: p.class, lonlat: p.lonlat });
  }
  return out;
}

/** Every label placed (small scales only: the test's oracle), in lon/lat. */
function allLabels(area) {
  const out = { addresses: [], streets: [], pois: [], places: [] };
  for (let y = area.y0; y <= area.y1; y++) {
    for (let x = area.x0; x <= area.x1; x++) {
      const c = content.z14Content(area, x, y);
      out.addresses.push(...c.addresses);
      out.streets.push(...c.streets);
      out.pois.push(...c.pois);
      out.places.push(...c.places);
    }
  }
  out.streets.push(...content.nationalRoads(area));
  return out;
}

/**
 * Generates (or finds in the cache) the country of `scale` (1: 250,000 z14 tiles) with `buildings` filler
 * buildings a tile. Resolves with { dir, store, manifest, cached }.
 */
async function ensureCountry({ scale = 1, buildings = 1100, towns = 0, dir, threads = os.availableParallelism(), queries = 200, log = console.error } = {}) {
  const folder = dir ?? folderOf({ scale, buildings, towns });
  const store = path.join(folder, 'tiles', 'country.mbtiles');
  const manifestFile = path.join(folder, 'manifest.json');
  if (fs.existsSync(manifestFile) && fs.existsSync(store)) {
    return { dir: folder, store, manifest: JSON.parse(fs.readFileSync(manifestFile, 'utf8')), cached: true };
  }
  const { StoreWriter } = require(path.join(ROOT, 'dist', 'store', 'mbtiles', 'writer.js'));
  const area = content.areaOf(scale, towns);
  fs.mkdirSync(path.dirname(store), { recursive: true });
  const tmp = path.join(folder, `.country.${process.pid}.tmp`);
  fs.rmSync(tmp, { force: true });
  const west = content.lonLat(14, area.x0, area.y1 + 1, 0, 0);
  const east = content.lonLat(14, area.x1 + 1, area.y0, 0, 0);
  const bounds = [west[0], west[1], east[0], east[1]];
  const writer = new StoreWriter(tmp, {
    kind: 'tiles',
    name: 'Synthetic country (OpenMapTiles schema)',
    description: `bench/lib/country-store.js ${GENERATOR}, scale ${scale}`,
    attribution: 'synthetic data (tilemirror bench)',
    center: [(bounds[0] + bounds[2]) / 2, (bounds[1] + bounds[3]) / 2, 10],
    vectorLayers: content.VECTOR_LAYERS,
    pyramids: [{ name: 'main', tileSize: 512, scale: 1, format: 'pbf', minzoom: 0, maxzoom: 14, bounds }],
  });
  const started = Date.now();
  const jobs = jobsOf(area);
  const counts = { address: 0, road: 0, poi: 0, place: 0 };
  let tiles = 0;
  let bytes = 0;
  let next = 0;
  let lastLog = Date.now();
  const workers = [];
  try {
    await new Promise((resolve, reject) => {
      let running = 0;
      const pending = [];
      // Writes happen on the main thread in batches of a few thousand tiles (one transaction each).
      const flush = () => {
        if (pending.length === 0) return;
        writer.batch(() => {
          for (const t of pending) writer.putTile('main', t.z, t.x, t.y, Buffer.from(t.data.buffer, t.data.byteOffset, t.data.byteLength));
        });
        pending.length = 0;
      };
      const give = (w) => {
        if (next >= jobs.length) {
          w.postMessage('exit');
          if (--running === 0) {
            flush();
            resolve();
          }
          return;
        }
        w.postMessage(jobs[next++]);
      };
      for (let i = 0; i < Math.max(1, threads); i++) {
        const w = new Worker(__filename, { workerData: { area, buildings } });
        workers.push(w);
        running++;
        w.on('error', reject);
        w.on('message', (msg) => {
          for (const k of Object.keys(counts)) counts[k] += msg.counts[k];
          for (const t of msg.tiles) {
            pending.push(t);
            tiles++;
            bytes += t.data.byteLength;
          }
          if (pending.length >= 4000) flush();
          if (Date.now() - lastLog > 10000) {
            lastLog = Date.now();
            log(`country: ${tiles} tiles, ${(bytes / 1e9).toFixed(2)} GB, ${((Date.now() - started) / 1000).toFixed(0)} s`);
          }
          give(w);
        });
        give(w);
      }
    });
    writer.close();
  } catch (err) {
    for (const w of workers) w.terminate();
    writer.close();
    fs.rmSync(tmp, { force: true });
    throw err;
  }
  fs.renameSync(tmp, store);
  const manifest = {
    generator: GENERATOR,
    scale,
    buildings,
    towns,
    area,
    bounds,
    tiles,
    z14Tiles: area.side * area.side,
    storeBytes: fs.statSync(store).size,
    tileBytes: bytes,
    labels: counts,
    nationalRoads: content.nationalRoads(area).length,
    labelsTotal: Object.values(counts).reduce((a, b) => a + b, 0) + content.nationalRoads(area).length,
    generateSeconds: (Date.now() - started) / 1000,
    threads,
    queries: knownAnswers(area, queries),
  };
  fs.writeFileSync(manifestFile, JSON.stringify(manifest));
  return { dir: folder, store, manifest, cached: false };
}

if (!isMainThread) workerMain();
else if (require.main === module) {
  const arg = (name, d) => {
    const i = process.argv.indexOf(`--${name}`);
    return i > 0 ? process.argv[i + 1] : d;
  };
  ensureCountry({ scale: Number(arg('scale', 1)), buildings: Number(arg('buildings', 1100)), towns: Number(arg('towns', 0)), dir: arg('dir'), queries: Number(arg('queries', 200)) }).then(
    (r) => {
      if (process.argv.includes('--all-labels')) fs.writeFileSync(path.join(r.dir, 'labels.json'), JSON.stringify(allLabels(r.manifest.area)));
      console.log(r.dir);
    },
    (err) => {
      console.error(err);
      process.exit(1);
    },
  );
}

module.exports = { ensureCountry, allLabels, knownAnswers, GENERATOR, folderOf };
