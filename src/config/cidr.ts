import { isIP } from 'node:net';

// IP addresses and CIDR ranges as numbers, for `geolocation.networks` (validated at config load, matched per
// request). An IPv4-mapped IPv6 address (`::ffff:10.1.2.3`, what a dual-stack socket reports for an IPv4 peer) is
// the IPv4 address: ranges written either way match it.

export interface IpAddress {
  family: 4 | 6;
  /** The address as an unsigned integer of 32 (IPv4) or 128 (IPv6) bits. */
  value: bigint;
}

export interface Cidr extends IpAddress {
  /** Prefix length: 0..32 or 0..128. */
  bits: number;
  /** The range as written, normalised (`10.0.0.0/8`, `fd00::/8`). */
  text: string;
  /** `bits` leading ones. */
  mask: bigint;
}

const IPV4_MASK = 0xffffffffn;

function ipv4Value(text: string): bigint {
  // Number arithmetic, one BigInt at the end: this runs on every geolocation request.
  let v = 0;
  let part = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 46) {
      v = v * 256 + part;
      part = 0;
    } else part = part * 10 + (c - 48);
  }
  return BigInt(v * 256 + part);
}

function ipv6Value(text: string): bigint {
  let head = text;
  let tailV4: bigint | undefined;
  const lastColon = head.lastIndexOf(':');
  if (head.includes('.', lastColon)) {
    tailV4 = ipv4Value(head.slice(lastColon + 1));
    head = `${head.slice(0, lastColon + 1)}0:0`;
  }
  const [left, right] = head.split('::');
  const l = left ? left.split(':') : [];
  const r = right === undefined ? [] : right ? right.split(':') : [];
  const groups = right === undefined ? l : [...l, ...new Array<string>(8 - l.length - r.length).fill('0'), ...r];
  let v = 0n;
  for (const g of groups) v = (v << 16n) | BigInt(parseInt(g, 16));
  if (tailV4 !== undefined) v = (v & ~IPV4_MASK) | tailV4;
  return v;
}

/**
 * Parses an address (IPv4, IPv6, IPv4-mapped IPv6 → IPv4; an IPv6 zone `%eth0` is dropped); undefined when it is
 * not one.
 */
export function parseAddress(text: string): IpAddress | undefined {
  const plain = text.includes('%') ? text.slice(0, text.indexOf('%')) : text;
  const family = isIP(plain);
  if (family === 4) return { family: 4, value: ipv4Value(plain) };
  if (family !== 6) return undefined;
  const value = ipv6Value(plain);
  if (value >> 32n === 0xffffn) return { family: 4, value: value & IPV4_MASK };
  return { family: 6, value };
}

/** The address in its usual text form (IPv4 dotted, IPv6 compressed lower-case). */
export function formatAddress(a: IpAddress): string {
  if (a.family === 4) return [24n, 16n, 8n, 0n].map((s) => String((a.value >> s) & 0xffn)).join('.');
  const groups: string[] = [];
  for (let s = 112n; s >= 0n; s -= 16n) groups.push(((a.value >> s) & 0xffffn).toString(16));
  // Compress the longest run of two or more zero groups.
  let best = -1;
  let bestLen = 1;
  for (let i = 0; i < 8; ) {
    if (groups[i] !== '0') {
      i++;
      continue;
    }
    let j = i;
    while (j < 8 && groups[j] === '0') j++;
    if (j - i > bestLen) [best, bestLen] = [i, j - i];
    i = j;
  }
  if (best < 0) return groups.join(':');
  return `${groups.slice(0, best).join(':')}::${groups.slice(best + bestLen).join(':')}`;
}

/** Parses `address/bits` (a bare address is a range of one); throws an Error whose message says what is wrong. */
export function parseCidr(text: string): Cidr {
  const [addressText, bitsText, ...more] = text.trim().split('/');
  if (more.length) throw new Error(`"${text}" is not a CIDR range (one "/" at most), e.g. 10.20.0.0/16 or fd00:1::/48`);
  const address = parseAddress(addressText);
  if (!address) throw new Error(`"${text}": "${addressText}" is not an IPv4 or IPv6 address`);
  // An IPv4-mapped range (`::ffff:10.0.0.0/104`) is the IPv4 range it maps.
  const mapped = address.family === 4 && isIP(addressText) === 6;
  const width = address.family === 4 ? 32 : 128;
  let bits = width;
  if (bitsText !== undefined) {
    if (!/^\d{1,3}$/.test(bitsText)) throw new Error(`"${text}": the prefix length "${bitsText}" is not a number`);
    bits = Number(bitsText) - (mapped ? 96 : 0);
    if (bits < 0 || bits > width) throw new Error(`"${text}": the prefix length must be 0-${mapped ? 128 : width}${mapped ? ' and at least 96 for an IPv4-mapped range' : ''}`);
  }
  const mask = maskOf(address.family, bits);
  const cidr: Cidr = { ...address, bits, mask, text: '' };
  const base = address.value & mask;
  if (base !== address.value) {
    const fixed = `${formatAddress({ family: address.family, value: base })}/${bits}`;
    throw new Error(`"${text}" has bits set beyond its /${bitsText}: did you mean ${fixed}?`);
  }
  cidr.text = `${formatAddress(address)}/${bits}`;
  return cidr;
}

function maskOf(family: 4 | 6, bits: number): bigint {
  const width = family === 4 ? 32n : 128n;
  const all = (1n << width) - 1n;
  return bits === 0 ? 0n : (all >> (width - BigInt(bits))) << (width - BigInt(bits));
}

/** Whether the range holds the address (the same family: IPv4-mapped addresses were made IPv4 by parseAddress). */
export function cidrContains(range: Cidr, address: IpAddress): boolean {
  return range.family === address.family && (address.value & range.mask) === range.value;
}
