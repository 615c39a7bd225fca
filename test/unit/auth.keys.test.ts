import { KeyRing, originAllowed } from '../../src/http/auth';

const ring = new KeyRing([
  { key: 'open-key', plan: 'free', allowedOrigins: [] },
  { key: 'site-key', plan: 'paid', allowedOrigins: ['https://example.org', '*.maps.example.com'] },
  { key: 'qgis-key', plan: 'free', allowedOrigins: [], allowedUserAgent: 'QGIS' },
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

  test('origin patterns', () => {
    expect(originAllowed(['example.org'], 'http://example.org:8080')).toBe(true);
    expect(originAllowed(['*.example.org'], 'https://deep.sub.example.org')).toBe(true);
    expect(originAllowed(['*.example.org'], 'https://badexample.org')).toBe(false);
    expect(originAllowed(['example.org'], 'not a url')).toBe(false);
  });
});
