// The flags `mirror` and `plan` share, their parsers (each refusal a clear message, exit code 2), and how they
// become MirrorOptions.

import { Command, InvalidArgumentError, Option } from 'commander';
import { resolve } from 'node:path';
import type { Bounds } from '../geo/bounds';
import type { TileFormat } from '../store/types';
import { readAreaFile, type PolygonArea } from './area';
import type { ResourceRef } from './resource';
import { parseBBox, parseZoomRange } from './plan';
import { DEFAULT_CONCURRENCY, RASTER_MODES, type MirrorOptions, type RasterMode } from './engine/options';
import type { GenericSource } from './discovery/sources';
import { RequestBudget, upstreamOrigin, warnOnLedgerError } from './upstream/request-budget';
import { RequestLedger } from '../store/data-dir/request-ledger';

export const EXIT = { published: 0, failed: 1, usage: 2, interrupted: 3 } as const;

export interface Flags {
  config?: string;
  upstream?: string;
  data: string;
  zoom?: [number, number];
  bbox: Bounds[];
  concurrency: number;
  http2?: boolean;
  rate?: number;
  key?: string;
  timeout: number;
  failureBudget: number;
  maxRequests?: number;
  requestsPerMonth?: number;
  maxAge?: number;
  sample?: number;
  withDependencies?: boolean;
  raster?: RasterMode;
  scale?: number[];
  /** Maps: tile formats; with --source-wms: its GetMap MIME type (image/png). */
  format?: TileFormat[] | { mime: string };
  area: PolygonArea[];
  sourceTilejson?: string;
  sourceWmts?: string;
  sourceXyz?: string;
  sourceWms?: string;
  layer?: string;
  layers?: string;
  styles?: string;
  matrixSet?: string;
  subdomains?: string[];
  scheme?: 'xyz' | 'tms';
  wmsVersion?: '1.1.1' | '1.3.0';
  tileSize?: 256 | 512;
  id?: string;
  /** Set from --source-tilejson / --source-wmts / --source-xyz / --source-wms (key-free). */
  source?: GenericSource;
}

const wrap = <T>(fn: (v: string) => T) => (v: string): T => {
  try {
    return fn(v);
  } catch (err) {
    throw new InvalidArgumentError((err as Error).message);
  }
};

function positiveInt(max: number) {
  return (v: string): number => {
    const n = Number(v);
    if (!/^\d+$/.test(v) || n < 1 || n > max) throw new InvalidArgumentError(`an integer 1-${max}`);
    return n;
  };
}

function countOfRequests(v: string): number {
  const n = Number(v);
  if (!/^\d+$/.test(v) || n < 1 || !Number.isSafeInteger(n)) throw new InvalidArgumentError('a positive integer');
  return n;
}

export function nonNegativeInt(v: string): number {
  if (!/^\d+$/.test(v)) throw new InvalidArgumentError('a non-negative integer');
  return Number(v);
}

function positiveNumber(v: string): number {
  const n = Number(v);
  if (!Number.isFinite(n) || n <= 0) throw new InvalidArgumentError('a positive number');
  return n;
}

export function addSharedOptions(cmd: Command): Command {
  return cmd
    .argument('[resources...]', 'tiles/ID, maps/ID, images/ID, fonts/FONTSTACK, sprites/ID, data/ID, weather or ogc; with --config: job names (default: every job)')
    .option('-C, --config <file>', 'run the jobs of this configuration file (mirror.jobs) instead of RESOURCE arguments')
    .option('-u, --upstream <url>', 'base URL of the upstream API (MapTiler Cloud or another tilemirror)')
    .option('-d, --data <dir>', 'data directory holding the stores (default: mirror, or the config file\'s)', 'mirror')
    .option('-z, --zoom <min-max>', 'zoom range, e.g. 0-8 (default: the upstream\'s)', wrap(parseZoomRange))
    .option('-b, --bbox <w,s,e,n>', 'area in degrees; repeat for several (default: the upstream\'s bounds)', (v: string, acc: Bounds[]) => [...acc, wrap(parseBBox)(v)], [] as Bounds[])
    .option('-a, --area <file.geojson>', 'area: a GeoJSON Polygon or MultiPolygon (or Feature/FeatureCollection of them) in lon/lat; repeat for several, with --bbox too', (v: string, acc: PolygonArea[]) => [...acc, wrap(readAreaFile)(v)], [] as PolygonArea[])
    .option('--source-tilejson <url>', 'mirror any TileJSON URL (a key=... in it is the key) into tiles/ID given by --id')
    .option('--source-wmts <url>', 'mirror a layer (--layer) of any WMTS capabilities URL into tiles/ID given by --id')
    .option('--layer <id>', 'with --source-wmts: the layer identifier')
    .option('--matrix-set <id>', "with --source-wmts: the TileMatrixSet (default: the layer's first Web Mercator one)")
    .option('--source-xyz <template>', 'mirror an XYZ tile URL template ({z}/{x}/{y}, {-y}, {s}) into tiles/ID given by --id; needs --zoom')
    .option('--subdomains <list>', 'with --source-xyz: what {s} stands for, e.g. a,b,c', wrap(parseSubdomains))
    .addOption(new Option('--scheme <scheme>', 'with --source-xyz: tms when rows count from the south (as {-y})').choices(['xyz', 'tms']))
    .option('--source-wms <url>', 'mirror WMS layers (--layers) as tiles, one GetMap per tile in EPSG:3857, into tiles/ID given by --id')
    .option('--layers <list>', 'with --source-wms: the layer names, comma-separated')
    .option('--styles <list>', "with --source-wms: the styles, comma-separated (default: the layers' default)")
    .addOption(new Option('--wms-version <version>', 'with --source-wms: the WMS version of GetMap').choices(['1.1.1', '1.3.0']).default('1.3.0'))
    .addOption(new Option('--tile-size <px>', 'with --source-wms: the tile size asked for').choices(['256', '512']).argParser((v) => Number(v) as 256 | 512))
    .option('--id <id>', 'with a --source-* option: the tileset id the source is mirrored into (tiles/ID)')
    .option('-c, --concurrency <n>', 'most requests in flight (fewer while more bring no gain; halved when the upstream is overloaded)', positiveInt(256), DEFAULT_CONCURRENCY)
    .option('--http2', 'offer HTTP/2 to a TLS upstream (default HTTP/1.1: one request per connection, as many connections as requests in flight)')
    .option('-r, --rate <req/s>', 'requests per second sent to the upstream (default: unlimited)', positiveNumber)
    .addOption(new Option('-k, --key <key>', 'upstream key (default: $TILEMIRROR_UPSTREAM_KEY)').env('TILEMIRROR_UPSTREAM_KEY'))
    .option('--timeout <seconds>', 'per-request timeout', positiveNumber, 30)
    .option('--failure-budget <n>', 'failed tiles tolerated before the run stops', nonNegativeInt, 100)
    .option('--max-requests <n>', 'most upstream requests this run sends: it then stops, progress kept (run again to resume)', countOfRequests)
    .option('--requests-per-month <n>', "the upstream's monthly request budget, counted over every run of the data directory (UTC month): a run that cannot fit is refused", nonNegativeInt)
    .option('--max-age <seconds>', 'stored tiles older than this are revalidated with conditional requests (0: all; default 7 days)', nonNegativeInt)
    .option('--with-dependencies', "maps: also mirror the fonts and the sprite the map's style uses")
    .addOption(
      new Option('--raster <mode>', "maps: mirror fetches the raster pyramids' tiles; render fetches none of them (the pyramids are described and the server renders their tiles from the style) and implies --with-dependencies")
        .choices(RASTER_MODES)
        .default('mirror'),
    )
    .option('--scale <list>', 'maps: pixel ratios to mirror, e.g. 1,2 adds @2x pyramids (default 1)', wrap(parseScales))
    .option('--format <list>', "maps: tile formats to mirror, e.g. png,webp (default: the upstream's); --source-wms: the GetMap format, e.g. image/png (the default)", wrap(parseFormatOption))
    .exitOverride((err) => {
      // Usage errors exit with 2 (help and version with 0), as documented for `mirror`.
      process.exit(err.exitCode === 0 ? 0 : EXIT.usage);
    });
}

function parseScales(v: string): number[] {
  const list = v.split(',').map((s) => Number(s.trim()));
  if (list.length === 0 || list.some((n) => n !== 1 && n !== 2)) throw new Error('a comma-separated list of 1 and 2');
  return list;
}

function parseSubdomains(v: string): string[] {
  const list = v.split(',').map((s) => s.trim());
  if (list.some((s) => !/^[A-Za-z0-9.-]+$/.test(s))) throw new Error('a comma-separated list of host name parts, e.g. a,b,c');
  return list;
}

/** A MIME type (with a "/": a WMS GetMap format) or a list of tile formats (maps). */
function parseFormatOption(v: string): TileFormat[] | { mime: string } {
  return v.includes('/') ? { mime: v.trim() } : parseFormats(v);
}

function parseFormats(v: string): TileFormat[] {
  const list = v.split(',').map((s) => s.trim().toLowerCase().replace(/^jpeg$/, 'jpg'));
  if (list.length === 0 || list.some((f) => f !== 'png' && f !== 'jpg' && f !== 'webp')) throw new Error('a comma-separated list of png, jpg and webp');
  return list as TileFormat[];
}

/**
 * The request budget of one `mirror` command (all its resources): --max-requests, --requests-per-month, the data
 * directory's ledger. `plan` takes it without the run's cap (its own requests are not the run's).
 */
export function flagsBudget(flags: Flags, warn: (line: string) => void, withRunCap = true): RequestBudget {
  const dataDir = resolve(flags.data);
  return new RequestBudget({
    upstream: upstreamOrigin(flags.upstream!),
    maxRequests: withRunCap ? flags.maxRequests : undefined,
    perMonth: flags.requestsPerMonth ?? null,
    ledger: new RequestLedger(dataDir),
    onLedgerError: warnOnLedgerError(dataDir, warn),
  });
}

export function mirrorOptions(flags: Flags, resource: ResourceRef, log: (l: string) => void): MirrorOptions {
  return {
    upstream: flags.upstream!,
    dataDir: resolve(flags.data),
    resource,
    key: flags.key,
    zoom: flags.zoom,
    bboxes: flags.bbox,
    areas: flags.area,
    source: flags.source,
    concurrency: flags.concurrency,
    http2: flags.http2,
    rate: flags.rate,
    timeoutMs: flags.timeout * 1000,
    failureBudget: flags.failureBudget,
    maxAge: flags.maxAge,
    withDependencies: flags.withDependencies,
    raster: flags.raster,
    scales: flags.scale,
    formats: Array.isArray(flags.format) ? flags.format : undefined,
    log,
  };
}
