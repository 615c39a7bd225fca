import type { IncomingMessage } from 'node:http';
import { BlockList, isIP } from 'node:net';

const HOST = /^[A-Za-z0-9.-]+(:\d{1,5})?$|^\[[0-9A-Fa-f:.]+\](:\d{1,5})?$/;
const PREFIX = /^(\/[A-Za-z0-9._~-]+)*$/;

/** The headers a trusted proxy may set; documents built from them vary on them. */
export const FORWARDED_HEADERS = 'X-Forwarded-Proto, X-Forwarded-Host, X-Forwarded-Prefix';

function first(value: string | string[] | undefined): string | undefined {
  const v = Array.isArray(value) ? value[0] : value;
  return v?.split(',')[0].trim() || undefined;
}

/** `::ffff:10.0.0.1` (an IPv4 peer on a dual-stack socket) is `10.0.0.1`. */
function plainAddress(address: string): string {
  return /^::ffff:\d+\.\d+\.\d+\.\d+$/i.test(address) ? address.slice(7) : address;
}

/** One X-Forwarded-For entry as an address: `1.2.3.4`, `1.2.3.4:5678`, `[2001:db8::1]:443`, `2001:db8::1`. */
function hopAddress(entry: string): string | undefined {
  let a = entry.trim();
  const bracketed = /^\[([^\]]+)\](?::\d+)?$/.exec(a);
  if (bracketed) a = bracketed[1];
  else if (/^\d+\.\d+\.\d+\.\d+:\d+$/.test(a)) a = a.slice(0, a.indexOf(':'));
  a = plainAddress(a);
  return isIP(a) ? a : undefined;
}

const familyOf = (address: string): 'ipv4' | 'ipv6' => (isIP(address) === 6 ? 'ipv6' : 'ipv4');

/**
 * Whom X-Forwarded-* is believed from: nobody unless `server.trustProxy`, and then only peers whose address is one
 * of `server.trustedProxies` (addresses or CIDR ranges). Anyone else's forwarded headers are ignored, so a client
 * cannot make this server's documents link to a host of its choosing.
 */
export class ProxyTrust {
  private readonly list: BlockList | undefined;

  constructor(trustProxy: boolean, trustedProxies: readonly string[]) {
    if (!trustProxy) return;
    this.list = new BlockList();
    for (const entry of trustedProxies) {
      const [address, bits] = entry.split('/');
      if (bits === undefined) this.list.addAddress(plainAddress(address), familyOf(plainAddress(address)));
      else this.list.addSubnet(address, Number(bits), familyOf(address));
    }
  }

  /** Whether this request came straight from a trusted proxy. */
  trusts(req: IncomingMessage): boolean {
    if (!this.list) return false;
    const peer = req.socket.remoteAddress;
    if (!peer) return false;
    return this.trustsAddress(plainAddress(peer));
  }

  private trustsAddress(address: string): boolean {
    return this.list !== undefined && isIP(address) !== 0 && this.list.check(address, familyOf(address));
  }

  /**
   * The requester's address: the peer's (IPv4-mapped IPv6 as IPv4), or, when the peer is a trusted proxy, the
   * X-Forwarded-For hop nearest to it that is not itself a trusted proxy (hops are read right to left, so addresses
   * a client wrote at the left cannot stand in for the one the proxy saw). A hop that is not an IP address ends
   * the walk at the last trusted hop. '' when the socket is already gone.
   */
  clientAddress(req: IncomingMessage): string {
    const peer = req.socket.remoteAddress;
    if (!peer) return '';
    let client = plainAddress(peer);
    if (!this.trustsAddress(client)) return client;
    const header = req.headers['x-forwarded-for'];
    const hops = (Array.isArray(header) ? header.join(',') : header ?? '').split(',');
    for (let i = hops.length - 1; i >= 0; i--) {
      const hop = hopAddress(hops[i]);
      if (hop === undefined) break;
      client = hop;
      if (!this.trustsAddress(hop)) break;
    }
    return client;
  }
}

/**
 * The public base URL (no trailing slash) that generated documents put in front of every link:
 * the configured one, else the request's own, honouring X-Forwarded-Proto/Host/Prefix when `forwarded`
 * (the request came from a trusted proxy). Header values that do not look like a host or path are ignored
 * rather than copied into documents.
 */
export function baseUrlOf(req: IncomingMessage, publicUrl: string | undefined, forwarded: boolean): string {
  if (publicUrl) return publicUrl.replace(/\/+$/, '');
  const fwdProto = forwarded ? first(req.headers['x-forwarded-proto']) : undefined;
  const fwdHost = forwarded ? first(req.headers['x-forwarded-host']) : undefined;
  const fwdPrefix = forwarded ? first(req.headers['x-forwarded-prefix']) : undefined;
  const proto = fwdProto === 'https' || fwdProto === 'http' ? fwdProto : 'http';
  let host = fwdHost && HOST.test(fwdHost) ? fwdHost : req.headers.host;
  if (!host || !HOST.test(host)) {
    const addr = req.socket.localAddress ?? '127.0.0.1';
    host = `${addr.includes(':') ? `[${addr}]` : addr}:${req.socket.localPort ?? 80}`;
  }
  const prefix = fwdPrefix && PREFIX.test(fwdPrefix.replace(/\/$/, '')) ? fwdPrefix.replace(/\/$/, '') : '';
  return `${proto}://${host}${prefix}`;
}
