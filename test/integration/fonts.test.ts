// /fonts/{fontstack}/{start}-{end}.pbf against the bundled sample (Noto Sans Regular) and against a data directory
// of small made-up fonts: combining in order, the configured fallback, 404 and 400, content type, ETags.

import fs from 'node:fs';
import path from 'node:path';
import { decodeGlyphs, encodeGlyphs, type Glyph } from '../../src/services/fonts/glyphs';
import { StoreWriter } from '../../src/store/mbtiles/writer';
import { rawGet, SAMPLE_DIR, startServer, type TestServer } from '../helpers/server';
import { waitFor } from '../helpers/wait';
import { tempDirs } from '../helpers/temp-dirs';

const { tempDir, removeTempDirs } = tempDirs('tilemirror-fonts-');

const NOTO_DIR = path.join(path.dirname(require.resolve('tileserver-gl-styles/package.json')), 'fonts', 'Noto Sans Regular');
const enc = (s: string) => encodeURIComponent(s);

describe('fonts of the bundled sample', () => {
  let srv: TestServer;
  beforeAll(async () => {
    srv = await startServer();
  });
  afterAll(() => srv.close());
  const get = (p: string, h?: Record<string, string>) => rawGet(`${srv.url}${p}`, h);

  test('Noto Sans Regular ranges are served as stored, application/x-protobuf', async () => {
    for (const range of ['0-255', '256-511', '65280-65535']) {
      const r = await get(`/fonts/${enc('Noto Sans Regular')}/${range}.pbf?key=demo`);
      expect(r.status).toBe(200);
      expect(r.headers['content-type']).toBe('application/x-protobuf');
      expect(r.body.equals(fs.readFileSync(path.join(NOTO_DIR, `${range}.pbf`)))).toBe(true);
    }
    const sample = path.join(SAMPLE_DIR, 'fonts', 'Noto Sans Regular.mbtiles');
    expect(fs.existsSync(sample)).toBe(true);
  });

  test('a stack whose other fonts are not mirrored still answers with the Noto glyphs', async () => {
    const r = await get(`/fonts/${enc('Open Sans Bold,Noto Sans Regular')}/0-255.pbf?key=demo`);
    expect(r.status).toBe(200);
    const glyphs = decodeGlyphs(r.body)[0].glyphs;
    expect(glyphs.map((g) => g.id)).toEqual(expect.arrayContaining([65, 97]));
  });

  test('a font that is not mirrored falls back to the default family (fonts.fallback)', async () => {
    const r = await get(`/fonts/${enc('Open Sans Regular')}/0-255.pbf?key=demo`);
    expect(r.status).toBe(200);
    expect(r.body.equals(fs.readFileSync(path.join(NOTO_DIR, '0-255.pbf')))).toBe(true);
  });

  test('gzip when accepted, an ETag and 304', async () => {
    const url = `/fonts/${enc('Noto Sans Regular')}/0-255.pbf?key=demo`;
    const gz = await get(url, { 'Accept-Encoding': 'gzip' });
    expect(gz.headers['content-encoding']).toBe('gzip');
    const plain = await get(url);
    expect(plain.headers.etag).toBeDefined();
    expect(plain.headers['cache-control']).toMatch(/max-age/);
    const again = await get(url, { 'If-None-Match': plain.headers.etag! });
    expect(again.status).toBe(304);
  });

  test.each([
    ['0-256', 'Invalid glyph range'],
    ['1-256', 'Invalid glyph range'],
    ['255-510', 'Invalid glyph range'],
    ['65536-65791', 'Invalid glyph range'],
    ['abc', 'Invalid glyph range'],
    ['0-255.0', 'Invalid glyph range'],
  ])('range %s → 400 %s', async (range, message) => {
    const r = await get(`/fonts/${enc('Noto Sans Regular')}/${range}.pbf?key=demo`);
    expect(r.status).toBe(400);
    expect(r.headers['content-type']).toMatch(/^text\/plain/);
    expect(r.body.toString().trim()).toBe(message);
  });

  test('bad fontstacks → 400', async () => {
    for (const stack of [',Noto Sans Regular', 'Noto Sans Regular,,', ' ', Array.from({ length: 11 }, (_, i) => `F${i}`).join(',')]) {
      const r = await get(`/fonts/${enc(stack)}/0-255.pbf?key=demo`);
      expect(r.status).toBe(400);
      expect(r.body.toString()).toMatch(/^Invalid fontstack/);
    }
  });

  test('the key is required', async () => {
    expect((await get(`/fonts/${enc('Noto Sans Regular')}/0-255.pbf`)).status).toBe(403);
  });
});

describe('fontstacks over several mirrored fonts', () => {
  let dir: string;
  let srv: TestServer;

  /** A glyph whose advance tells which font it came from. */
  const glyph = (id: number, font: number): Glyph => ({ id, bitmap: Uint8Array.from([font]), width: 1, height: 1, left: 0, top: -5, advance: font });
  const fonts: Record<string, Record<string, number[]>> = {
    'Font A': { '0-255': [65, 66] },
    'Font B': { '0-255': [66, 67], '256-511': [300] },
    'Font F': { '0-255': [65, 68], '256-511': [301] },
  };
  const stored: Record<string, Record<string, Buffer>> = {};

  function writeFont(name: string, ranges: Record<string, number[]>, font: number): void {
    const tmp = path.join(dir, 'fonts', `.${name}.tmp`);
    const w = new StoreWriter(tmp, { kind: 'fonts', name, pyramids: [] });
    stored[name] = {};
    for (const [range, ids] of Object.entries(ranges)) {
      const data = encodeGlyphs(name, range, ids.map((id) => glyph(id, font)));
      stored[name][range] = data;
      w.putDocument(`${range}.pbf`, 'application/x-protobuf', data);
    }
    w.close();
    fs.renameSync(tmp, path.join(dir, 'fonts', `${name}.mbtiles`));
  }

  beforeAll(async () => {
    dir = tempDir();
    fs.mkdirSync(path.join(dir, 'fonts'));
    Object.entries(fonts).forEach(([name, ranges], i) => writeFont(name, ranges, i + 1));
    srv = await startServer({ dataDir: dir, config: { fonts: { fallback: ['Font F'] } } });
  });
  afterAll(async () => {
    await srv?.close();
    removeTempDirs();
  });

  const glyphs = async (stack: string, range = '0-255') => {
    const r = await rawGet(`${srv.url}/fonts/${enc(stack)}/${range}.pbf?key=demo`);
    expect(r.status).toBe(200);
    expect(r.headers['content-type']).toBe('application/x-protobuf');
    const [fs0] = decodeGlyphs(r.body);
    return { name: fs0.name, range: fs0.range, from: Object.fromEntries(fs0.glyphs.map((g) => [g.id, g.advance])), body: r.body };
  };

  test('one font: its bytes unchanged', async () => {
    const r = await glyphs('Font A');
    expect(r.body.equals(stored['Font A']['0-255'])).toBe(true);
  });

  test('each glyph from the first font that has it, then the fallback; one fontstack named after the request', async () => {
    expect(await glyphs('Font A,Font B')).toMatchObject({ name: 'Font A,Font B', range: '0-255', from: { 65: 1, 66: 1, 67: 2, 68: 3 } });
    expect((await glyphs('Font B,Font A')).from).toEqual({ 65: 1, 66: 2, 67: 2, 68: 3 });
    expect((await glyphs('Font F,Font A')).from).toEqual({ 65: 3, 66: 1, 68: 3 });
  });

  test('fonts that are not mirrored are skipped', async () => {
    expect((await glyphs('Missing,Font B')).from).toEqual({ 65: 3, 66: 2, 67: 2, 68: 3 });
    const onlyFallback = await glyphs('Missing One,Missing Two');
    expect(onlyFallback.body.equals(stored['Font F']['0-255'])).toBe(true);
  });

  test('a range a font does not have gives no glyphs from it', async () => {
    expect((await glyphs('Font A,Font B', '256-511')).from).toEqual({ 300: 2, 301: 3 });
    const empty = await glyphs('Font A', '512-767');
    expect(empty.from).toEqual({});
  });

  test('404 only when no font of the stack nor the fallback is mirrored', async () => {
    const s = await startServer({ dataDir: dir, config: { fonts: { fallback: ['Nope'] } } });
    try {
      const r = await rawGet(`${s.url}/fonts/${enc('Missing,Other')}/0-255.pbf?key=demo`);
      expect(r.status).toBe(404);
      expect(r.headers['content-type']).toMatch(/^text\/plain/);
      expect((await rawGet(`${s.url}/fonts/${enc('Missing,Font A')}/0-255.pbf?key=demo`)).status).toBe(200);
    } finally {
      await s.close();
    }
  });

  test('a republished font is picked up: combined answers follow the new store', async () => {
    const before = await rawGet(`${srv.url}/fonts/${enc('Font A,Font B')}/0-255.pbf?key=demo`);
    writeFont('Font B', { '0-255': [66, 67, 69] }, 2);
    // The catalog notices the new file in the background: wait for the glyph only the new store has.
    const from = await waitFor('the republished font to be served', async () => {
      const g = (await glyphs('Font A,Font B')).from;
      return g[69] !== undefined ? g : undefined;
    });
    expect(from).toEqual({ 65: 1, 66: 1, 67: 2, 68: 3, 69: 2 });
    const after = await rawGet(`${srv.url}/fonts/${enc('Font A,Font B')}/0-255.pbf?key=demo`);
    expect(after.headers.etag).not.toBe(before.headers.etag);
  });
});
