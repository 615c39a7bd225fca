// The batch that writes a turn's answers together (src/http/reply-batch.ts): nothing is written while the turn's
// callbacks run, everything right after them in order, at once when the batch is full, and a throwing write does
// not hold back the others. Real timers and real event-loop phases; nothing mocked.

import { ReplyBatch } from '../../src/http/reply-batch';

type Write = [string, number, boolean, undefined];

function recorder(maxSize?: number): { batch: ReplyBatch<string, number, boolean, undefined>; written: Write[] } {
  const written: Write[] = [];
  const batch = new ReplyBatch<string, number, boolean, undefined>((a, b, c, d) => {
    written.push([a, b, c, d]);
  }, maxSize);
  return { batch, written };
}

const nextCheckPhase = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

test('answers added in one turn are written after it, together and in the order they were added', async () => {
  const { batch, written } = recorder();
  batch.add('a', 1, true, undefined);
  batch.add('b', 2, false, undefined);
  batch.add('c', 3, true, undefined);
  expect(written).toEqual([]);
  await nextCheckPhase();
  expect(written).toEqual([
    ['a', 1, true, undefined],
    ['b', 2, false, undefined],
    ['c', 3, true, undefined],
  ]);
});

test('an answer from a handler\'s promise settled in the same turn joins the batch of the sync answers', async () => {
  const { batch, written } = recorder();
  // One callback of a phase (a timer here, as a socket read in the poll phase) answers one request at once and
  // another through a promise: the promise settles in the microtasks after the callback, before the check phase.
  // (Two timers are not used: Node reads the clock for each, so they need not fall due in the same phase.)
  const seen: number[] = [];
  await new Promise<void>((resolve) => {
    setTimeout(() => {
      batch.add('sync', 1, true, undefined);
      seen.push(written.length);
      void Promise.resolve().then(() => {
        batch.add('async', 2, true, undefined);
        seen.push(written.length);
        setImmediate(resolve);
      });
    }, 5);
  });
  expect(seen).toEqual([0, 0]);
  expect(written.map(([a]) => a)).toEqual(['sync', 'async']);
});

test('a full batch is written at once, and what follows waits for the end of the turn', async () => {
  const { batch, written } = recorder(3);
  batch.add('a', 1, true, undefined);
  batch.add('b', 2, true, undefined);
  expect(written).toHaveLength(0);
  batch.add('c', 3, true, undefined);
  expect(written.map(([a]) => a)).toEqual(['a', 'b', 'c']);
  batch.add('d', 4, true, undefined);
  expect(written).toHaveLength(3);
  await nextCheckPhase();
  expect(written.map(([a]) => a)).toEqual(['a', 'b', 'c', 'd']);
});

test('after a full flush, the next turn\'s answers are still written at its end', async () => {
  const { batch, written } = recorder(2);
  batch.add('a', 1, true, undefined);
  batch.add('b', 2, true, undefined);
  expect(written).toHaveLength(2);
  // The check phase scheduled by 'a' finds the batch empty.
  await nextCheckPhase();
  batch.add('c', 3, true, undefined);
  expect(written).toHaveLength(2);
  await nextCheckPhase();
  expect(written.map(([a]) => a)).toEqual(['a', 'b', 'c']);
});

test('a write that throws does not hold back the others; its error is raised after them', () => {
  const written: string[] = [];
  const batch = new ReplyBatch<string, number, boolean, undefined>((a) => {
    if (a === 'bad') throw new Error('bad write');
    written.push(a);
  }, 3);
  batch.add('a', 1, true, undefined);
  batch.add('bad', 2, true, undefined);
  expect(() => batch.add('c', 3, true, undefined)).toThrow('bad write');
  expect(written).toEqual(['a', 'c']);
  // Nothing is left queued to be written twice.
  expect(() => batch.flush()).not.toThrow();
  expect(written).toEqual(['a', 'c']);
});
