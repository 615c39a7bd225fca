// The browser suite's rule for "stays on this machine" (test/e2e/browser.ts isLocalUrl); no browser needed.
import { isLocalUrl } from './browser';

test.each([
  'http://127.0.0.1:8080/maps/sample/?key=demo',
  'http://127.3.4.5/x',
  'https://localhost/x',
  'ws://localhost:9000/',
  'http://[::1]:8080/x',
  'data:image/png;base64,AAAA',
  'blob:http://127.0.0.1:8080/0b8a2f44-0000-4000-8000-000000000000',
  'about:blank',
])('local: %s', (url) => expect(isLocalUrl(url)).toBe(true));

test.each([
  'http://example.com/x',
  'https://api.maptiler.com/maps/streets/style.json',
  'http://128.0.0.1/x',
  'http://10.0.0.1/x',
  'http://[::2]/x',
  'http://127.0.0.1.example.com/x',
  'http://localhost.example.com/x',
  'chrome-extension://abc/x',
  'not a url',
])('not local: %s', (url) => expect(isLocalUrl(url)).toBe(false));
