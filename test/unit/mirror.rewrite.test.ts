import { stripKey } from '../../src/mirror/upstream/client';
import { tileUrl } from '../../src/mirror/discovery/tile-url';
import { tileTemplate } from '../../src/mirror/discovery/upstream-tilejson';
import { createRedactor } from '../../src/mirror/upstream/redact';
import { assertNoSecret, rewriteDocument, styleReferences, toLocalUrl } from '../../src/mirror/rewrite';
import { resolveLocalUrls } from '../../src/ogc/style';

const UP = 'https://api.example.com';
const KEY = 's3cr3t-K3y+/=';

describe('URL rewriting', () => {
  test('upstream URLs become tilemirror:// without the key; others are left alone', () => {
    expect(toLocalUrl(`${UP}/tiles/v3/tiles.json?key=${KEY}`, UP)).toBe('tilemirror://tiles/v3/tiles.json');
    expect(toLocalUrl(`${UP}/fonts/{fontstack}/{range}.pbf?key=abc`, `${UP}/`)).toBe('tilemirror://fonts/{fontstack}/{range}.pbf');
    expect(toLocalUrl(`${UP}/maps/x/sprite?foo=1&key=abc&bar=2`, UP)).toBe('tilemirror://maps/x/sprite?foo=1&bar=2');
    expect(toLocalUrl('HTTPS://API.EXAMPLE.COM/tiles/a/tiles.json', UP)).toBe('tilemirror://tiles/a/tiles.json');
    expect(toLocalUrl('https://www.naturalearthdata.com/', UP)).toBeUndefined();
    expect(toLocalUrl(`${UP}x/tiles/a`, UP)).toBeUndefined();
    expect(toLocalUrl('not a url', UP)).toBeUndefined();
  });

  test('a style: sources, tiles templates, glyphs and sprite are rewritten; what it uses is reported', () => {
    const style = {
      version: 8,
      sources: {
        v: { type: 'vector', url: `${UP}/tiles/v3/tiles.json?key=${KEY}` },
        r: { type: 'raster', tiles: [`${UP}/tiles/satellite/{z}/{x}/{y}.jpg?key=${KEY}`], tileSize: 256 },
        ext: { type: 'raster', tiles: ['https://tile.other.org/{z}/{x}/{y}.png'] },
      },
      glyphs: `${UP}/fonts/{fontstack}/{range}.pbf?key=${KEY}`,
      sprite: `${UP}/maps/streets/sprite?key=${KEY}`,
      layers: [{ id: 'a', type: 'symbol', layout: { 'text-field': 'key=abc' } }],
    };
    const local = rewriteDocument(style, UP);
    expect(local.sources.v.url).toBe('tilemirror://tiles/v3/tiles.json');
    expect(local.sources.r.tiles).toEqual(['tilemirror://tiles/satellite/{z}/{x}/{y}.jpg']);
    expect(local.sources.ext.tiles).toEqual(['https://tile.other.org/{z}/{x}/{y}.png']);
    expect(local.glyphs).toBe('tilemirror://fonts/{fontstack}/{range}.pbf');
    expect(local.sprite).toBe('tilemirror://maps/streets/sprite');
    expect(JSON.stringify(local)).not.toContain(KEY);
    expect(style.sources.v.url).toContain(KEY); // the input is not modified
    const refs = styleReferences(local);
    expect(refs.resources).toEqual(['tiles/v3', 'tiles/satellite']);
    expect(refs.glyphs).toBe('tilemirror://fonts/{fontstack}/{range}.pbf');
    expect(refs.sprites).toEqual(['tilemirror://maps/streets/sprite']);
    expect(refs.external).toEqual(['https://tile.other.org/{z}/{x}/{y}.png']);
    // Served back by tilemirror: its own base and the requester's key.
    const served = resolveLocalUrls(local, 'http://local:8080', 'mine');
    expect(served.sources.v.url).toBe('http://local:8080/tiles/v3/tiles.json?key=mine');
  });

  test('the secret guard refuses bytes holding the key, raw or percent-encoded', () => {
    expect(() => assertNoSecret(`{"u":"x?key=${KEY}"}`, KEY, 'doc')).toThrow(/upstream key/);
    expect(() => assertNoSecret(Buffer.from(encodeURIComponent(KEY)), KEY, 'doc')).toThrow();
    expect(() => assertNoSecret('{"u":"tilemirror://x"}', KEY, 'doc')).not.toThrow();
    expect(() => assertNoSecret('anything', undefined, 'doc')).not.toThrow();
  });
});

describe('key redaction', () => {
  const redact = createRedactor(KEY);
  test('key query parameters and literal keys are hidden everywhere', () => {
    expect(redact(`GET ${UP}/tiles/x/1/2/3?key=${encodeURIComponent(KEY)} failed`)).toBe(`GET ${UP}/tiles/x/1/2/3?key=*** failed`);
    expect(redact(`${UP}/a?x=1&key=zzz&y=2`)).toBe(`${UP}/a?x=1&key=***&y=2`);
    expect(redact(`upstream said: invalid key ${KEY}`)).toBe('upstream said: invalid key ***');
    expect(redact(`token ${encodeURIComponent(KEY)}`)).toBe('token ***');
    expect(redact('nothing secret here')).toBe('nothing secret here');
  });
  test('no key: only parameters are hidden', () => {
    expect(createRedactor(undefined)('https://h/p?key=abc')).toBe('https://h/p?key=***');
  });
  test('stripKey removes credential parameters and keeps the rest (and braces)', () => {
    expect(stripKey('https://h/t/{z}/{x}/{y}.png?key=abc')).toBe('https://h/t/{z}/{x}/{y}.png');
    expect(stripKey('https://h/t?a=1&key=abc&b=2')).toBe('https://h/t?a=1&b=2');
    expect(stripKey('https://h/t')).toBe('https://h/t');
    // Any spelling a server reads as `key`, and the fragment kept.
    expect(stripKey('https://h/t?%6Bey=abc&a=1#frag')).toBe('https://h/t?a=1#frag');
    expect(stripKey('https://h/t?KEY=abc&access_token=x&api%5Fkey=y')).toBe('https://h/t');
  });

  test("the cloud's documents: URLs on other hosts than the upstream lose their key too (tiles, fonts, sprites on CDN names)", () => {
    const tj = {
      tiles: [`https://tiles.cdn.example/v3/{z}/{x}/{y}.pbf?key=${KEY}&mtsid=1`, `//a.cdn.example/v3/{z}/{x}/{y}.pbf?key=${KEY}`],
      attribution: '<a href="https://www.openstreetmap.org/copyright">© OSM</a>',
      logo: `https://other.example/logo.png?key=${KEY}`,
      description: 'key=this text is no URL',
    };
    const local = rewriteDocument(tj, UP);
    expect(local.tiles).toEqual(['https://tiles.cdn.example/v3/{z}/{x}/{y}.pbf?mtsid=1', '//a.cdn.example/v3/{z}/{x}/{y}.pbf']);
    expect(local.logo).toBe('https://other.example/logo.png');
    expect(local.description).toBe(tj.description);
    expect(() => assertNoSecret(JSON.stringify(local), KEY, 'tiles.json')).not.toThrow();
  });
});

describe('tile templates', () => {
  test('absolute, root-relative and relative templates resolve against the TileJSON URL, key-free', () => {
    const doc = 'https://up.example/tiles/v3/tiles.json?key=K';
    expect(tileTemplate({ tiles: ['https://up.example/tiles/v3/{z}/{x}/{y}.pbf?key=K'] }, doc)).toBe('https://up.example/tiles/v3/{z}/{x}/{y}.pbf');
    expect(tileTemplate({ tiles: ['/tiles/v3/{z}/{x}/{y}.pbf'] }, doc)).toBe('https://up.example/tiles/v3/{z}/{x}/{y}.pbf');
    expect(tileTemplate({ tiles: ['{z}/{x}/{y}.pbf'] }, doc)).toBe('https://up.example/tiles/v3/{z}/{x}/{y}.pbf');
    expect(() => tileTemplate({ tiles: [] }, doc)).toThrow();
    expect(tileUrl('https://h/{z}/{x}/{y}', 3, 1, 2)).toBe('https://h/3/1/2');
    expect(tileUrl('https://h/{z}/{x}/{-y}', 3, 1, 2)).toBe('https://h/3/1/5');
  });
});
