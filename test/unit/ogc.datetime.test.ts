// ogc/datetime.ts: RFC 3339 instants, the `datetime` and `subset` parameters of OGC API - Tiles' DateTime class, and
// the interval arithmetic a tile request and the collections list use. Expected values are written out by hand.

import { formatInstant, holds, intersectIntervals, meets, parseDatetime, parseInstant, parseSubset } from '../../src/ogc/datetime';

const T0 = Date.UTC(2024, 0, 1, 0, 0, 0);
const T6 = Date.UTC(2024, 0, 1, 6, 0, 0);

describe('parseInstant', () => {
  test.each([
    ['2024-01-01T00:00:00Z', T0],
    ['2024-01-01T06:00:00+00:00', T6],
    ['2024-01-01T07:30:00+01:30', T6],
    ['2023-12-31T22:00:00-08:00', T6],
    ['2024-01-01t06:00:00z', T6],
    ['2024-01-01T06:00:00.250Z', T6 + 250],
    ['2024-01-01T06:00:00.1234567Z', T6 + 123],
    ['2024-02-29T00:00:00Z', Date.UTC(2024, 1, 29)],
  ])('%s', (text, instant) => {
    expect(parseInstant(text)).toBe(instant);
  });

  test.each(['2024-01-01', '2024-01-01T06:00:00', '2024-01-01 06:00:00Z', '2024-13-01T00:00:00Z', '2023-02-29T00:00:00Z', '2024-01-01T24:00:00Z', '2024-01-01T06:60:00Z', '2024-01-01T06:00:00+24:00', ' 2024-01-01T06:00:00Z', 'now', ''])(
    '%p is no RFC 3339 date-time',
    (text) => {
      expect(parseInstant(text)).toBeUndefined();
    },
  );
});

test('formatInstant: UTC with Z, to the second, milliseconds only when there are some', () => {
  expect(formatInstant(T6)).toBe('2024-01-01T06:00:00Z');
  expect(formatInstant(T6 + 250)).toBe('2024-01-01T06:00:00.250Z');
});

describe('parseDatetime', () => {
  test.each([
    ['2024-01-01T06:00:00Z', { start: T6, end: T6 }],
    ['2024-01-01T00:00:00Z/2024-01-01T06:00:00Z', { start: T0, end: T6 }],
    ['../2024-01-01T06:00:00Z', { start: undefined, end: T6 }],
    ['/2024-01-01T06:00:00Z', { start: undefined, end: T6 }],
    ['2024-01-01T00:00:00Z/..', { start: T0, end: undefined }],
    ['2024-01-01T00:00:00Z/', { start: T0, end: undefined }],
  ])('%s', (text, interval) => {
    expect(parseDatetime(text)).toEqual({ ok: true, value: interval });
  });

  test.each([
    ['yesterday', 'Invalid datetime "yesterday": expected an RFC 3339 date-time (e.g. 2024-01-01T06:00:00Z) or an interval start/end'],
    ['../..', 'Invalid datetime "../..": an interval needs a start or an end'],
    ['/', 'Invalid datetime "/": an interval needs a start or an end'],
    ['2024-01-01T06:00:00Z/2024-01-01T00:00:00Z', 'Invalid datetime "2024-01-01T06:00:00Z/2024-01-01T00:00:00Z": the start is after the end'],
    ['a/b/c', 'Invalid datetime "a/b/c": an interval has one "/"'],
    ['2024-01-01/..', 'Invalid datetime "2024-01-01/..": "2024-01-01" is not an RFC 3339 date-time (e.g. 2024-01-01T06:00:00Z)'],
  ])('%s: %s', (text, message) => {
    expect(parseDatetime(text)).toEqual({ ok: false, message });
  });
});

describe('parseSubset', () => {
  test.each([
    [[], undefined],
    [[''], undefined],
    [['datetime("2024-01-01T06:00:00Z")'], { start: T6, end: T6 }],
    [['datetime("2024-01-01T00:00:00Z":"2024-01-01T06:00:00Z")'], { start: T0, end: T6 }],
    [['datetime(*:"2024-01-01T06:00:00Z")'], { start: undefined, end: T6 }],
    [['datetime("2024-01-01T00:00:00Z":*)'], { start: T0, end: undefined }],
    [['datetime(*:*)'], { start: undefined, end: undefined }],
  ] as [string[], object | undefined][])('%j', (values, interval) => {
    expect(parseSubset(values)).toEqual({ ok: true, value: interval });
  });

  test.each([
    [['Lat(10:20)'], /unknown axis "Lat"; the one axis here is datetime/],
    [['datetime("2024-01-01T06:00:00Z"),Lon(1:2)'], /unknown axis "Lon"/],
    [['datetime("2024-01-01T06:00:00Z")', 'datetime("2024-01-01T00:00:00Z")'], /subset twice/],
    [['datetime(2024)'], /a quoted RFC 3339 date-time/],
    [['datetime(*)'], /a point cannot be \*/],
    [['datetime("2024-01-01T06:00:00Z":"2024-01-01T00:00:00Z")'], /low is after high/],
    [['datetime'], /expected axis\(point\) or axis\(low:high\)/],
    [['datetime("2024-01-01T06:00:00Z"'], /expected axis\(point\)/],
  ] as [string[], RegExp][])('%j is refused', (values, message) => {
    const r = parseSubset(values);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.message).toMatch(message);
  });
});

test('intersectIntervals, holds, meets', () => {
  expect(intersectIntervals(undefined, undefined)).toBeUndefined();
  expect(intersectIntervals({ start: T0 }, undefined)).toEqual({ start: T0 });
  expect(intersectIntervals({ start: T0 }, { end: T6 })).toEqual({ start: T0, end: T6 });
  expect(intersectIntervals({ start: T0, end: T0 }, { start: T6, end: T6 })).toBe('empty');
  expect(holds({ start: T0, end: T6 }, T0)).toBe(true);
  expect(holds({ start: T0, end: T6 }, T6)).toBe(true);
  expect(holds({ start: T0, end: T6 }, T6 + 1)).toBe(false);
  expect(holds({}, T6)).toBe(true);
  expect(meets({ start: T6 }, T0, T6)).toBe(true);
  expect(meets({ start: T6 + 1 }, T0, T6)).toBe(false);
  expect(meets({ end: T0 - 1 }, T0, T6)).toBe(false);
});
