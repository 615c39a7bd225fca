// Instants and the temporal selection of OGC API - Tiles' DateTime class (OGC 20-057 §13, importing the `datetime`
// and `subset` modules of OGC API - Common Part 2). Pure: parameter text in, an interval or the reason it is not one
// out; which status a reason gets is http's concern.
//
//   datetime = date-time / interval, interval = [date-time / ".." / ""] "/" [date-time / ".." / ""] (at least one end)
//   subset   = axisName(point) / axisName(low:high), point = "text" / number, low and high = point / *
//
// `date-time` is RFC 3339 §5.6 (a full date and time with `Z` or an offset). The only axis this API subsets is
// `datetime` (/req/datetime/axis): a tile is already cut in space by its tile matrix, row and column.

/** An RFC 3339 date-time: date, `T`, time with optional fraction, `Z` or ±hh:mm (letters in either case). */
const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(\.\d+)?(?:([Zz])|([+-])(\d{2}):(\d{2}))$/;

/** The instant (milliseconds since the epoch) an RFC 3339 date-time names; undefined when it is not one. */
export function parseInstant(text: string): number | undefined {
  const m = DATE_TIME.exec(text);
  if (!m) return undefined;
  const [year, month, day, hour, minute, second] = m.slice(1, 7).map(Number);
  const offsetHours = m[9] ? Number(m[10]) : 0;
  const offsetMinutes = m[9] ? Number(m[11]) : 0;
  // Leap seconds (60) are allowed by RFC 3339; Date.UTC rolls them into the next minute.
  if (month < 1 || month > 12 || day < 1 || hour > 23 || minute > 59 || second > 60 || offsetHours > 23 || offsetMinutes > 59) return undefined;
  if (day > new Date(Date.UTC(year, month, 0)).getUTCDate()) return undefined;
  const fraction = m[7] ? Math.floor(Number(`0${m[7]}`) * 1000) : 0;
  const local = Date.UTC(year, month - 1, day, hour, minute, second, fraction);
  const sign = m[9] === '-' ? -1 : 1;
  const instant = local - sign * (offsetHours * 60 + offsetMinutes) * 60_000;
  return Number.isFinite(instant) ? instant : undefined;
}

/** An instant as ISO 8601 / RFC 3339 in UTC with `Z`, to the second (milliseconds only when there are some). */
export function formatInstant(instant: number): string {
  const iso = new Date(instant).toISOString();
  return iso.endsWith('.000Z') ? `${iso.slice(0, -5)}Z` : iso;
}

/** A closed interval of instants; an absent end is open. A single instant has start = end. */
export interface TimeInterval {
  start?: number;
  end?: number;
}

export type Parsed<T> = { ok: true; value: T } | { ok: false; message: string };
const ok = <T>(value: T): Parsed<T> => ({ ok: true, value });
const fail = (message: string): { ok: false; message: string } => ({ ok: false, message });

/** Quoted back in a message: at most 80 characters of what the client sent. */
const quote = (value: string): string => JSON.stringify(value.length > 80 ? `${value.slice(0, 80)}…` : value);

/** An end of a `datetime` interval: a date-time, or open (`..` or empty). */
function intervalEnd(text: string, whole: string): Parsed<number | undefined> {
  if (text === '' || text === '..') return ok(undefined);
  const instant = parseInstant(text);
  return instant === undefined ? fail(`Invalid datetime ${quote(whole)}: ${quote(text)} is not an RFC 3339 date-time (e.g. 2024-01-01T06:00:00Z)`) : ok(instant);
}

/** Reads the `datetime` parameter: one instant, or an interval with at least one end. */
export function parseDatetime(text: string): Parsed<TimeInterval> {
  const parts = text.split('/');
  if (parts.length === 1) {
    const instant = parseInstant(text);
    return instant === undefined ? fail(`Invalid datetime ${quote(text)}: expected an RFC 3339 date-time (e.g. 2024-01-01T06:00:00Z) or an interval start/end`) : ok({ start: instant, end: instant });
  }
  if (parts.length !== 2) return fail(`Invalid datetime ${quote(text)}: an interval has one "/"`);
  const start = intervalEnd(parts[0], text);
  if (!start.ok) return start;
  const end = intervalEnd(parts[1], text);
  if (!end.ok) return end;
  if (start.value === undefined && end.value === undefined) return fail(`Invalid datetime ${quote(text)}: an interval needs a start or an end`);
  if (start.value !== undefined && end.value !== undefined && start.value > end.value) return fail(`Invalid datetime ${quote(text)}: the start is after the end`);
  return ok({ start: start.value, end: end.value });
}

/** The specs of subset parameters, split at the commas outside quotes and parentheses: `a(1:2),b("x,y")`. */
function subsetSpecs(values: readonly string[]): string[] {
  const specs: string[] = [];
  for (const value of values) {
    let depth = 0;
    let quoted = false;
    let from = 0;
    for (let i = 0; i < value.length; i++) {
      const c = value[i];
      if (c === '"') quoted = !quoted;
      else if (!quoted && c === '(') depth++;
      else if (!quoted && c === ')') depth--;
      else if (!quoted && depth === 0 && c === ',') {
        specs.push(value.slice(from, i));
        from = i + 1;
      }
    }
    specs.push(value.slice(from));
  }
  return specs;
}

/** A low or high of a datetime subset: `*` (open) or a quoted date-time. */
function subsetBound(text: string, spec: string): Parsed<number | undefined> {
  if (text === '*') return ok(undefined);
  const quoted = /^"(.*)"$/.exec(text);
  const instant = quoted ? parseInstant(quoted[1]) : undefined;
  return instant === undefined ? fail(`Invalid subset ${quote(spec)}: a datetime is a quoted RFC 3339 date-time, e.g. datetime("2024-01-01T06:00:00Z")`) : ok(instant);
}

/** Splits `low:high` at the colon outside quotes; one part for a point. */
function splitInterval(inner: string): string[] {
  let quoted = false;
  for (let i = 0; i < inner.length; i++) {
    if (inner[i] === '"') quoted = !quoted;
    else if (!quoted && inner[i] === ':') return [inner.slice(0, i), inner.slice(i + 1)];
  }
  return [inner];
}

/**
 * Reads the `subset` parameters (repeated, or comma-separated): undefined when there are none, else the datetime
 * interval they ask for. Another axis than `datetime`, or `datetime` twice, is an error.
 */
export function parseSubset(values: readonly string[]): Parsed<TimeInterval | undefined> {
  let interval: TimeInterval | undefined;
  for (const spec of subsetSpecs(values.filter((v) => v !== ''))) {
    const m = /^([^()]*)\((.*)\)$/.exec(spec);
    if (!m) return fail(`Invalid subset ${quote(spec)}: expected axis(point) or axis(low:high)`);
    if (m[1] !== 'datetime') return fail(`Invalid subset ${quote(spec)}: unknown axis ${quote(m[1])}; the one axis here is datetime`);
    if (interval) return fail(`Invalid subset ${quote(spec)}: the datetime axis is subset twice`);
    const parts = splitInterval(m[2]);
    if (parts.length === 1) {
      const point = subsetBound(parts[0], spec);
      if (!point.ok) return point;
      if (point.value === undefined) return fail(`Invalid subset ${quote(spec)}: a point cannot be *`);
      interval = { start: point.value, end: point.value };
      continue;
    }
    const low = subsetBound(parts[0], spec);
    if (!low.ok) return low;
    const high = subsetBound(parts[1], spec);
    if (!high.ok) return high;
    if (low.value !== undefined && high.value !== undefined && low.value > high.value) return fail(`Invalid subset ${quote(spec)}: low is after high`);
    interval = { start: low.value, end: high.value };
  }
  return ok(interval);
}

/** The interval both ask for: undefined when neither asks; `empty` when they do not meet. */
export function intersectIntervals(a: TimeInterval | undefined, b: TimeInterval | undefined): TimeInterval | 'empty' | undefined {
  if (!a || !b) return a ?? b;
  const start = a.start === undefined ? b.start : b.start === undefined ? a.start : Math.max(a.start, b.start);
  const end = a.end === undefined ? b.end : b.end === undefined ? a.end : Math.min(a.end, b.end);
  return start !== undefined && end !== undefined && start > end ? 'empty' : { start, end };
}

/** Whether an interval holds an instant (its ends included). */
export function holds(interval: TimeInterval, instant: number): boolean {
  return (interval.start === undefined || instant >= interval.start) && (interval.end === undefined || instant <= interval.end);
}

/** Whether two intervals share an instant (a collection's temporal extent and what a request asks for). */
export function meets(interval: TimeInterval, start: number, end: number): boolean {
  return (interval.start === undefined || end >= interval.start) && (interval.end === undefined || start <= interval.end);
}
