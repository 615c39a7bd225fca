'use strict';
// The in-process half of `bench/geolocation.js`, run in a fresh node process so its RSS is the geolocation
// service's alone: opens the DB-IP files, then times full answers (country facts, bounds, time zone) for
// deterministic pseudo-random public addresses. Prints one JSON object.

const path = require('node:path');

const ROOT = path.join(__dirname, '..');
const count = Number(process.argv[2] ?? 200000);

/** Deterministic public-looking addresses: IPv4 avoiding 0/8, 10/8, 127/8 and 224/3; IPv6 in 2a00::/12 (RIPE). */
function addresses(n, seed) {
  let s = seed >>> 0;
  const next = () => (s = (Math.imul(s, 1664525) + 1013904223) >>> 0);
  const out = [];
  for (let i = 0; i < n; i++) {
    if (i % 10 === 9) {
      const a = next();
      const b = next();
      out.push(`2a0${(a >>> 28) & 0xf}:${((a >>> 12) & 0xffff).toString(16)}:${(b & 0xffff).toString(16)}::${(b >>> 16).toString(16)}`);
    } else {
      let first = 0;
      while (first === 0 || first === 10 || first === 127 || first >= 224) first = next() >>> 24;
      const r = next();
      out.push(`${first}.${(r >>> 16) & 0xff}.${(r >>> 8) & 0xff}.${r & 0xff}`);
    }
  }
  return out;
}

const mb = () => process.memoryUsage().rss / 1024 / 1024;

async function main() {
  const { GeolocationService } = require(path.join(ROOT, 'dist', 'services', 'geolocation', 'service.js'));
  const { parseConfig } = require(path.join(ROOT, 'dist', 'config', 'load.js'));
  const config = parseConfig({ logLevel: 'silent' }, 'bench', ROOT, {});
  const rssBase = mb();
  const svc = new GeolocationService(config.geolocation);
  let t = performance.now();
  await svc.warm();
  const openMs = performance.now() - t;
  const rssOpen = mb();

  const list = addresses(count, 42);
  const pass = () => {
    let located = 0;
    const t0 = performance.now();
    for (const ip of list) if (svc.locate(ip).source === 'database') located++;
    return { seconds: (performance.now() - t0) / 1000, located };
  };
  const cold = pass();
  const rssAfterCold = mb();
  const warm = pass();
  // Clients as a server sees them: 5,000 addresses asking again and again.
  const clients = addresses(5000, 7);
  for (const ip of clients) svc.locate(ip);
  t = performance.now();
  for (let i = 0; i < count; i++) svc.locate(clients[i % clients.length]);
  const repeatSeconds = (performance.now() - t) / 1000;
  global.gc?.();
  console.log(
    JSON.stringify({
      count,
      openMs,
      rssBaseMb: rssBase,
      rssOpenMb: rssOpen,
      rssAfterColdMb: rssAfterCold,
      rssEndMb: mb(),
      located: cold.located,
      coldPerSec: count / cold.seconds,
      warmPerSec: count / warm.seconds,
      repeatPerSec: count / repeatSeconds,
    }),
  );
}

main().catch((err) => {
  console.error(err.stack ?? err);
  process.exit(1);
});
