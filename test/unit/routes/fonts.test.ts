// src/http/routes/fonts.ts in process: glyph ranges of the sample's font as stored, stacks and the configured
// fallback, and the 400 and 404 answers.

import * as fonts from '../../../src/http/routes/fonts';
import { decodeGlyphs } from '../../../src/services/fonts/glyphs';
import { failure, inProcess, patternsOf, readStoredDocument, storeFile } from '../../helpers/in-process';

const app = inProcess();
const noFallback = inProcess({ config: { fonts: { fallback: ['Nope'] } } });
afterAll(async () => {
  await app.close();
  await noFallback.close();
});

const NOTO = storeFile('fonts', 'Noto Sans Regular');
const enc = encodeURIComponent;
const TEXT = 'text/plain; charset=utf-8';

test('the route table gives fonts.ts its one pattern', () => {
  expect(patternsOf(fonts)).toEqual(['/fonts/:fontstack/:range.pbf']);
});

test.each(['0-255', '256-511', '65280-65535'])('Noto Sans Regular %s: the stored range, application/x-protobuf, a document with an ETag', async (range) => {
  const r = await app.get(`/fonts/${enc('Noto Sans Regular')}/${range}.pbf`);
  expect(r).toMatchObject({ status: 200, type: 'application/x-protobuf', cache: 'document' });
  expect(r.etag).toEqual(expect.any(String));
  expect(r.body?.equals(readStoredDocument(NOTO, `${range}.pbf`))).toBe(true);
});

test('a stack whose other fonts are not mirrored answers with the Noto glyphs', async () => {
  const r = await app.get(`/fonts/${enc('Open Sans Bold,Noto Sans Regular')}/0-255.pbf`);
  expect(r.status).toBe(200);
  expect(decodeGlyphs(r.body!)[0].glyphs.map((g) => g.id)).toEqual(expect.arrayContaining([65, 97]));
});

test('a font that is not mirrored falls back to the configured family (fonts.fallback)', async () => {
  const r = await app.get(`/fonts/${enc('Open Sans Regular')}/0-255.pbf`);
  expect(r.status).toBe(200);
  expect(r.body?.equals(readStoredDocument(NOTO, '0-255.pbf'))).toBe(true);
});

test('404 only when neither a font of the stack nor the fallback is mirrored', async () => {
  expect(failure(await noFallback.get(`/fonts/${enc('Missing,Other')}/0-255.pbf`))).toEqual({ status: 404, type: TEXT, message: 'Unknown font: Missing,Other' });
  expect((await noFallback.get(`/fonts/${enc('Missing,Noto Sans Regular')}/0-255.pbf`)).status).toBe(200);
});

test.each(['0-256', '1-256', '255-510', '65536-65791', 'abc', '0-255.0'])('range %s → 400 Invalid glyph range', async (range) => {
  expect(failure(await app.get(`/fonts/${enc('Noto Sans Regular')}/${range}.pbf`))).toEqual({ status: 400, type: TEXT, message: 'Invalid glyph range' });
});

test.each([',Noto Sans Regular', 'Noto Sans Regular,,', ' ', Array.from({ length: 11 }, (_, i) => `F${i}`).join(',')])('fontstack %j → 400 Invalid fontstack', async (stack) => {
  expect(failure(await app.get(`/fonts/${enc(stack)}/0-255.pbf`))).toEqual({ status: 400, type: TEXT, message: expect.stringMatching(/^Invalid fontstack/) });
});

test('every route of fonts.ts was reached, and nothing failed unexpectedly', () => {
  expect([...app.reached]).toEqual(expect.arrayContaining(patternsOf(fonts)));
  expect([...app.failures, ...noFallback.failures]).toEqual([]);
});
