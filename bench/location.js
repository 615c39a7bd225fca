'use strict';
// Benchmark `location`: the location services, one part per `location-<part>.js` beside this file (elevation;
// coordinates and others add theirs), run one after another. Options are the union of the parts' options.

const fs = require('node:fs');
const path = require('node:path');

const parts = fs
  .readdirSync(__dirname)
  .filter((f) => /^location-[a-z0-9-]+\.js$/.test(f))
  .sort()
  .map((f) => require(path.join(__dirname, f)));

const options = Object.assign({}, ...parts.map((p) => p.options ?? {}));

async function run(opts) {
  const results = [];
  for (const part of parts) results.push(await part.run(opts));
  return results;
}

module.exports = { description: `location services: ${parts.map((p) => p.description).join('; ')}`, options, run };
