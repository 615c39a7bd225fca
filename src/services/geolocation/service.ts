import { cidrContains, formatAddress, parseAddress, parseCidr, type Cidr, type IpAddress } from '../../config/cidr';
import type { GeolocationConfig, GeolocationSite } from '../../config/schema';
import { countryFacts, type CountryFacts } from './countries';
import { DatabaseMissing, DBIP_ATTRIBUTION, IpDatabase, type DbipRecord } from './database';
import { TimeZones } from './timezone';

// `/geolocation/ip.json`: where a client is, from its address. In order: the configured sites of local networks
// (`geolocation.networks`, longest prefix first), the IP database (DB-IP Lite City), the configured
// `geolocation.default` site; an address none of them locates (loopback, private, unknown) gets an answer with
// empty fields and a `note` saying why, never an error. Country facts, time zone, ISO 3166-2 region and elevation
// are added from the position.
// A value the answer does not know is empty, never `null`: strings are '', `country_languages` is [], `eu` is
// false, and the numbers (`latitude`, `longitude`, the four of `country_bounds`, `elevation`) are left out. The
// cloud's own client types every field of its answer as optional and none as nullable (`latitude?: number`), so a
// client checking `latitude !== undefined` before using the position works against this server as against the
// cloud.

/** First-level region at a position (the gazetteer's point-in-polygon, injected; this module does not import it). */
export type RegionAt = (lon: number, lat: number) => { countryCode?: string; regionCode?: string; regionName?: string } | undefined;
/** Elevation in meters at a position (the elevation service, injected); undefined where it has no data. */
export type ElevationAt = (lon: number, lat: number) => Promise<number | undefined>;

export interface GeolocationHooks {
  regionAt?: RegionAt;
  elevationAt?: ElevationAt;
}

/** The spec's IP geolocation response, plus `attribution` (DB-IP's CC BY) and `note` (why nothing was located). */
export interface GeolocationAnswer extends CountryFacts {
  city: string;
  /** Left out (not `null`) when nothing located the address, as `country_bounds` and `elevation` are when unknown. */
  latitude?: number;
  longitude?: number;
  /** Always '' from the database: DB-IP Lite has no postal codes. A configured site may state one. */
  postal: string;
  region: string;
  /** ISO 3166-2 subdivision code without the country prefix (`ZH` for CH-ZH), as the cloud answers; '' unknown. */
  region_code: string;
  timezone: string;
  elevation?: number;
  attribution?: string;
  note?: string;
}

/** What an answer rests on: a configured network's site, the IP database, the configured default, or nothing. */
export type AnswerBasis = 'network' | 'database' | 'default' | 'none';

/** Ranges that never reach the database, named in the `note` of an answer that locates nothing. */
const SPECIAL: ReadonlyArray<[Cidr, string]> = [
  ['127.0.0.0/8', 'a loopback address'],
  ['::1/128', 'a loopback address'],
  ['0.0.0.0/8', 'an unspecified address'],
  ['::/128', 'an unspecified address'],
  ['10.0.0.0/8', 'a private address'],
  ['172.16.0.0/12', 'a private address'],
  ['192.168.0.0/16', 'a private address'],
  ['100.64.0.0/10', 'a shared (carrier-grade NAT) address'],
  ['169.254.0.0/16', 'a link-local address'],
  ['fe80::/10', 'a link-local address'],
  ['fc00::/7', 'a unique local (private) address'],
].map(([c, what]) => [parseCidr(c), what]);

function stripCountry(code: string | undefined): string {
  return code ? code.replace(/^[A-Z]{2}-/, '') : '';
}

/** The answer locating nothing: every string and list of the spec, empty; no number (see the top of this file). */
const EMPTY_ANSWER: Omit<GeolocationAnswer, 'note'> = {
  country: '',
  country_code: '',
  country_languages: [],
  continent: '',
  continent_code: '',
  eu: false,
  city: '',
  postal: '',
  region: '',
  region_code: '',
  timezone: '',
};

export class GeolocationService {
  readonly database: IpDatabase;
  private readonly networks: Array<{ cidr: Cidr; site: GeolocationSite }>;
  private readonly siteAnswers = new Map<GeolocationSite, GeolocationAnswer>();
  private readonly recordAnswers = new WeakMap<DbipRecord, GeolocationAnswer>();
  private readonly timeZones = new TimeZones();

  constructor(private readonly config: GeolocationConfig, private readonly hooks: GeolocationHooks = {}) {
    this.database = new IpDatabase(config.database);
    // Longest prefix first: the first range holding an address is the most specific one.
    this.networks = config.networks
      .flatMap((n) => n.cidr.map((c) => ({ cidr: parseCidr(c), site: n })))
      .sort((a, b) => b.cidr.bits - a.cidr.bits);
  }

  /** Reads the database files in the background (the first lookup would otherwise read them, ~0.2 s each). */
  warm(): Promise<void> {
    return this.database.warm();
  }

  /**
   * The answer for an address, without elevation. Throws DatabaseMissing when the address needs a database file
   * that is not installed.
   */
  locate(addressText: string): { answer: GeolocationAnswer; basis: AnswerBasis; site?: GeolocationSite } {
    const address = parseAddress(addressText);
    if (!address) return this.unlocated(`"${addressText}" is not an IP address`);
    const network = this.networks.find((n) => cidrContains(n.cidr, address));
    if (network) return { answer: this.siteAnswer(network.site), basis: 'network', site: network.site };
    const special = SPECIAL.find(([range]) => cidrContains(range, address));
    if (!special) {
      // maxmind reads the text again: hand it the plain form (no zone, IPv4-mapped as IPv4).
      const plain = addressText.includes(':') && (address.family === 4 || addressText.includes('%')) ? formatAddress(address) : addressText;
      const record = this.database.lookup(address, plain);
      if (record) return { answer: this.recordAnswer(record), basis: 'database' };
    }
    const def = this.config.default;
    if (def) return { answer: this.siteAnswer(def), basis: 'default', site: def };
    return this.unlocated(
      special
        ? `${addressText} is ${special[1]}: not located. Map it to a site in geolocation.networks, or set geolocation.default`
        : `${addressText} is not in the IP database`,
    );
  }

  /** Position of an address, for `proximity=ip` in geocoding; undefined when nothing locates it. */
  position(addressText: string): { lon: number; lat: number } | undefined {
    try {
      const { answer } = this.locate(addressText);
      return answer.longitude === undefined || answer.latitude === undefined ? undefined : { lon: answer.longitude, lat: answer.latitude };
    } catch (err) {
      if (err instanceof DatabaseMissing) return undefined;
      throw err;
    }
  }

  /** The full answer; with `elevation`, the site's own elevation or the elevation service's (omitted when neither says). */
  async answer(addressText: string, opts: { elevation?: boolean } = {}): Promise<GeolocationAnswer> {
    // Read the database file without blocking the server when this is the first address of its family.
    const address = parseAddress(addressText);
    if (address && !this.database.loaded(address.family) && this.asksDatabase(address)) await this.database.ready(address.family);
    const { answer, site } = this.locate(addressText);
    if (!opts.elevation || answer.latitude === undefined || answer.longitude === undefined) return answer;
    let elevation = site?.elevation;
    if (elevation === undefined && this.hooks.elevationAt) {
      try {
        elevation = await this.hooks.elevationAt(answer.longitude, answer.latitude);
      } catch {
        elevation = undefined; // no elevation data there (or the service failed): the field is left out
      }
    }
    return elevation === undefined || !Number.isFinite(elevation) ? answer : { ...answer, elevation };
  }

  /** Whether locating the address reads the database (no site's network holds it, and it is a public address). */
  private asksDatabase(address: IpAddress): boolean {
    return !this.networks.some((n) => cidrContains(n.cidr, address)) && !SPECIAL.some(([range]) => cidrContains(range, address));
  }

  private unlocated(note: string): { answer: GeolocationAnswer; basis: AnswerBasis } {
    return { answer: { ...EMPTY_ANSWER, country_languages: [], note }, basis: 'none' };
  }

  /** Region name and code at the position from the injected lookup, when it agrees on the country. */
  private regionAt(countryCode: string, lon: number, lat: number): { region?: string; region_code?: string } {
    const r = this.hooks.regionAt?.(lon, lat);
    if (!r || (r.countryCode && r.countryCode !== countryCode)) return {};
    return { region: r.regionName, region_code: r.regionCode && stripCountry(r.regionCode) };
  }

  private build(countryCode: string, lat: number, lon: number, fields: { city: string; region: string; region_code?: string; postal: string; timezone?: string; attribution?: string }): GeolocationAnswer {
    const facts = countryFacts(countryCode);
    const region = this.regionAt(countryCode, lon, lat);
    return {
      country: facts?.country ?? '',
      country_code: countryCode,
      ...(facts?.country_bounds && { country_bounds: facts.country_bounds }),
      country_languages: facts?.country_languages ?? [],
      continent: facts?.continent ?? '',
      continent_code: facts?.continent_code ?? '',
      eu: facts?.eu ?? false,
      city: fields.city,
      latitude: lat,
      longitude: lon,
      postal: fields.postal,
      region: fields.region || region.region || '',
      region_code: fields.region_code || region.region_code || '',
      timezone: fields.timezone || this.timeZones.at(lat, lon),
      ...(fields.attribution && { attribution: fields.attribution }),
    };
  }

  private siteAnswer(site: GeolocationSite): GeolocationAnswer {
    let a = this.siteAnswers.get(site);
    if (!a) {
      a = this.build(site.country_code, site.latitude, site.longitude, {
        city: site.city ?? site.name,
        region: site.region ?? '',
        region_code: stripCountry(site.region_code),
        postal: site.postal ?? '',
        timezone: site.timezone,
      });
      this.siteAnswers.set(site, a);
    }
    return a;
  }

  private recordAnswer(record: DbipRecord): GeolocationAnswer {
    let a = this.recordAnswers.get(record);
    if (!a) {
      // DB-IP's positions are float32: 37.422000885009766 is 37.422 as written in its source.
      const lat = round6(record.latitude);
      const lon = round6(record.longitude);
      // The injected region lookup's name wins when it agrees on the country; else DB-IP's own `state1`.
      const fromLookup = this.hooks.regionAt !== undefined;
      a = this.build(record.country_code, lat, lon, { city: record.city, region: fromLookup ? '' : record.state1 ?? '', postal: record.postcode ?? '', timezone: record.timezone, attribution: DBIP_ATTRIBUTION });
      if (fromLookup && !a.region) a.region = record.state1 ?? '';
      this.recordAnswers.set(record, a);
    }
    return a;
  }
}

function round6(v: number): number {
  return Math.round(v * 1e6) / 1e6;
}

export { DatabaseMissing };
