'use strict';
// Preloaded into tilelive-copy (node -r) by the `wan` benchmark: registers tilelive-http for https: sources too.
// tilelive-copy finds a source's module by the URL's scheme (http -> tilelive-http), so an https URL looks for a
// `tilelive-https` that does not exist; tilelive-http handles both once registered with the same tilelive.
// Resolved from the working directory (the cache folder tilelive is installed into).

const paths = [process.cwd()];
const tilelive = require(require.resolve('@mapbox/tilelive', { paths }));
require(require.resolve('tilelive-http', { paths }))(tilelive);
