// Batch geocoding reads its queries through its schema (routes/geocoding.ts `batchParams`): the path segment as
// sent, split on its verbatim `;`, each query then decoded. A malformed batch is the 400 it always was, decided
// by the schema before the handler runs (so even a server without geocoding answers it 400, not 503).

import { batchParams } from '../../../src/http/routes/geocoding';
import { failure, inProcess, json } from '../../helpers/in-process';

const app = inProcess();
const without = inProcess({ without: ['geocoding'] });
afterAll(async () => {
  for (const a of [app, without]) await a.close();
});

const TEXT = 'text/plain; charset=utf-8';
const fifty = Array.from({ length: 50 }, (_, i) => `q${i}`).join(';');

const MALFORMED: [string, string][] = [
  [`/geocoding/${fifty};q50.json`, 'Invalid queries: at most 50 queries per batch, got 51'],
  ['/geocoding/Paris;;Rome.json', 'Invalid queries: query 2 is empty'],
  ['/geocoding/Paris;%20.json', 'Invalid queries: query 2 is empty'],
  [`/geocoding/Paris;${'a'.repeat(257)}.json`, 'Invalid queries: query 2 is longer than 256 characters'],
  ['/geocoding/Paris;%E0%A4%A.json', 'Invalid queries: bad percent-encoding'],
];

test.each(MALFORMED)('%s → 400 "%s", with the service and without it', async (path, message) => {
  expect(failure(await app.get(path))).toEqual({ status: 400, type: TEXT, message });
  expect(failure(await without.get(path))).toEqual({ status: 400, type: TEXT, message });
});

test('the schema splits on the verbatim `;` only: an escaped one stays inside its query', () => {
  expect(batchParams.parse({ queries: 'Paris%3BRome;Lisboa' }).queries).toEqual(['Paris;Rome', 'Lisboa']);
  expect(batchParams.parse({ queries: 'M%C3%BCnchen;2.35,48.86' }).queries).toEqual(['München', '2.35,48.86']);
  expect(batchParams.safeParse({ queries: 'a;' }).error?.issues[0].message).toBe('Invalid queries: query 2 is empty');
});

test('through the route: as many answers as verbatim-separated queries', async () => {
  const r = await app.get('/geocoding/Paris%3BRome;Lisboa.json?limit=1');
  expect(r.status).toBe(200);
  expect(json<unknown[]>(r)).toHaveLength(2);
});

test('a reverse query outside the world is still refused after the schema, by the handler', async () => {
  expect(failure(await app.get('/geocoding/Paris;200,10.json'))).toEqual({ status: 400, type: TEXT, message: 'Invalid queries: query 2 is outside -180..180, -90..90' });
});
