import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ConfigError, keysFromEnv, loadConfig, parseConfig } from '../../src/config/load';
import { tempDirs } from '../helpers/temp-dirs';

const { tempDir, removeTempDirs } = tempDirs('tm-config-');

const dir = tempDir();
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
    ['server:\n  trustedProxies: ["10.0.0.0/33"]\n', 'server.trustedProxies[0]'],
    ['server:\n  trustedProxies: ["proxy.local"]\n', 'server.trustedProxies[0]'],
    ['server:\n  trustedProxies: ["10.0.0.1/8/1"]\n', 'server.trustedProxies[0]'],
    ['keys:\n  - key: abcdef\n    allowedUserAgent: QGIS/3.34\n', 'keys[0].allowedUserAgent'],
    ['keys:\n  - key: abcdef\n    allowedUserAgent: QGIS Desktop\n', 'keys[0].allowedUserAgent'],
    ['keys:\n  - key: abcdef\n    originMatch: scheme\n', 'keys[0].originMatch'],
  ])('a bad field is named: %j', (text, field) => {
    expect(() => loadConfig(file('bad.yaml', text), {})).toThrow(ConfigError);
    try {
      loadConfig(file('bad.yaml', text), {});
    } catch (e) {
      expect((e as Error).message).toContain(field);
    }
  });

  test('forwarded headers are not trusted unless asked, and then from loopback unless told otherwise', () => {
    const c = parseConfig({}, 't', dir, {});
    expect(c.server.trustProxy).toBe(false);
    expect(c.server.trustedProxies).toEqual(['127.0.0.1', '::1']);
    const d = parseConfig({ server: { port: 1 } }, 't', dir, {});
    expect(d.server).toMatchObject({ trustProxy: false, trustedProxies: ['127.0.0.1', '::1'] });
    const t = parseConfig({ server: { trustProxy: true, trustedProxies: ['10.0.0.0/8', 'fd00::/8', '192.168.1.7'] } }, 't', dir, {});
    expect(t.server.trustedProxies).toEqual(['10.0.0.0/8', 'fd00::/8', '192.168.1.7']);
  });

  test('key rules are exact unless loosened per key', () => {
    const c = parseConfig({ keys: [{ key: 'abcd1234', allowedUserAgent: 'QGIS' }, { key: 'efgh5678', allowedUserAgent: 'QGIS Desktop', userAgentMatch: 'substring', originMatch: 'host' }] }, 't', dir, {});
    expect(c.keys[0]).toMatchObject({ originMatch: 'exact', userAgentMatch: 'product' });
    expect(c.keys[1]).toMatchObject({ originMatch: 'host', userAgentMatch: 'substring', allowedUserAgent: 'QGIS Desktop' });
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

afterAll(removeTempDirs);
