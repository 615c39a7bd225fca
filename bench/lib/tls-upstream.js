'use strict';
// The `wan` benchmark's front: a CA and a server certificate for 127.0.0.1 made with openssl, and Debian's nginx
// terminating TLS (HTTP/2 and HTTP/1.1 by ALPN) in front of a plain-HTTP upstream on loopback. Every request's
// protocol is logged (one word a line) so a benchmark can tell which protocol each client spoke.

const fs = require('node:fs');
const path = require('node:path');
const { execFileSync } = require('node:child_process');
const { startServer } = require('./processes');

/** Writes ca.pem, server.pem and server.key into `dir` (EC P-256, valid two days); returns their paths. */
function makeCertificates(dir) {
  const f = (n) => path.join(dir, n);
  const ssl = (...args) => execFileSync('openssl', args, { stdio: ['ignore', 'ignore', 'pipe'] });
  const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];
  ssl('req', '-x509', ...ec, '-keyout', f('ca.key'), '-out', f('ca.pem'), '-days', '2', '-subj', '/CN=tilemirror bench CA', '-addext', 'basicConstraints=critical,CA:TRUE', '-addext', 'keyUsage=critical,keyCertSign,cRLSign');
  ssl('req', ...ec, '-keyout', f('server.key'), '-out', f('server.csr'), '-subj', '/CN=127.0.0.1');
  fs.writeFileSync(f('server.ext'), 'subjectAltName=IP:127.0.0.1,DNS:localhost\nbasicConstraints=CA:FALSE\nkeyUsage=critical,digitalSignature\nextendedKeyUsage=serverAuth\n');
  ssl('x509', '-req', '-in', f('server.csr'), '-CA', f('ca.pem'), '-CAkey', f('ca.key'), '-CAcreateserial', '-out', f('server.pem'), '-days', '2', '-extfile', f('server.ext'));
  return { ca: f('ca.pem'), cert: f('server.pem'), key: f('server.key') };
}

/**
 * Starts nginx (one worker) on 127.0.0.1:`port` with TLS and HTTP/2, proxying to `upstreamPort` over kept-alive
 * connections. `cpus`: taskset list or undefined. Returns the child and the protocol log's path.
 */
function startNginx({ nginx, dir, port, upstreamPort, certs, cpus }) {
  const p = (n) => path.join(dir, n);
  for (const d of ['body', 'proxy', 'fastcgi', 'uwsgi', 'scgi']) fs.mkdirSync(p(`tmp-${d}`), { recursive: true });
  const root = typeof process.getuid === 'function' && process.getuid() === 0;
  const conf = [
    '# written by bench/lib/tls-upstream.js',
    'worker_processes 1;',
    'daemon off;',
    // As root the worker would switch to nobody, who cannot read the keys in a private temporary folder.
    ...(root ? ['user root;'] : []),
    `pid ${p('nginx.pid')};`,
    'error_log stderr warn;',
    'events { worker_connections 4096; }',
    'http {',
    "  log_format proto '$server_protocol';",
    `  access_log ${p('protocols.log')} proto;`,
    ...['body', 'proxy', 'fastcgi', 'uwsgi', 'scgi'].map((d) => `  ${d === 'body' ? 'client_body' : d}_temp_path ${p(`tmp-${d}`)};`),
    '  keepalive_requests 1000000;',
    '  keepalive_timeout 120s;',
    `  upstream tm { server 127.0.0.1:${upstreamPort}; keepalive 256; }`,
    '  server {',
    `    listen 127.0.0.1:${port} ssl http2;`,
    `    ssl_certificate ${certs.cert};`,
    `    ssl_certificate_key ${certs.key};`,
    '    ssl_protocols TLSv1.2 TLSv1.3;',
    '    location / {',
    '      proxy_pass http://tm;',
    '      proxy_http_version 1.1;',
    '      proxy_set_header Connection "";',
    '      proxy_set_header Host $http_host;',
    '    }',
    '  }',
    '}',
    '',
  ].join('\n');
  fs.writeFileSync(p('nginx.conf'), conf);
  const args = ['-e', 'stderr', '-p', dir, '-c', p('nginx.conf')];
  const child = startServer('nginx', cpus !== undefined ? 'taskset' : nginx, cpus !== undefined ? ['-c', String(cpus), nginx, ...args] : args, { cwd: dir });
  return { child, protocolLog: p('protocols.log') };
}

/** Counts of each protocol in the log since `from` (a byte offset); returns them and the new offset. */
function protocolsSince(file, from = 0) {
  let text = '';
  try {
    const all = fs.readFileSync(file, 'utf8');
    text = all.slice(from);
    from = all.length;
  } catch {
    /* nothing logged yet */
  }
  const counts = {};
  for (const l of text.split('\n')) if (l) counts[l] = (counts[l] ?? 0) + 1;
  return { counts, offset: from };
}

module.exports = { makeCertificates, startNginx, protocolsSince };
