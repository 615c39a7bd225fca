'use strict';
// Small valid PNGs for the synthetic upstreams of the mirror benchmark: a solid-colour image (palette, one
// entry), optionally padded to a given size with a private ancillary chunk of random bytes (decoders skip it;
// tilemirror's validator checks the signature and every chunk CRC, which stay valid).

const zlib = require('node:zlib');
const crypto = require('node:crypto');

const CRC_TABLE = new Int32Array(256);
for (let n = 0; n < 256; n++) {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  CRC_TABLE[n] = c;
}

function crc32(buf) {
  let c = -1;
  for (let i = 0; i < buf.length; i++) c = CRC_TABLE[(c ^ buf[i]) & 0xff] ^ (c >>> 8);
  return (c ^ -1) >>> 0;
}

function chunk(type, data) {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(data.length, 0);
  head.write(type, 4, 'latin1');
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(Buffer.concat([head.subarray(4), data])), 0);
  return Buffer.concat([head, data, crc]);
}

const SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

/** A `size` x `size` PNG of one colour [r, g, b]; `padTo` > 0 adds a random `tmPd` chunk up to about that many bytes. */
function solidPng([r, g, b], { size = 256, padTo = 0 } = {}) {
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(size, 0);
  ihdr.writeUInt32BE(size, 4);
  ihdr[8] = 8; // bit depth
  ihdr[9] = 3; // palette
  const raw = Buffer.alloc((size + 1) * size); // filter byte 0 + index 0 per pixel, every row
  const parts = [SIGNATURE, chunk('IHDR', ihdr), chunk('PLTE', Buffer.from([r, g, b])), chunk('IDAT', zlib.deflateSync(raw, { level: 9 }))];
  const bytes = parts.reduce((n, p) => n + p.length, 0) + 12;
  if (padTo > bytes + 12) parts.push(chunk('tmPd', crypto.randomBytes(padTo - bytes - 12)));
  parts.push(chunk('IEND', Buffer.alloc(0)));
  return Buffer.concat(parts);
}

/** `n` distinct colours spread over the hue circle. */
function palette(n) {
  const out = [];
  for (let i = 0; i < n; i++) {
    const h = (i / n) * 6;
    const f = h - Math.floor(h);
    const v = 230;
    const p = 40;
    const q = Math.round(v - (v - p) * f);
    const t = Math.round(p + (v - p) * f);
    out.push([[v, t, p], [q, v, p], [p, v, t], [p, q, v], [t, p, v], [v, p, q]][Math.floor(h) % 6]);
  }
  return out;
}

module.exports = { solidPng, palette, crc32 };
