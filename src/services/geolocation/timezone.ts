// The IANA time zone at a position, from `geo-tz/all` (timezone-boundary-builder polygons, ODbL; code MIT): the
// full set of zones, not the package's default that merges zones alike since 1970 (which answers Europe/Berlin in
// Tromsø). Loaded on first use. geo-tz decodes its boundary data per area as positions ask, and by default keeps every
// area decoded: ~300 MB of heap once positions all over the world were asked. Measured over 35k DB-IP positions in
// random order, keeping none was also the fastest (~0.1 ms per new position; a small LRU of areas was 2-3x slower,
// its big objects surviving into the old generation): so geo-tz keeps nothing, and the answers are kept here, per
// position rounded to 1e-3° (about 100 m), as fine as the IP database's positions.

type Find = (lat: number, lon: number) => string[];
interface GeoTz {
  find: Find;
  setCache(options: { store?: Map<unknown, unknown>; preload?: boolean }): void;
}

/** geo-tz's cache store that stores nothing. */
class NoStore<K, V> extends Map<K, V> {
  override set(): this {
    return this;
  }
}

function loadGeoTz(): Find {
  // Required here, not imported: geo-tz is only loaded when a position asks.
  const geoTz = require('geo-tz/all') as GeoTz;
  geoTz.setCache({ store: new NoStore<unknown, unknown>() });
  return geoTz.find;
}

const MAX_CACHED = 50_000;

/** Time zones by position, with the answers kept (at most MAX_CACHED positions; then they start over). */
export class TimeZones {
  private find: Find | undefined;
  private readonly cache = new Map<string, string>();

  /** The time zone at the position; `Etc/GMT±n` at sea; '' when geo-tz cannot say. */
  at(lat: number, lon: number): string {
    const key = `${Math.round(lat * 1000)},${Math.round(lon * 1000)}`;
    const hit = this.cache.get(key);
    if (hit !== undefined) return hit;
    this.find ??= loadGeoTz();
    let zone = '';
    try {
      zone = this.find(lat, lon)[0] ?? '';
    } catch {
      zone = ''; // geo-tz throws for positions outside -90..90 / -180..180; the callers do not send those
    }
    if (this.cache.size >= MAX_CACHED) this.cache.clear();
    this.cache.set(key, zone);
    return zone;
  }
}
