// The sample style as MapLibre loads it: every source, the glyphs and the sprite point at this server with the
// requester's key, and every URL MapLibre derives from them answers 200. Also the automatic style of the vector
// tile set's viewer (labels in the fallback font).

import request from 'supertest';
import { rawGet, serverConfig, startServer, type TestServer } from '../helpers/server';

let srv: TestServer;
beforeAll(async () => {
  srv = await startServer();
});
afterAll(() => srv.close());

interface Style {
  glyphs: string;
  sprite: string;
  sources: Record<string, { type: string; url?: string; tiles?: string[] }>;
  layers: { id: string; type: string; source?: string; 'source-layer'?: string; layout?: Record<string, unknown> }[];
}

/** What MapLibre requests for a glyph range: the template filled in, the fontstack percent-encoded. */
const glyphUrl = (template: string, fonts: string[], range: string) =>
  template.replace('{fontstack}', encodeURIComponent(fonts.join(','))).replace('{range}', range);
/** MapLibre's normalizeSpriteURL: `@2x` and the extension go into the path, before the query. */
const spriteUrl = (base: string, scale: string, ext: string) => {
  const u = new URL(base);
  u.pathname += `${scale}${ext}`;
  return u.toString();
};
const fontsOf = (style: Style) => [
  ...new Set(style.layers.flatMap((l) => (Array.isArray(l.layout?.['text-font']) ? [(l.layout!['text-font'] as string[]).join(',')] : []))),
];

async function ok(url: string): Promise<Buffer> {
  expect(url.startsWith(`${srv.url}/`)).toBe(true);
  const r = await rawGet(url);
  if (r.status !== 200) throw new Error(`${url} answered ${r.status}`);
  return r.body;
}

describe('sample style.json', () => {
  let style: Style;
  beforeAll(async () => {
    const r = await request(srv.url).get('/maps/sample/style.json?key=demo');
    expect(r.status).toBe(200);
    style = r.body as Style;
  });

  test('glyphs, sprite and sources on this server with the key', () => {
    expect(style.glyphs).toBe(`${srv.url}/fonts/{fontstack}/{range}.pbf?key=demo`);
    expect(style.sprite).toBe(`${srv.url}/sprites/sample/sprite?key=demo`);
    expect(style.sources['sample-vector'].url).toBe(`${srv.url}/tiles/sample-vector/tiles.json?key=demo`);
    expect(JSON.stringify(style)).not.toContain('tilemirror://');
  });

  test('every source answers, and so does a tile from its TileJSON', async () => {
    for (const source of Object.values(style.sources)) {
      const tj = JSON.parse((await ok(source.url!)).toString('utf8')) as { tiles: string[]; vector_layers: { id: string }[] };
      expect(tj.tiles[0]).toMatch(new RegExp(`^${srv.url}/.*key=demo`));
      await ok(tj.tiles[0].replace('{z}', '0').replace('{x}', '0').replace('{y}', '0'));
      // every source-layer the style draws exists in the tiles
      const layers = tj.vector_layers.map((l) => l.id);
      for (const l of style.layers.filter((x) => x.source)) expect(layers).toContain(l['source-layer']);
    }
  });

  test('the glyph ranges of every text-font answer', async () => {
    const stacks = fontsOf(style);
    expect(stacks).toEqual(['Noto Sans Regular']);
    for (const range of ['0-255', '256-511', '8192-8447']) {
      const body = await ok(glyphUrl(style.glyphs, stacks[0].split(','), range));
      expect(body.length).toBeGreaterThan(0);
    }
  });

  test('the sprite at 1x and 2x, and every icon the style uses is in it', async () => {
    for (const scale of ['', '@2x']) {
      const index = JSON.parse((await ok(spriteUrl(style.sprite, scale, '.json'))).toString('utf8')) as Record<string, unknown>;
      await ok(spriteUrl(style.sprite, scale, '.png'));
      const icons = style.layers.map((l) => l.layout?.['icon-image']).filter((i): i is string => typeof i === 'string');
      expect(icons.length).toBeGreaterThan(0);
      expect(icons.filter((i) => index[i] === undefined)).toEqual([]);
    }
    expect(spriteUrl(style.sprite, '@2x', '.png')).toBe(`${srv.url}/sprites/sample/sprite@2x.png?key=demo`);
  });

  test('behind a trusted proxy the URLs follow X-Forwarded-*', async () => {
    // Trust is off by default (test/integration/proxy.trust.test.ts); here the test client, on loopback, is the proxy.
    const proxied = await startServer({ config: serverConfig({ trustProxy: true }) });
    try {
      const r = await request(proxied.url)
        .get('/maps/sample/style.json?key=demo')
        .set('X-Forwarded-Proto', 'https')
        .set('X-Forwarded-Host', 'maps.example.org');
      expect(r.body.glyphs).toBe('https://maps.example.org/fonts/{fontstack}/{range}.pbf?key=demo');
      expect(r.body.sprite).toBe('https://maps.example.org/sprites/sample/sprite?key=demo');
    } finally {
      await proxied.close();
    }
  });
});

describe('automatic style of a vector tile set viewer', () => {
  test('glyphs on this server and labels in the fallback font, whose ranges answer', async () => {
    const page = await request(srv.url).get('/tiles/sample-vector/?key=demo');
    expect(page.status).toBe(200);
    const m = /const options = (\{.*\});\n/.exec(page.text);
    expect(m).not.toBeNull();
    const style = (JSON.parse(m![1]) as { style: Style }).style;
    expect(style.glyphs).toBe(`${srv.url}/fonts/{fontstack}/{range}.pbf?key=demo`);
    const labels = style.layers.filter((l) => l.type === 'symbol');
    expect([...new Set(labels.map((l) => l['source-layer']))].sort()).toEqual(['countries', 'country_label']);
    expect(fontsOf(style)).toEqual(['Noto Sans Regular']);
    await ok(glyphUrl(style.glyphs, ['Noto Sans Regular'], '0-255'));
    await ok(style.sources.tileset.url!);
  });

  test('a raster tile set gets no glyphs', async () => {
    const page = await request(srv.url).get('/tiles/sample-terrain/?key=demo');
    const style = (JSON.parse(/const options = (\{.*\});\n/.exec(page.text)![1]) as { style: Style }).style;
    expect(style.glyphs).toBeUndefined();
  });
});
