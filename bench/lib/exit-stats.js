'use strict';
// Preloaded (`node -r bench/lib/exit-stats.js dist/cli.js ...`) into a measured tilemirror command: at exit it
// writes the process's own peak RSS (getrusage maxrss, exact, unlike polling) and CPU time to the JSON file
// named by $BENCH_EXIT_STATS. It changes nothing else.

const fs = require('node:fs');

const file = process.env.BENCH_EXIT_STATS;
if (file) {
  process.once('exit', (code) => {
    const ru = process.resourceUsage();
    try {
      fs.writeFileSync(
        file,
        JSON.stringify({ code, maxRssKb: ru.maxRSS, userSec: ru.userCPUTime / 1e6, systemSec: ru.systemCPUTime / 1e6, uptimeSec: process.uptime(), fsWrite: ru.fsWrite, voluntarySwitches: ru.voluntaryContextSwitches }),
      );
    } catch {
      /* the benchmark reports the missing file */
    }
  });
}
