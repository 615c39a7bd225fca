'use strict';
// The load generator, run as its own process (forked by bench/lib/loadgen.js) so that it never shares an
// event loop with the orchestrator, and so its CPU use can be reported. One autocannon instance, one thread:
// on a 2-core machine a second load thread would only take more CPU away from the server under test.
//
// Input (IPC message): { origin, paths, connections, duration, warmup, minBytes }
// Output (IPC messages): { phase: 'main' } when the warm-up ends, then { ok: true, result } or { ok: false, error }

const autocannon = require('autocannon');

// autocannon appends every response body to a JS string (`body += chunk`: a UTF-8 decode and a copy of each
// 20 KB tile) even when nothing reads it. With binary tiles that made the load generator the bottleneck
// (~1 core for ~2k req/s here). Nothing below uses bodies (no verifyBody/expectBody/onResponse: the bytes are
// checked before the run, and each response's size during it), so the append is dropped.
require('autocannon/lib/pipelinedRequestsQueue').prototype.addBody = function addBody() {};

function shuffled(items) {
  const a = items.slice();
  for (let i = a.length - 1; i > 0; i--) {
    const j = (Math.random() * (i + 1)) | 0;
    [a[i], a[j]] = [a[j], a[i]];
  }
  return a;
}

function percentile(sorted, p) {
  if (sorted.length === 0) return NaN;
  const i = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[i];
}

function once(opts, onInstance) {
  return new Promise((resolve, reject) => {
    const instance = autocannon(opts, (err, result) => (err ? reject(err) : resolve(result)));
    onInstance?.(instance);
  });
}

async function main(job) {
  const { origin, paths, connections, duration, warmup, minBytes } = job;
  const base = {
    url: origin,
    connections,
    pipelining: 1,
    timeout: 10,
    // Random tiles: every connection walks its own random permutation of all the tile paths (request buffers
    // built once, so the load generator spends nothing per request on choosing one; a setupRequest callback that
    // picks a random path rebuilds the request each time and cost ~25 % of the load generator's throughput).
    setupClient(client) {
      client.setRequests(shuffled(paths).map((path) => ({ method: 'GET', path })));
    },
  };
  if (warmup > 0) await once({ ...base, duration: warmup });
  process.send({ phase: 'main' }); // the orchestrator samples the server's CPU time here

  // Exact latencies (autocannon's histogram keeps whole milliseconds) and a check of every response.
  const latencies = [];
  let ok = 0;
  let short = 0;
  const statuses = {};
  const cpu0 = process.cpuUsage();
  const result = await once({ ...base, duration }, (instance) => {
    instance.on('response', (_client, statusCode, resBytes, responseTime) => {
      latencies.push(responseTime);
      statuses[statusCode] = (statuses[statusCode] ?? 0) + 1;
      if (statusCode === 200 && resBytes >= minBytes) ok++;
      else if (statusCode === 200) short++;
    });
  });
  const cpu = process.cpuUsage(cpu0);
  const sorted = Float64Array.from(latencies).sort();
  let sum = 0;
  for (const v of sorted) sum += v;
  return {
    requestsPerSecMean: result.requests.average,
    requestsPerSecStddev: result.requests.stddev,
    totalRequests: result.requests.total,
    durationSec: result.duration,
    latencyMs: {
      mean: sum / sorted.length,
      p50: percentile(sorted, 50),
      p90: percentile(sorted, 90),
      p99: percentile(sorted, 99),
      max: sorted[sorted.length - 1],
    },
    autocannonLatencyMs: { p50: result.latency.p50, p99: result.latency.p99, mean: result.latency.average },
    throughputMBps: result.throughput.average / 1e6,
    bytesPerResponse: result.throughput.total / Math.max(1, result.requests.total),
    non2xx: result.non2xx,
    errors: result.errors,
    timeouts: result.timeouts,
    statusCodes: statuses,
    responsesOk: ok,
    responses200Short: short,
    responsesSeen: latencies.length,
    loadgenCpuSeconds: (cpu.user + cpu.system) / 1e6,
    pid: process.pid,
  };
}

process.once('message', (job) => {
  main(job).then(
    (result) => process.send({ ok: true, result }, () => process.exit(0)),
    (err) => process.send({ ok: false, error: err.stack ?? String(err) }, () => process.exit(1)),
  );
});
process.on('disconnect', () => process.exit(1));
