// The composition root of the services: every service the routes use is built here, over one catalog, and handed
// to the routes as one `Services` object (ctx.services). What the server's wiring knows and the services cannot
// (the mirror jobs' status, the scheduler's readiness, the server's metrics) comes in as options: http never
// imports mirror. Callable without a socket: a test builds the services of a catalog and calls the route table.

import { ServiceError } from '../errors';
import { randomBytes } from 'node:crypto';
import type { Logger } from 'pino';
import { DEFAULT_INDEX_DIR } from '../config/index-dir';
import type { Config } from '../config/schema';
import { CoordinatesService } from '../services/coordinates';
import { WmsMaps } from '../services/wms/get-map';
import { GridTiles, resolveGrids } from '../services/wms/grid-tiles';
import { KeptGridTiles } from '../services/wms/kept-grid-tiles';
import type { TransformXY } from '../services/wms/grid-bounds';
import { ElevationService } from '../services/elevation';
import { GlyphComposer } from '../services/fonts/compose';
import { MirroredLabels } from '../services/geocoding/labels-mirrored';
import { GeocodingService } from '../services/geocoding/service';
import { GeolocationService, type GeolocationHooks } from '../services/geolocation/service';
import { MapSprites } from '../services/map-sprites';
import { RasterTiles } from '../services/raster-tiles';
import { RenderedTiles } from '../services/rendered-tiles';
import { ChromiumRenderer } from '../services/renderer/renderer';
import type { MapRenderer } from '../services/renderer/types';
import { pixelBudget, StaticMaps } from '../services/static-maps';
import { WeatherCatalog } from '../services/weather';
import type { Catalog } from '../store/catalog/catalog';
import type { JobControl, JobStatusReader } from '../job-contracts';
import { KeyRing } from './auth';
import { readiness, type ExtraChecks, type Readiness } from './health';
import type { ServerMetrics } from './metrics';
import { registerMirrorMetrics, registerStaticMapMetrics, registerStoreMetrics } from './metrics-collectors';
import { TileReplies } from './tile-replies';

/** The services handlers reach through `ctx.services`. The optional ones answer 503 (or 404, metrics) when absent. */
export interface Services {
  /** The replies of tile buffers, each built once (tile-replies.ts). */
  readonly tileReplies: TileReplies;
  /** Raster tiles in another size, scale or format than stored, with their cache. */
  readonly rasterTiles: RasterTiles;
  /** Map tiles drawn here from the map's style, and the render stores that keep them. */
  readonly renderedTiles: RenderedTiles;
  /** Glyph ranges of font stacks combined from several fonts, with their cache. */
  readonly glyphs: GlyphComposer;
  /** Static map images: layout, the render queue, decoded tiles and icons. */
  readonly staticMaps: StaticMaps;
  /** WMS GetMap images, reprojected from the Web Mercator tiles. */
  readonly wmsMaps: WmsMaps;
  /** Tiles of the configured grids besides Web Mercator (`grids`), drawn like GetMap images. */
  readonly gridTiles: GridTiles;
  /** Tiles of the other grids, kept once drawn. */
  readonly keptGridTiles: KeptGridTiles;
  /** The mirrored weather catalog and its variables, worked out once per catalog version. */
  readonly weather: WeatherCatalog;
  /** The sprite each map's stored style names, read once per store version. */
  readonly mapSprites: MapSprites;
  /** Raster tiles drawn from a map's style in headless Chromium (its browsers start on the first render; `state()` says when it is off). */
  readonly renderer: MapRenderer;
  /** The API keys requests are checked against: the configured ones and the renderer's own. */
  readonly apiKeys: KeyRing;
  /** The admin keys (`admin.keys`; absent: none configured, and every /admin path answers as if it did not exist). */
  readonly adminKeys?: KeyRing;
  /** The mirror jobs' status, wired by `serve` (absent: the server knows of no jobs). */
  readonly jobStatus?: JobStatusReader;
  /** Plan, run now and cancel of the mirror jobs, wired by `serve` (absent: this process runs no jobs; the admin API's writes answer 503). */
  readonly jobControl?: JobControl;
  /** Heights from mirrored terrain (absent: `/elevation` answers 503). */
  readonly elevation?: ElevationService;
  /** The EPSG registry and PROJ (absent: its index was not built; the endpoints answer 503). */
  readonly coordinates?: CoordinatesService;
  /** Forward, reverse and by-id geocoding (absent: the geocoding endpoints answer 503). */
  readonly geocoding?: GeocodingService;
  /** `/geolocation/ip.json` (absent: it answers 503). */
  readonly geolocation?: GeolocationService;
  /** The server's metrics (absent: `metrics.enabled` is false and `/metrics` answers 404). */
  readonly metrics?: ServerMetrics;
  /** Whether this instance should get traffic, and why not (absent: `/health/ready` answers as `/health/live`). */
  readonly readiness?: () => Readiness;
  /** Writes one audit line of an admin write (who, from where, what, when, the status and outcome). */
  readonly audit?: (entry: AuditEntry) => void;
}

/** One admin write as the audit log records it: never the key, only its label. */
export interface AuditEntry {
  who: string;
  from: string;
  what: string;
  at: string;
  status: number;
  outcome: string;
}

/** What the wiring hands the services besides the configuration, the catalog and the log (each optional). */
export interface ServiceOptions {
  /** What `/admin/` shows about the mirror jobs (wired by `serve`: the scheduler, or the persisted state). */
  jobStatus?: JobStatusReader;
  /** What the admin API drives the jobs through (wired by `serve`: the scheduler of this process). */
  jobControl?: JobControl;
  /** The server's metrics: the collectors of the stores, the render queue and the jobs are registered on them. */
  metrics?: ServerMetrics;
  /** What readiness depends on besides the stores and the indexes (wired by `serve`: the scheduler), read on every probe. */
  checks?: ExtraChecks;
  /**
   * What geolocation asks of other services, replacing the wired ones (tests): the ISO 3166-2 region at a position
   * (by default the gazetteer's) and the elevation (by default the elevation service's).
   */
  geolocation?: GeolocationHooks;
  /** Folder of the label indexes (default `<data>/.labels`): tests keep them out of the data directory. */
  labelsDir?: string;
}

/** The services of one server and their lifetime. */
export interface ServiceRoot {
  readonly services: Services;
  /** The labels of the served vector tile sets (indexed in the background as stores come and go): the geocoder's LabelFinder. */
  readonly labels: MirroredLabels;
  /**
   * Starts the background work (the labels' indexing) once the server listens at `baseUrl`, never before readiness;
   * the renderer's browsers read the server there.
   */
  start(baseUrl: string): void;
  /** Stops the background work, drops the label indexes and stops the renderer's browsers: first on shutdown, before connections drain. */
  stop(): void;
  /** Closes what the services hold open (PROJ, the gazetteer): last, once no request uses them. */
  close(): Promise<void>;
}

/**
 * Builds every service over `catalog`. Indexes open cheaply (PROJ itself loads on the first transform, the
 * gazetteer on the first geocoding request, DB-IP on the first lookup): the server is ready at once. A missing
 * index is a 503 on its endpoints, logged once here.
 */
export function createServices(config: Config, catalog: Catalog, log: Logger, options: ServiceOptions = {}): ServiceRoot {
  const indexDir = config.indexDir ?? DEFAULT_INDEX_DIR;
  const coordinates = CoordinatesService.open(indexDir, config.coordinates);
  if (!coordinates) log.warn({ indexDir }, 'coordinates index not built (run `npm run indexes`): /coordinates answers 503');
  else if (config.coordinates.gridDir) {
    const g = coordinates.grids;
    log.info({ gridDir: config.coordinates.gridDir, files: g.files.length, mb: Math.round(g.bytes / 1e5) / 10, grids: g.available.size }, 'PROJ grid files found (loaded with PROJ)');
  }
  const labels = new MirroredLabels(catalog, { log, dir: options.labelsDir });
  const elevation = new ElevationService(catalog, {
    ...config.elevation,
    onBadTile: (tile, err) => log.error({ tile, err: err.message }, 'terrain tile cannot be decoded: read as absent'),
  });
  // Geocoding and geolocation ask each other (proximity=ip; the region of a located address): `locate` is read
  // when a request needs it, after both exist.
  let geolocation: GeolocationService | undefined;
  const geocoding = new GeocodingService({ indexDir, labels, locate: (ip) => geolocation?.position(ip), log: (m) => log.warn(m) });
  geolocation = new GeolocationService(config.geolocation, { regionAt: geocoding.regionAt, elevationAt: elevation.elevationAt, ...options.geolocation });
  // One pixel budget for the process's image work: static maps and the renderer's metatiles.
  const pixels = pixelBudget();
  const staticMaps = new StaticMaps(catalog, { maxWaiting: config.staticMaps.queue, queue: pixels });
  // The renderer's browsers read this server with a key of their own, made anew by each process and never logged.
  const renderKey = randomBytes(24).toString('base64url');
  const renderer = new ChromiumRenderer({ render: config.render, catalog, log, key: renderKey, pixels });
  const apiKeys = new KeyRing(config.render.enabled ? [...config.keys, { key: renderKey, allowedOrigins: [], plan: 'paid' as const }] : config.keys);
  const renderedTiles = new RenderedTiles({ catalog, renderer, keep: config.render.keep, warn: (m) => log.warn(m) });
  const transformXY: TransformXY = (xs, ys, s, t) => {
    if (!coordinates) throw new ServiceError('unavailable', 'The coordinates index is not built (npm run indexes): WMS draws in EPSG:3857 only');
    return coordinates.transformXY(xs, ys, s, t);
  };
  const wmsMaps: WmsMaps = new WmsMaps({
    queue: pixels,
    maxWaiting: config.wms.queue,
    resampling: config.wms.resampling,
    maxError: config.wms.maxError,
    transform: transformXY,
  });

  const grids = resolveGrids(config.grids, coordinates && ((code) => coordinates.crsFacts(code)), (m) => log.warn(m));
  const gridTiles = new GridTiles(grids, wmsMaps);
  const keptGridTiles = new KeptGridTiles({
    dataDir: catalog.dataDir,
    keep: config.wms.keepGridTiles,
    tiles: gridTiles,
    renderedTiles,
    transform: transformXY,
    wkt1: (code) => {
      if (!coordinates) throw new ServiceError('unavailable', 'The coordinates index is not built (npm run indexes)');
      return coordinates.crsWkt1(code);
    },
    drawing: `${config.wms.resampling}/${config.wms.maxError}`,
    warn: (m) => log.warn(m),
  });

  const { metrics, jobStatus, jobControl, checks } = options;
  if (metrics) {
    registerStoreMetrics(metrics.registry, catalog);
    registerStaticMapMetrics(metrics.registry, staticMaps);
    if (jobStatus) registerMirrorMetrics(metrics.registry, jobStatus);
  }
  const services: Services = {
    tileReplies: new TileReplies(),
    weather: new WeatherCatalog(catalog),
    mapSprites: new MapSprites(),
    renderer,
    apiKeys,
    adminKeys: config.admin.keys.length > 0 ? new KeyRing(config.admin.keys.map((key) => ({ key, allowedOrigins: [], plan: 'free' as const }))) : undefined,
    rasterTiles: new RasterTiles(),
    renderedTiles,
    glyphs: new GlyphComposer(),
    staticMaps,
    wmsMaps,
    gridTiles,
    keptGridTiles,
    jobStatus,
    jobControl,
    elevation,
    coordinates,
    geocoding,
    geolocation,
    metrics,
    // At warn: an operator's action is logged at every level but `error` and `silent`.
    audit: (e) => log.warn({ audit: e }, `audit: ${e.who} from ${e.from || 'unknown'} ${e.what}: ${e.outcome} (${e.status})`),
    readiness: () =>
      readiness(catalog, () => ({
        ...checks?.(),
        // Informational: an index not built answers 503 on its own endpoints, the rest serves.
        indexes: { ok: true, coordinates: coordinates ? 'open' : 'absent' },
      })),
  };
  let stopping: Promise<void> | undefined;
  return {
    services,
    labels,
    start: (baseUrl) => {
      renderer.listening(baseUrl);
      void labels.start();
    },
    stop: () => {
      labels.close();
      // Before the connections drain: the browsers' own connections to the server go with them.
      stopping = renderer.close();
    },
    close: async () => {
      keptGridTiles.close();
      await Promise.all([coordinates?.close(), geocoding.close(), stopping ?? renderer.close()]);
      renderedTiles.close();
    },
  };
}
