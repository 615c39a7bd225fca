import type { IncomingMessage } from 'node:http';

const HOST = /^[A-Za-z0-9.-]+(:\d{1,5})?$|^\[[0-9A-Fa-f:.]+\](:\d{1,5})?$/;
const PREFIX = /^(\/[A-Za-z0-9._~-]+)*$/;

function first(value: string | string[] | undefined): string | undefined {
  const v = Array.isArray(value) ? value[0] : value;
  return v?.split(',')[0].trim() || undefined;
}

/**
 * The public base URL (no trailing slash) that generated documents put in front of every link:
 * the configured one, else the request's own, honouring X-Forwarded-Proto/Host/Prefix behind a proxy.
 * Header values that do not look like a host or path are ignored rather than copied into documents.
 */
export function baseUrlOf(req: IncomingMessage, publicUrl: string | undefined, trustProxy: boolean): string {
  if (publicUrl) return publicUrl.replace(/\/+$/, '');
  const fwdProto = trustProxy ? first(req.headers['x-forwarded-proto']) : undefined;
  const fwdHost = trustProxy ? first(req.headers['x-forwarded-host']) : undefined;
  const fwdPrefix = trustProxy ? first(req.headers['x-forwarded-prefix']) : undefined;
  const proto = fwdProto === 'https' || fwdProto === 'http' ? fwdProto : 'http';
  let host = fwdHost && HOST.test(fwdHost) ? fwdHost : req.headers.host;
  if (!host || !HOST.test(host)) {
    const addr = req.socket.localAddress ?? '127.0.0.1';
    host = `${addr.includes(':') ? `[${addr}]` : addr}:${req.socket.localPort ?? 80}`;
  }
  const prefix = fwdPrefix && PREFIX.test(fwdPrefix.replace(/\/$/, '')) ? fwdPrefix.replace(/\/$/, '') : '';
  return `${proto}://${host}${prefix}`;
}
