import { z } from 'zod';
import { MAX_ZOOM, tileRange, type TileRange } from '../geo/mercator';
import type { Pyramid, TileFormat } from '../store/types';
import { badRequest } from './reply';

// Parameter schemas of the route table (route-table.ts) and the checks that need a store. Every path and query
// parameter is validated by its route's schema in the dispatcher, before a handler runs; a failure is a 400 whose
// message names the parameter. `.meta()` gives the OpenAPI definition what the raw-text schema cannot say.

const INTEGER = /^\d{1,10}$/;

/**
 * The tile routes skip zod for input it accepts: each parameter builder below registers a plain function
 * that gives what its schema gives for valid text and FAIL otherwise, and `fastObject` marks an object schema
 * (with its refinement) as fully described by them. Anything FAIL goes through zod, which writes the 400 message,
 * so messages never differ; test/unit/fast-params.test.ts checks that both agree over many inputs. (zod costs
 * ~4 µs a tile request, a tenth of the bare server's whole time per request.)
 */
export const FAIL: unique symbol = Symbol('invalid');
export type FastParser = (raw: unknown) => unknown;
const fastParsers = new WeakMap<z.ZodType, FastParser>();
const fastObjects = new WeakMap<z.ZodType, (value: Record<string, unknown>) => boolean>();

function withFast<T extends z.ZodType>(schema: T, parse: FastParser): T {
  fastParsers.set(schema, parse);
  return schema;
}

/** Marks an object schema whose every field has a fast parser; `check` repeats its refinement (true: valid). */
export function fastObject<T extends z.ZodObject<Record<string, z.ZodType>>>(schema: T, check: (value: Record<string, unknown>) => boolean = () => true): T {
  fastObjects.set(schema, check);
  return schema;
}

/**
 * The fast parser of an object schema marked by `fastObject`: the parsed object, or FAIL when any field or the
 * refinement fails (zod then says why). Undefined for other schemas.
 */
export function compileFastParser(schema: z.ZodObject<Record<string, z.ZodType>>): ((raw: Record<string, unknown>) => Record<string, unknown> | typeof FAIL) | undefined {
  const check = fastObjects.get(schema);
  if (!check) return undefined;
  const fields: [string, FastParser][] = [];
  for (const [name, field] of Object.entries(schema.shape)) {
    const parse = fastParsers.get(field);
    if (!parse) return undefined;
    fields.push([name, parse]);
  }
  if (fields.every(([name]) => IDENTIFIER.test(name))) return literalParser(fields, check);
  return (raw) => {
    const out: Record<string, unknown> = {};
    for (const [name, parse] of fields) {
      const v = parse(raw[name]);
      if (v === FAIL) return FAIL;
      out[name] = v;
    }
    return check(out) ? out : FAIL;
  };
}

/** A property name that can be written as is in generated code (and is never `__proto__`). */
export const IDENTIFIER = /^[A-Za-z][A-Za-z0-9]*$/;

/**
 * The same parser as the generic loop of compileFastParser, generated for one schema's fields: reads `raw.name`
 * and returns an object literal, so every object it makes has one shape and every property access is a plain
 * named one. The loop's `out[name] = v` and `raw[name]` were megamorphic keyed accesses, ~0.2 µs a tile request in
 * the serve profile. The generated code holds nothing but the field names, which are identifiers (IDENTIFIER).
 */
function literalParser(
  fields: readonly [string, FastParser][],
  check: (value: Record<string, unknown>) => boolean,
): (raw: Record<string, unknown>) => Record<string, unknown> | typeof FAIL {
  const reads = fields.map(([name], i) => `const v${i} = parse[${i}](raw.${name}); if (v${i} === FAIL) return FAIL;`);
  const literal = fields.map(([name], i) => `${name}: v${i}`).join(', ');
  const source = `return (raw) => {\n${reads.join('\n')}\nconst out = { ${literal} };\nreturn check(out) ? out : FAIL;\n};`;
  // eslint-disable-next-line @typescript-eslint/no-implied-eval -- generated from identifiers only (see above)
  const make = new Function('parse', 'check', 'FAIL', source) as (
    parse: readonly FastParser[],
    check: (value: Record<string, unknown>) => boolean,
    fail: typeof FAIL,
  ) => (raw: Record<string, unknown>) => Record<string, unknown> | typeof FAIL;
  return make(fields.map(([, parse]) => parse), check, FAIL);
}

export interface TileAddress {
  z: number;
  x: number;
  y: number;
}

/** A path segment naming something (an id); non-empty by the pattern. */
export const id = (description: string) => withFast(z.string().describe(description), (v) => (typeof v === 'string' ? v : FAIL));

/** An optional text parameter with no rule of its own (the handler decides). */
export const optionalText = <T extends z.ZodOptional<z.ZodString>>(schema: T): T => withFast(schema, (v) => (v === undefined || typeof v === 'string' ? v : FAIL));

/** A non-negative integer written in decimal digits (no sign, exponent or fraction). */
export const nonNegativeInteger = (name: string, description: string) =>
  withFast(
    z
      .string({ error: `Invalid ${name}: expected a non-negative integer` })
      .regex(INTEGER, { error: `Invalid ${name}: expected a non-negative integer` })
      .transform(Number)
      .meta({ type: 'integer', minimum: 0, description }),
    (v) => (typeof v === 'string' && INTEGER.test(v) ? Number(v) : FAIL),
  );

/** 400 when the address does not exist in its zoom's matrix (or the zoom is deeper than any store). */
export function checkTileAddress({ z: zz, x, y }: TileAddress): string | undefined {
  if (zz > MAX_ZOOM) return `Out of bounds: zoom ${zz}`;
  // A shift, not `2 ** zz` (a call to pow on every tile request); exact up to zoom 30 (MAX_ZOOM), and 2 ** zz beyond.
  const size = zz <= 30 ? 1 << zz : 2 ** zz;
  if (x >= size || y >= size) return `Out of bounds: tile ${zz}/${x}/${y} does not exist`;
  return undefined;
}

/** z/x/y parameters (named as the route names them) and the check that the tile exists in its matrix. */
export function tileAddress<Z extends string, X extends string, Y extends string>(names: { z: Z; x: X; y: Y }) {
  return {
    shape: {
      [names.z]: nonNegativeInteger(names.z, 'zoom level'),
      [names.x]: nonNegativeInteger(names.x, 'tile column'),
      [names.y]: nonNegativeInteger(names.y, 'tile row'),
    } as { [K in Z | X | Y]: ReturnType<typeof nonNegativeInteger> },
    /** The same check for `fastObject`: true when the address exists. */
    valid(value: Record<string, unknown>): boolean {
      return checkTileAddress({ z: value[names.z] as number, x: value[names.x] as number, y: value[names.y] as number }) === undefined;
    },
    /** For `.superRefine` of the route's object schema. */
    refine(value: Record<Z | X | Y, number>, ctx: z.RefinementCtx): void {
      const message = checkTileAddress({ z: value[names.z], x: value[names.x], y: value[names.y] });
      if (message) ctx.addIssue({ code: 'custom', message, path: [names.z] });
    },
  };
}

/** Extension of a requested tile → format; `jpeg` and `mvt` are accepted spellings, any letter case. */
export function formatFromExtension(ext: string): TileFormat | undefined {
  const e = ext.toLowerCase();
  if (e === 'jpeg' || e === 'jpg') return 'jpg';
  if (e === 'mvt' || e === 'pbf') return 'pbf';
  if (e === 'png' || e === 'webp' || e === 'basis') return e;
  return undefined;
}

/** A tile format named by its extension, one of `allowed` (spellings of formatFromExtension). */
export function tileFormat<F extends TileFormat>(allowed: readonly F[], hint: string, description: string) {
  const spellings = allowed.flatMap((f) => (f === 'jpg' ? ['jpg', 'jpeg'] : f === 'pbf' ? ['pbf', 'mvt'] : [f]));
  const fast: FastParser = (v) => {
    if (typeof v !== 'string') return FAIL;
    const f = formatFromExtension(v);
    return f && (allowed as readonly TileFormat[]).includes(f) ? f : FAIL;
  };
  const schema = z
    .string()
    .transform((s, ctx): F => {
      const f = formatFromExtension(s);
      if (f && (allowed as readonly TileFormat[]).includes(f)) return f as F;
      ctx.addIssue({ code: 'custom', message: `Invalid format: ${s} (${hint})`, input: s });
      return z.NEVER;
    })
    .meta({ type: 'string', enum: spellings, description });
  return withFast(schema, fast);
}

/** The `@2x` suffix (HiDPI), the only scale there is. */
export const scale2x = (hint: string) =>
  withFast(
    z
      .literal('@2x', { error: (iss) => `Invalid scale: ${String(iss.input)} (${hint})` })
      .optional()
      .describe('`@2x`: a HiDPI image of twice the pixels'),
    (v) => (v === undefined || v === '@2x' ? v : FAIL),
  );

/** An optional literal segment (`256` of the 256 px pyramid). */
export const optionalLiteral = <L extends string>(value: L, description: string) =>
  withFast(z.literal(value).optional().describe(description), (v) => (v === undefined || v === value ? v : FAIL));

/** A strict boolean query flag: absent, true or false (1/0 accepted). */
export const flag = (name: string, description: string) =>
  z
    .string()
    .optional()
    .transform((v, ctx) => {
      const parsed = parseBoolean(v ?? null);
      if (parsed === null) ctx.addIssue({ code: 'custom', message: `Invalid ${name}: expected true or false`, input: v });
      return parsed ?? undefined;
    })
    .meta({ type: 'boolean', description });

function parseBoolean(value: string | null): boolean | undefined | null {
  if (value === null || value === '') return undefined;
  if (value === 'true' || value === '1') return true;
  if (value === 'false' || value === '0') return false;
  return null;
}

// Tile ranges per pyramid and zoom: computing them takes trigonometry, and a pyramid object lives as long as its store.
const ranges = new WeakMap<Pyramid, TileRange[]>();
function rangeOf(p: Pyramid, z: number): TileRange {
  let perZoom = ranges.get(p);
  if (!perZoom) ranges.set(p, (perZoom = []));
  return (perZoom[z] ??= tileRange(p.bounds, z));
}

/** 400 when the tile lies outside the pyramid's zoom range or bounds (a tile inside them may still be absent: 204). */
export function assertInPyramid(p: Pyramid, { z, x, y }: TileAddress): void {
  if (z < p.minzoom || z > p.maxzoom) throw badRequest(`Out of bounds: zoom ${z} is outside ${p.minzoom}-${p.maxzoom}`);
  const r = rangeOf(p, z);
  if (x < r.minX || x > r.maxX || y < r.minY || y > r.maxY) throw badRequest(`Out of bounds: tile ${z}/${x}/${y}`);
}
