import type { IncomingMessage } from 'node:http';
import { KeyRing, originAllowed, productNames, userAgentAllowed } from '../../src/http/auth';
import { ProxyTrust } from '../../src/http/base-url';
import { keyParam, redactKey } from '../../src/http/dispatch';

const ring = new KeyRing([
  { key: 'open-key', plan: 'free', allowedOrigins: [] },
  { key: 'site-key', plan: 'paid', allowedOrigins: ['https://example.org', '*.maps.example.com'] },
  { key: 'qgis-key', plan: 'free', allowedOrigins: [], allowedUserAgent: 'QGIS' },
  { key: 'loose-key', plan: 'free', allowedOrigins: ['example.org'], originMatch: 'host', allowedUserAgent: 'QGIS', userAgentMatch: 'substring' },
]);

describe('API keys', () => {
  test('missing and unknown keys are refused with a short reason', () => {
    expect(ring.check(undefined, {})).toEqual({ ok: false, message: 'Missing key' });
    expect(ring.check('', {})).toEqual({ ok: false, message: 'Missing key' });
    expect(ring.check('open-ke', {})).toEqual({ ok: false, message: 'Invalid key' });
    expect(ring.check('open-key ', {})).toEqual({ ok: false, message: 'Invalid key' });
  });

  test('an open key works from anywhere and allows any origin', () => {
    expect(ring.check('open-key', { origin: 'https://evil.test' })).toMatchObject({ ok: true, allowOrigin: '*' });
  });

  test('origin rules check Origin, then Referer; a request with neither is refused', () => {
    expect(ring.check('site-key', { origin: 'https://example.org' })).toMatchObject({ ok: true, allowOrigin: 'https://example.org' });
    expect(ring.check('site-key', { referer: 'https://a.maps.example.com/page.html' })).toMatchObject({ ok: true });
    expect(ring.check('site-key', { origin: 'https://example.org.evil.test' }).ok).toBe(false);
    expect(ring.check('site-key', { origin: 'https://maps.example.com' }).ok).toBe(false);
    expect(ring.check('site-key', {}).ok).toBe(false);
  });

  test('user-agent rule', () => {
    expect(ring.check('qgis-key', { 'user-agent': 'Mozilla/5.0 QGIS/3.22' }).ok).toBe(true);
    expect(ring.check('qgis-key', { 'user-agent': 'curl/8' })).toEqual({ ok: false, message: 'Key not allowed for this user agent' });
  });

  test('user-agent rule: a product token of exactly that name, not a substring', () => {
    expect(ring.check('qgis-key', { 'user-agent': 'QGIS/3.34.0' }).ok).toBe(true);
    expect(ring.check('qgis-key', { 'user-agent': 'Mozilla/5.0 QGIS/33400/Linux' }).ok).toBe(true);
    expect(ring.check('qgis-key', { 'user-agent': 'QGIS' }).ok).toBe(true);
    for (const ua of ['curl NOTQGIS', 'NOTQGIS/3.34', 'QGISX/1', 'qgis/3.34', 'curl/8 (QGIS)', 'Mozilla/5.0 (compatible; QGIS/3)', 'curl/QGIS', '']) {
      expect([ua, ring.check('qgis-key', { 'user-agent': ua }).ok]).toEqual([ua, false]);
    }
    // Loosened per key: the old substring rule.
    expect(ring.check('loose-key', { 'user-agent': 'curl NOTQGIS', origin: 'https://example.org' }).ok).toBe(true);
  });

  test('product names leave out comments, nested ones too', () => {
    expect(productNames('Mozilla/5.0 (X11; Linux x86_64 (nested) QGIS/1) Gecko/20100101 QGIS/3.34')).toEqual(['Mozilla', 'Gecko', 'QGIS']);
    expect(userAgentAllowed('QGIS', 'a(b)QGIS/2')).toBe(true);
    expect(userAgentAllowed('QGIS', 'curl NOTQGIS', 'substring')).toBe(true);
  });

  test('origin patterns: scheme, host and port, as the browser sends Origin', () => {
    // No scheme in the pattern means https; no port means the scheme's default.
    expect(originAllowed(['example.org'], 'https://example.org')).toBe(true);
    expect(originAllowed(['example.org'], 'https://example.org:443')).toBe(true);
    expect(originAllowed(['example.org'], 'http://example.org')).toBe(false);
    expect(originAllowed(['example.org'], 'https://example.org:8443')).toBe(false);
    expect(originAllowed(['https://example.org'], 'http://example.org:8080')).toBe(false);
    expect(originAllowed(['http://localhost:3000'], 'http://localhost:3000')).toBe(true);
    expect(originAllowed(['http://localhost:3000'], 'http://localhost:3001')).toBe(false);
    expect(originAllowed(['http://localhost:3000'], 'https://localhost:3000')).toBe(false);
    expect(originAllowed(['HTTPS://Example.ORG'], 'https://example.org')).toBe(true);
    // Wildcards keep working, on the pattern's scheme (https by default) and port.
    expect(originAllowed(['*.example.org'], 'https://deep.sub.example.org')).toBe(true);
    expect(originAllowed(['*.example.org'], 'http://maps.example.org')).toBe(false);
    expect(originAllowed(['*.example.org'], 'https://maps.example.org:8443')).toBe(false);
    expect(originAllowed(['http://*.example.org'], 'http://maps.example.org')).toBe(true);
    expect(originAllowed(['*.example.org'], 'https://example.org')).toBe(false);
    expect(originAllowed(['*.example.org'], 'https://badexample.org')).toBe(false);
    // A Referer is a URL: its path does not matter.
    expect(originAllowed(['example.org'], 'https://example.org/page.html?x=1')).toBe(true);
    // What is not an origin never matches.
    expect(originAllowed(['example.org'], 'not a url')).toBe(false);
    expect(originAllowed(['example.org'], 'example.org')).toBe(false);
    expect(originAllowed(['example.org'], 'null')).toBe(false);
  });

  test('origin patterns loosened to the host: any scheme and port', () => {
    expect(originAllowed(['example.org'], 'http://example.org:8080', 'host')).toBe(true);
    expect(originAllowed(['*.example.org'], 'http://a.example.org:81', 'host')).toBe(true);
    expect(originAllowed(['example.org'], 'http://example.org.evil.test', 'host')).toBe(false);
    expect(ring.check('loose-key', { origin: 'http://example.org:8080', 'user-agent': 'QGIS/3' }).ok).toBe(true);
  });
});

describe('the key parameter and the log', () => {
  test('keyParam: the first parameter URLSearchParams decodes to key', () => {
    expect(keyParam('key=a')).toBe('a');
    expect(keyParam('x=1&key=a&key=b')).toBe('a');
    expect(keyParam('%6Bey=a')).toBe('a');
    expect(keyParam('%6Bey=a&key=b')).toBe('a');
    expect(keyParam('x=%20&key=b')).toBe('b');
    expect(keyParam('key=a%2Bb')).toBe('a+b');
    expect(keyParam('key=a+b')).toBe('a b');
    expect(keyParam('KEY=a')).toBeNull();
    expect(keyParam('')).toBeNull();
  });

  test('redactKey hides every parameter whose decoded name is key, in any case, and leaves the rest as sent', () => {
    expect(redactKey('/t/0/0/0?key=s3cret')).toBe('/t/0/0/0?key=***');
    expect(redactKey('/t?%6Bey=s3cret&x=%6B')).toBe('/t?%6Bey=***&x=%6B');
    expect(redactKey('/t?x=1&%6B%65%79=s3cret&k%65Y=s4&KEY=s5#f')).toBe('/t?x=1&%6B%65%79=***&k%65Y=***&KEY=***');
    expect(redactKey('/t?monkey=1&keys=2&key')).toBe('/t?monkey=1&keys=2&key');
    expect(redactKey('/t?key=a=b&key==c')).toBe('/t?key=***&key=***');
    expect(redactKey('/t?%zz=1&%6Bey=s3cret')).toBe('/t?%zz=1&%6Bey=***');
    expect(redactKey('/key=s3cret')).toBe('/key=s3cret');
    // The redacted query is remembered: the second path with the same query, and the same URL again, agree.
    expect(redactKey('/t/1/0/0?key=s3cret')).toBe('/t/1/0/0?key=***');
    expect(redactKey('/t?%6Bey=s3cret&x=%6B')).toBe('/t?%6Bey=***&x=%6B');
    for (let i = 0; i < 300; i++) expect(redactKey(`/t/${i}?key=k${i}&n=${i}`)).toBe(`/t/${i}?key=***&n=${i}`);
    expect(redactKey('/u?key=s3cret')).toBe('/u?key=***');
  });
});

describe('trusted proxies', () => {
  const from = (remoteAddress: string) => ({ socket: { remoteAddress } }) as IncomingMessage;

  test('only listed addresses and ranges are trusted, IPv4 peers on dual-stack sockets included', () => {
    const trust = new ProxyTrust(true, ['127.0.0.1', '10.0.0.0/8', 'fd00::/8']);
    expect(trust.trusts(from('127.0.0.1'))).toBe(true);
    expect(trust.trusts(from('::ffff:127.0.0.1'))).toBe(true);
    expect(trust.trusts(from('10.200.3.4'))).toBe(true);
    expect(trust.trusts(from('::ffff:10.200.3.4'))).toBe(true);
    expect(trust.trusts(from('fd12::1'))).toBe(true);
    expect(trust.trusts(from('127.0.0.2'))).toBe(false);
    expect(trust.trusts(from('11.0.0.1'))).toBe(false);
    expect(trust.trusts(from('::1'))).toBe(false);
  });

  test('nobody is trusted while trustProxy is off', () => {
    expect(new ProxyTrust(false, ['127.0.0.1']).trusts(from('127.0.0.1'))).toBe(false);
  });
});
