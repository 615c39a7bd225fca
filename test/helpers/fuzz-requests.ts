// Seeded generation of hostile requests over every endpoint. The endpoints come from the route table itself,
// through the OpenAPI definition's expanded paths (every optional part present and absent), so a new route is
// fuzzed without touching the test; the static asset mounts of the Express app are added by hand (they are not
// routes of the table). Each parameter gets, at random, a valid value (what the sample serves, the schema's enum
// and examples) or a hostile one: traversal, encoded NUL, backslashes, overlong text, bad UTF-8 (percent-encoded
// and raw bytes, overlong encodings, lone surrogates), numbers out of range, wrong formats, scales, sizes, ranges.

import { routes } from '../../src/http/routes';
import { buildOpenApi } from '../../src/ogc/openapi';

/** mulberry32: a tiny seeded PRNG, so the same requests go out on every run with the same seed. */
export function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export interface Endpoint {
  /** OpenAPI path template, `/maps/{mapId}/256/{z}/{x}/{y}@2x.{format}`. */
  path: string;
  pathParams: ParamInfo[];
  queryParams: ParamInfo[];
}

export interface ParamInfo {
  name: string;
  /** The parameter's JSON Schema as the definition states it. */
  schema: { type?: string; enum?: unknown[]; examples?: unknown[]; default?: unknown; minimum?: number; items?: unknown };
}

interface OpenApiParameter extends ParamInfo {
  in: 'path' | 'query';
}

/** Every concrete path of the served API (OpenAPI definition of the route table) plus the static asset mounts. */
export function endpoints(): Endpoint[] {
  const doc = buildOpenApi(routes, 'http://127.0.0.1', { title: 'fuzz', version: '0' }) as { paths: Record<string, Record<'get' | 'post', { parameters?: OpenApiParameter[] } | undefined>> };
  const out: Endpoint[] = Object.entries(doc.paths).map(([path, item]) => {
    const params = (item.get ?? item.post)?.parameters ?? [];
    return { path, pathParams: params.filter((p) => p.in === 'path'), queryParams: params.filter((p) => p.in === 'query') };
  });
  const file: ParamInfo = { name: 'assetFile', schema: { type: 'string', examples: ['maplibre-gl.js', 'maplibre-gl.css', 'swagger-ui.css', 'maplibre-gl-dev.mjs.map'] } };
  out.push({ path: '/assets/maplibre-gl/{assetFile}', pathParams: [file], queryParams: [] });
  out.push({ path: '/assets/swagger-ui/{assetFile}', pathParams: [file], queryParams: [] });
  return out;
}

/** Values a hostile client puts in a path segment or query value: already in wire form (percent-encoded or raw). */
const TRAVERSAL = [
  '..', '..%2f', '..%2F..%2F..%2Fetc%2Fpasswd', '%2e%2e', '%2e%2e%2f%2e%2e%2fetc%2fpasswd', '.%2e', '%2e.', '..%5c..%5cwindows',
  '..\\..\\etc\\passwd', '%5c..%5c', '%00', 'a%00', '%00..%2f', '..%00.png', 'sample%00', '%252e%252e%252f', '..%c0%af', '%c0%ae%c0%ae%2f',
  '....//....//', '..;', '%2e%2e%3b', '/etc/passwd', '%2fetc%2fpasswd', 'C:%5cwindows', 'file:%2f%2f%2fetc%2fpasswd',
];
const BAD_UTF8 = ['%ff', '%fe%ff', '%c0%ae', '%c0%af', '%e0%80%af', '%f0%80%80%af', '%ed%a0%80', '%ed%bf%bf', '%c3', '%e2%82', '%f4%90%80%80', '%80', '%C0%80', '%E0%A4%A'];
/** Raw (not percent-encoded) bytes in the request line: invalid UTF-8 sequences, overlong forms. Latin-1 strings. */
const RAW_BYTES = ['\xff', '\xc0\xae\xc0\xae', '\xe0\x80\xaf', '\xed\xa0\x80', '\xc3', '\x80\x80', '\xf8\x88\x80\x80\x80'];
const NUMBERS = [
  '-1', '-0', '1.5', '1e9', '1e308', '-1e308', '2147483648', '4294967296', '9007199254740993', '99999999999999999999999999', 'NaN', 'Infinity',
  '-Infinity', '0x10', '0b1', '0o7', '+1', '%201', '1%20', '00000000000000000001', '1_0', '١', '%D9%A1', '31', '32', '25', '1024', '65536', '',
];
const FORMATS = ['PNG', 'png%00', 'png.png', 'gif', 'svg', 'tiff', 'json%00', 'pbf%2f..', 'jpg%20', 'basis', 'mvt', 'webp', 'jpeg', '%70ng'];
const SCALES = ['@0x', '@1x', '@3x', '@-1x', '@2X', '@99999999999999999999x', '@2x@2x', '@', '@0.5x'];
const SIZES = ['0x0', '1x1', '2049x1', '1x2049', '2048x2048', '99999x99999', '1x', 'x1', '-1x-1', '1e3x1e3', '256x256x256', '0256x0256', '512X256'];
const AREAS = ['0,0,0', '180,90,22', '181,0,1', '0,91,1', '-180,-90,0', '0,0,-1', '0,0,99', '0,0,NaN', '5,45,11,48', '11,48,5,45', '0,0,0,0', '1,2,3', 'auto', 'AUTO', '1e308,0,1', ',,', '-200,-100,200,100'];
const RANGES = ['0-255', '255-0', '256-511', '65280-65535', '65536-65791', '0-99999', '-1-254', '0-256', '1-256', 'a-b', '0--255', '00000-00255', '0-255-511'];
const FLAGS = ['true', 'false', '1', '0', 'yes', 'TRUE', '%00', '', 'null', 'undefined'];
/** Elevation positions: limits (±180, ±85), too many, malformed numbers, empty and extra parts. */
const LOCATIONS = [
  '8.2,46.8', '180,0', '-180,0', '179.9999,85', '0,85.0000001', '0,-85', '0,-90', '1e999,0', 'NaN,0', 'Infinity,-Infinity', '0x1,0', '8,46;',
  ';', ',', '8,46,1', '8;46', '-0,-0', '.5,.5', '1e-400,5', '%2C%3B', Array(51).fill('8,46').join(';'), Array(50).fill('-120,40').join(';'), '8.2,46.8;abc,1',
];
// Geocoding: more than 50 batch items, empty items, positions out of range, malformed ids and lists.
const GEOCODING = [`${'a;'.repeat(60)}a`, ';;', '-999,999', '181,0', 'country.', 'place.99999999999999999999', 'en,en', ',,,,', '1,2,3', 'nan,nan'];
const MISC = [...GEOCODING, 'sample', '{z}', '%3Cscript%3E', "'", '%22', ';', ',', '|', 'enc:_p~iF~ps|U', 'icon:http://127.0.0.1:1/y.png', 'fill:red|0,0', 'stroke:%23zzz|width:1e9|0,0|1,1', 'encodedpath',
  // Coordinates: queries with filters, coordinate pairs (non-finite, too many), codes and operation lists
  'kind:CRS-PROJCRS%20wgs', 'kind:NOPE', 'code:abc', 'deprecated:2', 'trans:15965', 'EPSG:4326', 'NaN,1', '1e999,0', '17,50,1,2', '17,50;',
  Array.from({ length: 51 }, () => '1,2').join(';'), '999999', '15965|1676', '5514|', '9807'];

export type Pick = <T>(list: readonly T[]) => T;

/** An overlong value: long enough for one route's limits, or over the 8 KiB URI limit altogether. */
function overlong(pick: Pick, random: () => number): string {
  const unit = pick(['a', '%2e%2e%2f', '9', '%ff', 'x,']);
  const length = pick([300, 1000, 4000, 8200, 20_000]);
  return unit.repeat(Math.ceil(length / unit.length)).slice(0, length - Math.floor(random() * 3));
}

/** A valid-looking value for a parameter: the sample's ids by name, the schema's enum, examples and default. */
function validValue(p: ParamInfo, ids: Record<string, readonly string[]>, pick: Pick, random: () => number): string {
  const known = ids[p.name];
  if (known?.length) return pick(known);
  const offered = [...(p.schema.enum ?? []), ...(p.schema.examples ?? []), ...(p.schema.default !== undefined ? [p.schema.default] : [])].map(String);
  if (offered.length) return encodeURIComponent(pick(offered));
  if (p.schema.type === 'integer') return String(Math.floor(random() * 4));
  if (p.schema.type === 'number') return String(Math.round(random() * 100) / 100);
  if (p.schema.type === 'boolean') return pick(['true', 'false']);
  return 'sample';
}

/** A hostile value for a parameter: the family that fits its kind most of the time, any family otherwise. */
function hostileValue(p: ParamInfo, pick: Pick, random: () => number, raw: boolean): string {
  const kind = p.schema.type === 'integer' || p.schema.type === 'number' ? NUMBERS
    : /format|ext/i.test(p.name) ? FORMATS
    : /scale/i.test(p.name) ? SCALES
    : /size/i.test(p.name) ? SIZES
    : /area/i.test(p.name) ? AREAS
    : /locations/i.test(p.name) ? LOCATIONS
    : /range/i.test(p.name) ? RANGES
    : p.schema.type === 'boolean' ? FLAGS
    : TRAVERSAL;
  const r = random();
  if (r < 0.45) return pick(kind);
  if (r < 0.65) return pick(TRAVERSAL);
  if (r < 0.75) return pick(BAD_UTF8) + pick(['', 'sample', '.png']);
  if (r < 0.8 && raw) return pick(RAW_BYTES);
  if (r < 0.86) return overlong(pick, random);
  return pick([...NUMBERS, ...FORMATS, ...SCALES, ...SIZES, ...AREAS, ...LOCATIONS, ...RANGES, ...FLAGS, ...MISC]);
}

export interface Generated {
  /** The request target as sent (latin-1 string: raw bytes are single characters). */
  target: string;
  /** Extra header lines. */
  headers: string[];
  /** The route template it came from. */
  endpoint: string;
  /**
   * May make the server close the connection (parser-level refusal: raw bytes in the target, a bad header line, a
   * header over the limit). Node then drops the answers pending for earlier requests on that socket: sent alone.
   */
  closes: boolean;
  /** A static map: rendering costs, so these go one connection, few at a time. */
  heavy: boolean;
}

/** Hostile header lines; sizes near and over the server's 64 KiB header limit now and then. */
function hostileHeaders(pick: Pick, random: () => number): { headers: string[]; closes: boolean } {
  const headers: string[] = [];
  let closes = false;
  const r = random();
  if (r < 0.3) headers.push(pick(['Accept-Encoding: gzip', 'Accept-Encoding: identity', 'Accept-Encoding: br;q=1, gzip;q=0', 'Accept-Encoding: *;q=0', 'Accept-Encoding: \xff\xfe']));
  if (random() < 0.15) headers.push(pick(['If-None-Match: *', 'If-None-Match: "x", W/"y"', `If-None-Match: "${'a'.repeat(4000)}"`, 'If-Modified-Since: yesterday']));
  if (random() < 0.15) headers.push(pick(['Origin: null', 'Origin: http://evil.example', 'Referer: \xc0\xae', 'Origin: http://[::1', 'Referer: ' + '%ff'.repeat(500)]));
  if (random() < 0.1) headers.push(pick(['X-Forwarded-Host: evil.example', 'X-Forwarded-Proto: gopher', 'X-Forwarded-For: 1.2.3.4, ::1, nonsense', 'Forwarded: for=";host=evil']));
  if (random() < 0.1) headers.push(pick(['Range: bytes=0-0', 'Range: bytes=-1', 'Range: bytes=99999999999-', 'Range: bytes=5-1,1-5,0-', 'Range: lines=1-2']));
  if (random() < 0.1) headers.push(pick(['User-Agent: \xff\xfe\x80', 'User-Agent: ' + 'QGIS'.repeat(2000), 'User-Agent:', 'Accept: */*;q=\xff']));
  if (random() < 0.03) {
    // Near the 64 KiB limit (accepted) or over it (431 and close).
    const over = random() < 0.5;
    const size = over ? 66 * 1024 + Math.floor(random() * 4096) : 60 * 1024 - Math.floor(random() * 4096);
    headers.push(`X-Fuzz-Pad: ${'p'.repeat(size)}`);
    closes ||= over;
  }
  if (random() < 0.02) {
    headers.push(pick(['X-Nul: a\x00b', 'Bad Header: space in name', 'Content-Length: -1', 'Transfer-Encoding: chunked, identity', 'Content-Length: 1\r\nContent-Length: 2']));
    closes = true;
  }
  return { headers, closes };
}

/** `count` requests, seeded, spread evenly over the endpoints; `ids` names the sample's valid ids by parameter. */
export function generate(seed: number, count: number, ids: Record<string, readonly string[]>): Generated[] {
  const random = rng(seed);
  const pick: Pick = (list) => list[Math.floor(random() * list.length)];
  const all = endpoints();
  const out: Generated[] = [];
  for (let i = 0; i < count; i++) {
    const ep = all[i % all.length];
    const raw = random() < 0.05;
    // Mostly one hostile parameter among valid ones (reaches deep into a handler), sometimes all hostile.
    const allHostile = random() < 0.2;
    const victim = Math.floor(random() * (ep.pathParams.length + ep.queryParams.length + 1));
    let path = ep.path;
    ep.pathParams.forEach((p, j) => {
      const v = allHostile || j === victim ? hostileValue(p, pick, random, raw) : validValue(p, ids, pick, random);
      path = path.replace(`{${p.name}}`, v);
    });
    const query: string[] = [];
    ep.queryParams.forEach((p, j) => {
      const hostile = allHostile || ep.pathParams.length + j === victim;
      if (!hostile && random() < 0.5) return;
      const v = hostile ? hostileValue(p, pick, random, raw) : validValue(p, ids, pick, random);
      query.push(`${p.name}=${v}`);
      if (random() < 0.1) query.push(`${p.name}=${hostileValue(p, pick, random, raw)}`); // repeated
    });
    if (random() < 0.1) query.push(pick(['key=demo', 'key=', 'key=%00', '%6Bey=demo', 'KEY=demo', 'key=demo&key=other', 'unknown=1', '=', '&&', 'a[b]=1', '__proto__=1', 'constructor[prototype]=1']));
    if (random() < 0.03) query.push(overlong(pick, random));
    // The key goes first or last; a few requests have none (403 is fine, 500 is not).
    const key = random() < 0.97 ? ['key=demo'] : [];
    const parts = random() < 0.5 ? [...key, ...query] : [...query, ...key];
    let target = parts.length ? `${path}?${parts.join('&')}` : path;
    if (random() < 0.02) target = pick([`http://127.0.0.1${target}`, `HTTP://evil.example${target}`, `//${target}`, `${target}#frag`, `${target.replace(/\//g, '\\')}`]);
    const h = hostileHeaders(pick, random);
    out.push({ target, headers: h.headers, endpoint: ep.path, closes: h.closes || raw || target.length + h.headers.join('').length > 60 * 1024 || /[^\x21-\x7e]|\\|#/.test(target) || h.headers.some((l) => /[^\x20-\x7e]/.test(l)), heavy: ep.path.includes('/static/') });
  }
  return out;
}
