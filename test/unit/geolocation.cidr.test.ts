// Addresses and CIDR ranges of `geolocation.networks`: parsing, IPv4-mapped normalisation, containment, the
// longest prefix winning, the errors config validation gives, and which X-Forwarded-For hop is the requester.

import type { IncomingMessage } from 'node:http';
import { cidrContains, formatAddress, parseAddress, parseCidr } from '../../src/config/cidr';
import { ConfigError, parseConfig } from '../../src/config/load';
import { ProxyTrust } from '../../src/http/base-url';
import { GeolocationService } from '../../src/services/geolocation/service';

const config = (geolocation: unknown) => parseConfig({ geolocation, logLevel: 'silent' }, 'test.yaml', '/etc/tilemirror', {});
const site = { name: 'HQ', latitude: 47.3769, longitude: 8.5417, country_code: 'CH' };

test('addresses: IPv4, IPv6 in any spelling, IPv4-mapped IPv6 as IPv4, zones dropped, garbage refused', () => {
  expect(parseAddress('10.1.2.3')).toEqual({ family: 4, value: 0x0a010203n });
  expect(parseAddress('::ffff:10.1.2.3')).toEqual({ family: 4, value: 0x0a010203n });
  expect(parseAddress('::FFFF:0a01:0203')).toEqual({ family: 4, value: 0x0a010203n });
  expect(parseAddress('2001:db8::1')).toEqual({ family: 6, value: 0x20010db8000000000000000000000001n });
  expect(parseAddress('2001:0DB8:0:0:0:0:0:1')).toEqual(parseAddress('2001:db8::1'));
  expect(parseAddress('fe80::1%eth0')).toEqual({ family: 6, value: 0xfe800000000000000000000000000001n });
  expect(parseAddress('::1')).toEqual({ family: 6, value: 1n });
  for (const bad of ['', '10.1.2', '10.1.2.256', 'example.org', '1.2.3.4:80', '2001:db8:::1', '::ffff:1.2.3']) expect([bad, parseAddress(bad)]).toEqual([bad, undefined]);
  // The top of the range, where 32-bit integer arithmetic would go negative.
  expect(parseAddress('255.255.255.255')).toEqual({ family: 4, value: 0xffffffffn });
  expect(parseAddress('::ffff:255.254.253.252')).toEqual({ family: 4, value: 0xfffefdfcn });
  expect(parseAddress('0.0.0.0')).toEqual({ family: 4, value: 0n });
  expect(parseAddress('64:ff9b::192.0.2.33')).toEqual({ family: 6, value: 0x0064ff9b0000000000000000c0000221n });
  expect(formatAddress(parseAddress('2001:db8:0:0:1:0:0:1')!)).toBe('2001:db8::1:0:0:1');
  expect(formatAddress(parseAddress('::ffff:192.168.0.1')!)).toBe('192.168.0.1');
});

test('ranges: containment by prefix, an IPv4-mapped client in an IPv4 range, and families kept apart', () => {
  const r = parseCidr('10.20.0.0/16');
  expect(cidrContains(r, parseAddress('10.20.255.1')!)).toBe(true);
  expect(cidrContains(r, parseAddress('::ffff:10.20.0.9')!)).toBe(true);
  expect(cidrContains(r, parseAddress('10.21.0.1')!)).toBe(false);
  expect(cidrContains(parseCidr('::/0'), parseAddress('10.20.0.1')!)).toBe(false);
  expect(cidrContains(parseCidr('0.0.0.0/0'), parseAddress('8.8.8.8')!)).toBe(true);
  expect(cidrContains(parseCidr('fd00:20::/32'), parseAddress('fd00:20:ffff::1')!)).toBe(true);
  expect(cidrContains(parseCidr('fd00:20::/32'), parseAddress('fd00:21::1')!)).toBe(false);
  expect(parseCidr('::ffff:10.0.0.0/104')).toMatchObject({ family: 4, bits: 8, text: '10.0.0.0/8' });
  expect(parseCidr('10.0.0.7')).toMatchObject({ bits: 32, text: '10.0.0.7/32' });
});

test('bad ranges are refused at config load, naming the entry and what is wrong', () => {
  const messages = (cidr: unknown) => {
    try {
      config({ networks: [{ cidr, ...site }] });
    } catch (err) {
      expect(err).toBeInstanceOf(ConfigError);
      return (err as Error).message;
    }
    return 'accepted';
  };
  expect(messages('10.0.0.1/8')).toContain('geolocation.networks[0].cidr: "10.0.0.1/8" has bits set beyond its /8: did you mean 10.0.0.0/8?');
  expect(messages('10.0.0.0/33')).toContain('the prefix length must be 0-32');
  expect(messages('fd00::/129')).toContain('the prefix length must be 0-128');
  expect(messages('10.0.0.0/x')).toContain('the prefix length "x" is not a number');
  expect(messages('intranet')).toContain('"intranet" is not an IPv4 or IPv6 address');
  expect(messages(['10.0.0.0/8', '10.0.0.0/8/1'])).toContain('geolocation.networks[0].cidr[1]: "10.0.0.0/8/1" is not a CIDR range');
  expect(messages(['10.0.0.0/8', 'fd00::/8'])).toBe('accepted');
  expect(() => config({ networks: [{ cidr: '10.0.0.0/8', ...site }, { cidr: '10.0.0.0/8', ...site, name: 'B' }] })).toThrow('geolocation.networks[1].cidr[0]: 10.0.0.0/8 is already the range of networks[0]');
  expect(() => config({ networks: [{ cidr: '10.0.0.0/8', ...site, country_code: 'ch' }] })).toThrow('geolocation.networks[0].country_code: an ISO 3166-1 alpha-2 country code');
  expect(() => config({ networks: [{ cidr: '10.0.0.0/8', ...site, latitude: 91 }] })).toThrow('geolocation.networks[0].latitude');
  expect(() => config({ networks: [{ cidr: '10.0.0.0/8', ...site, timezone: 'Mars/Olympus' }] })).toThrow('geolocation.networks[0].timezone: not a time zone');
  expect(() => config({ networks: [{ cidr: '10.0.0.0/8', ...site, colour: 'red' }] })).toThrow('geolocation.networks[0]');
  expect(() => config({ default: { ...site, cidr: '10.0.0.0/8' } })).toThrow('geolocation.default');
  expect(config({ database: 'ipdb' }).geolocation.database).toBe('/etc/tilemirror/ipdb');
});

test('the longest matching prefix wins, whatever the order of the list', () => {
  const networks = [
    { cidr: '10.0.0.0/8', ...site, name: 'Corporate' },
    { cidr: ['10.20.30.0/24', 'fd00:20:30::/48'], ...site, name: 'Lab' },
    { cidr: '10.20.0.0/16', ...site, name: 'Campus' },
    { cidr: '::ffff:10.20.30.40/128', ...site, name: 'Desk' },
  ];
  const svc = new GeolocationService(config({ networks }).geolocation);
  const city = (ip: string) => svc.locate(ip).answer.city;
  expect(city('10.1.1.1')).toBe('Corporate');
  expect(city('10.20.1.1')).toBe('Campus');
  expect(city('10.20.30.1')).toBe('Lab');
  expect(city('::ffff:10.20.30.1')).toBe('Lab');
  expect(city('fd00:20:30:1::9')).toBe('Lab');
  expect(city('10.20.30.40')).toBe('Desk');
  expect(svc.locate('fd00:20:31::1').basis).toBe('none');
});

describe('the requester behind proxies (server.trustProxy, server.trustedProxies)', () => {
  const req = (peer: string, xff?: string | string[]) => ({ socket: { remoteAddress: peer }, headers: xff === undefined ? {} : { 'x-forwarded-for': xff } }) as unknown as IncomingMessage;

  test('not trusting: the peer, X-Forwarded-For ignored; an IPv4-mapped peer as IPv4', () => {
    const off = new ProxyTrust(false, ['127.0.0.1']);
    expect(off.clientAddress(req('127.0.0.1', '8.8.8.8'))).toBe('127.0.0.1');
    expect(off.clientAddress(req('::ffff:10.1.2.3', '8.8.8.8'))).toBe('10.1.2.3');
  });

  test('trusting: the nearest hop that is not a trusted proxy, read from the right', () => {
    const on = new ProxyTrust(true, ['127.0.0.1', '10.0.0.0/8']);
    expect(on.clientAddress(req('127.0.0.1', '8.8.8.8'))).toBe('8.8.8.8');
    expect(on.clientAddress(req('127.0.0.1', '6.6.6.6, 8.8.8.8, 10.1.1.1'))).toBe('8.8.8.8');
    expect(on.clientAddress(req('127.0.0.1', ['6.6.6.6', '8.8.8.8:5123']))).toBe('8.8.8.8');
    expect(on.clientAddress(req('127.0.0.1', '[2001:db8::7]:443'))).toBe('2001:db8::7');
    expect(on.clientAddress(req('127.0.0.1', '::ffff:81.2.69.142'))).toBe('81.2.69.142');
    expect(on.clientAddress(req('127.0.0.1', '10.2.2.2, 10.3.3.3'))).toBe('10.2.2.2');
    expect(on.clientAddress(req('127.0.0.1', 'unknown, 10.3.3.3'))).toBe('10.3.3.3');
    expect(on.clientAddress(req('127.0.0.1'))).toBe('127.0.0.1');
    expect(on.clientAddress(req('192.0.2.1', '8.8.8.8'))).toBe('192.0.2.1');
  });
});
