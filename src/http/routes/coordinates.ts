import { z } from 'zod';
import { ServiceError } from '../../errors';
import type { CoordinatesService } from '../../services/coordinates';
import { flag } from '../params';
import { jsonReply, type Reply } from '../reply';
import type { RequestContext } from '../route-table';

// `/coordinates/search/{query}.json` and `/coordinates/transform/{coordinates}.json`: the schemas check the numbers
// (limit, offset, EPSG codes, ops); the service parses the query grammar and the coordinate pairs and says what
// is wrong with them (QueryError, TransformError: `invalid`, naming the part).

const integerIn = (name: string, min: number, max: number, description: string) =>
  z
    .string()
    .optional()
    .transform((v, ctx) => {
      if (v === undefined || v === '') return undefined;
      const n = /^\d{1,10}$/.test(v) ? Number(v) : NaN;
      if (!(n >= min && n <= max)) ctx.addIssue({ code: 'custom', message: `Invalid ${name}: expected an integer from ${min} to ${max}`, input: v });
      return n;
    })
    .meta({ type: 'integer', minimum: min, maximum: max, description });

const epsgCode = (name: string, description: string) =>
  z
    .string()
    .optional()
    .transform((v, ctx) => {
      if (v === undefined || v === '') return 4326;
      const m = /^(?:EPSG:)?(\d{1,9})$/i.exec(v);
      if (!m) ctx.addIssue({ code: 'custom', message: `Invalid ${name}: expected an EPSG code like 4326`, input: v });
      return m ? Number(m[1]) : 4326;
    })
    .meta({ type: 'integer', description, default: 4326 });

export const coordinatesSearchParams = z.object({
  query: z.string().meta({ description: 'terms plus `kind:`, `code:`, `trans:`, `deprecated:` filters, separated by spaces', examples: ['web mercator', 'kind:CRS-PROJCRS 5514'] }),
  limit: integerIn('limit', 1, 50, 'results per page (default 10)'),
  offset: integerIn('offset', 0, 1_000_000, 'start position in the result list'),
  transformations: flag('transformations', 'include the transformations of each reference system to WGS 84'),
  exports: flag('exports', 'include exports in WKT and PROJ.4 notation'),
});

export const coordinatesTransformParams = z.object({
  coordinates: z.string().meta({ description: '`x,y[,z]` pairs separated by `;`, at most 50; longitude/easting first', examples: ['17,50;17.1,50.1'] }),
  s_srs: epsgCode('s_srs', 'source reference system (EPSG code)'),
  t_srs: epsgCode('t_srs', 'target reference system (EPSG code)'),
  ops: z
    .string()
    .optional()
    .transform((v, ctx) => {
      if (v === undefined || v === '') return undefined;
      const parts = v.split('|');
      const bad = parts.findIndex((p) => !/^(?:EPSG:)?\d{1,9}$/i.test(p));
      if (bad >= 0 || parts.length > 10) {
        ctx.addIssue({ code: 'custom', message: bad >= 0 ? `Invalid ops: operation ${bad + 1} "${parts[bad]}" is not an EPSG code` : 'Invalid ops: at most 10 operations', input: v });
        return undefined;
      }
      return parts.map((p) => Number(p.replace(/^EPSG:/i, '')));
    })
    .meta({ type: 'string', description: 'EPSG codes of operations applied in order, separated by `|`', examples: ['15965'] }),
});

function service(ctx: RequestContext): CoordinatesService {
  const { coordinates } = ctx.services;
  if (!coordinates) throw new ServiceError('unavailable', 'The coordinates index is not built: run `npm run indexes` (or `tilemirror build-indexes`) and restart');
  return coordinates;
}

/** `/coordinates/search/{query}.json` */
export async function coordinatesSearch(ctx: RequestContext, p: z.output<typeof coordinatesSearchParams>): Promise<Reply> {
  const coordinates = service(ctx);
  return jsonReply(await coordinates.search(p.query, { limit: p.limit ?? 10, offset: p.offset ?? 0, transformations: p.transformations ?? false, exports: p.exports ?? false }));
}

/** `/coordinates/transform/{coordinates}.json` */
export async function coordinatesTransform(ctx: RequestContext, p: z.output<typeof coordinatesTransformParams>): Promise<Reply> {
  const coordinates = service(ctx);
  return jsonReply(await coordinates.transform(p.coordinates, p.s_srs, p.t_srs, p.ops));
}
