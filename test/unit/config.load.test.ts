import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError, keysFromEnv, loadConfig, parseConfig } from '../../src/config/load';

const dir = mkdtempSync(join(tmpdir(), 'tm-config-'));
const file = (name: string, text: string): string => {
  const p = join(dir, name);
  writeFileSync(p, text);
  return p;
};

describe('configuration', () => {
  test('the shipped default.yaml is valid and serves ../mirror with the demo key', () => {
    const c = loadConfig(join(__dirname, '../../config/default.yaml'), {});
    expect(c.server).toMatchObject({ host: '127.0.0.1', port: 8080 });
    expect(c.data).toBe(join(__dirname, '../../mirror'));
    expect(c.keys.map((k) => k.key)).toEqual(['demo']);
  });

  test('an empty file gives the defaults', () => {
    const c = loadConfig(file('empty.yaml', ''), {});
    expect(c.server.port).toBe(8080);
    expect(c.keys).toEqual([]);
    expect(c.data).toBe(join(dir, 'mirror'));
  });

  test('JSON is read too', () => {
    const c = loadConfig(file('c.json', JSON.stringify({ server: { port: 9000 }, keys: [{ key: 'abcd1234', plan: 'paid' }] })), {});
    expect(c.server.port).toBe(9000);
    expect(c.keys[0]).toMatchObject({ key: 'abcd1234', plan: 'paid', allowedOrigins: [] });
  });

  test.each([
    ['server:\n  port: eighty\n', 'server.port'],
    ['keys:\n  - key: abcdef\n    plan: gold\n', 'keys[0].plan'],
    ['keys:\n  - key: abcdef\n    allowedOrigins: ["not a host!"]\n', 'keys[0].allowedOrigins[0]'],
    ['prot: 80\n', 'prot'],
    ['server:\n  publicUrl: ftp://x\n', 'server.publicUrl'],
  ])('a bad field is named: %j', (text, field) => {
    expect(() => loadConfig(file('bad.yaml', text), {})).toThrow(ConfigError);
    try {
      loadConfig(file('bad.yaml', text), {});
    } catch (e) {
      expect((e as Error).message).toContain(field);
    }
  });

  test('invalid YAML and a missing file are clear errors', () => {
    expect(() => loadConfig(file('broken.yaml', 'keys: [\n'), {})).toThrow(/not valid YAML/);
    expect(() => loadConfig(join(dir, 'nope.yaml'), {})).toThrow(/cannot read/);
  });

  test('keys also come from an environment variable', () => {
    const c = parseConfig({ keys: [{ key: 'filekey1' }] }, 't', dir, { TILEMIRROR_KEYS: 'envkey01:paid, envkey02' });
    expect(c.keys.map((k) => [k.key, k.plan])).toEqual([
      ['filekey1', 'free'],
      ['envkey01', 'paid'],
      ['envkey02', 'free'],
    ]);
    expect(() => keysFromEnv('ab', 'X')).toThrow(/X entry 1/);
    expect(() => parseConfig({ keys: [{ key: 'same1234' }] }, 't', dir, { TILEMIRROR_KEYS: 'same1234' })).toThrow(/duplicate/);
  });
});

test('a job zoom range has the same upper bound as the command line (geo MAX_ZOOM, 30)', () => {
  const job = (zoom: string) => ({ mirror: { upstream: 'http://127.0.0.1:9', jobs: [{ name: 'j', resources: ['tiles/x'], zoom }] } });
  expect(parseConfig(job('0-30'), 'test', process.cwd(), {}).mirror.jobs[0].zoom).toEqual([0, 30]);
  expect(() => parseConfig(job('0-31'), 'test', process.cwd(), {})).toThrow(/need 0 <= MIN <= MAX <= 30/);
});
