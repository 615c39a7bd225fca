import pino from 'pino';
import { registerPlainLogger, requestLineWriter } from '../../src/http/request-log';

// The request line written by hand must be the line pino writes for the same call, byte for byte but the time:
// pino itself (an unregistered logger with createLogger's options) is the oracle.

function sink(): { lines: string[]; write(line: string): boolean } {
  const lines: string[] = [];
  return { lines, write: (line: string) => (lines.push(line), true) };
}

const withoutTime = (line: string): string => line.replace(/"time":\d+,/, '"time":0,');

const CASES: [string | undefined, string, number, number | undefined][] = [
  ['GET', '/maps/sample/3/4/2.png?key=***', 200, 0.123],
  ['HEAD', '/tiles/x/tiles.json', 304, 1],
  ['GET', '/a"quote\\back\nline\ttab\u0001ctl', 404, 12.5],
  ['POST', '/geocoding/äöü €/𝄞.json?q=%22', 400, undefined],
  [undefined, '/', 500, 0],
  ['GET', `/${'x'.repeat(5000)}`, 414, 1e-3],
];

describe('request log line', () => {
  test('the direct line equals pino\'s line for the same request', () => {
    const direct = sink();
    const viaPino = sink();
    const fast = pino({ level: 'info', base: undefined }, direct);
    registerPlainLogger(fast, direct);
    const slow = pino({ level: 'info', base: undefined }, viaPino);
    const a = requestLineWriter(fast);
    const b = requestLineWriter(slow);
    for (const [m, u, s, ms] of CASES) {
      a(m, u, s, ms);
      b(m, u, s, ms);
    }
    expect(direct.lines).toHaveLength(CASES.length);
    expect(direct.lines.map(withoutTime)).toEqual(viaPino.lines.map(withoutTime));
    // And each is one JSON object per line holding what was given.
    const parsed = direct.lines.map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(parsed[2]).toMatchObject({ level: 30, url: '/a"quote\\back\nline\ttab\u0001ctl', status: 404, ms: 12.5, msg: 'request' });
    expect(parsed[3]).not.toHaveProperty('ms');
    expect(parsed[4]).not.toHaveProperty('method');
    expect(direct.lines.every((l) => l.endsWith('}\n') && !l.slice(0, -1).includes('\n'))).toBe(true);
  });

  test('the logger\'s level is read per line: nothing below it, and a change at run time holds at once', () => {
    const direct = sink();
    const log = pino({ level: 'warn', base: undefined }, direct);
    registerPlainLogger(log, direct);
    const line = requestLineWriter(log);
    line('GET', '/a', 200, 1);
    expect(direct.lines).toHaveLength(0);
    log.level = 'info';
    line('GET', '/b', 200, 1);
    log.level = 'error';
    line('GET', '/c', 200, 1);
    expect(direct.lines.map((l) => (JSON.parse(l) as { url: string }).url)).toEqual(['/b']);
  });
});
