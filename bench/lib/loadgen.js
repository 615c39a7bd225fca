'use strict';
// Runs bench/lib/load.js in a child process and returns its result; the child is killed on a timeout or an exit.

const { fork, execFileSync } = require('node:child_process');
const path = require('node:path');

function runLoad(job, { timeoutMs, onPhase, cpus } = {}) {
  const limit = timeoutMs ?? (job.warmup + job.duration + 30) * 1000;
  return new Promise((resolve, reject) => {
    const child = fork(path.join(__dirname, 'load.js'), [], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    // Pinned to `cpus` (e.g. '1') before it starts its work: all its threads, including those made later.
    if (cpus !== undefined) execFileSync('taskset', ['-a', '-p', '-c', String(cpus), String(child.pid)], { stdio: 'ignore' });
    const cleanup = () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    };
    process.once('exit', cleanup);
    const timer = setTimeout(() => {
      cleanup();
      reject(new Error(`load generator did not finish within ${limit} ms`));
    }, limit);
    child.on('message', (msg) => {
      if (msg.phase) return onPhase?.(msg.phase);
      clearTimeout(timer);
      process.removeListener('exit', cleanup);
      if (msg.ok) resolve(msg.result);
      else reject(new Error(`load generator failed: ${msg.error}`));
    });
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      process.removeListener('exit', cleanup);
      reject(new Error(`load generator exited (${code ?? signal}) without a result`));
    });
    child.send(job);
  });
}

module.exports = { runLoad };
