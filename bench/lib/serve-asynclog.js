'use strict';
// Diagnostic only (`npm run bench -- serve --only tilemirror,tilemirror-asynclog`): tilemirror's own startServer
// from dist/, given a pino logger that writes asynchronously in 4 KB batches instead of one write(2) per
// request line (pino's default destination is synchronous). Measures what that change would be worth.
//   node bench/lib/serve-asynclog.js --config <file.yaml>

const path = require('node:path');
const pino = require('pino');
const { ROOT } = require('./store');
const { loadConfig } = require(path.join(ROOT, 'dist', 'config', 'load.js'));
const { startServer } = require(path.join(ROOT, 'dist', 'http', 'server.js'));

const config = loadConfig(process.argv[process.argv.indexOf('--config') + 1]);
const dest = pino.destination({ dest: 1, sync: false, minLength: 4096 });
const log = pino({ level: config.logLevel, base: undefined }, dest);

startServer(config, log).then((server) => {
  const stop = () => server.close().then(() => {
    dest.flushSync();
    process.exit(0);
  });
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
});
