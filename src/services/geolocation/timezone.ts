// The IANA time zone at a position, from `geo-tz/all` (timezone-boundary-builder polygons, ODbL; code MIT): the
// full set of zones, not the package's default that merges zones alike since 1970 (which answers Europe/Berlin in
// Tromsø). Loaded on first use. geo-tz reads its boundary data per area as positions ask and by default keeps every
// area read, which grows to ~300 MB of heap over the world's land: here it keeps the 128 areas used last (~65 MB).
// Answers are kept per position rounded to 1e-3° (about 100 m), as fine as the IP database's positions.

type Find = (lat: number, lon: number) => string[];
interface GeoTz {
  find: Find;
  setCache(options: { store?: Map<unknown, unknown>; preload?: boolean }): void;
}

/** A Map that forgets the entry used least recently beyond `max` entries (geo-tz's cache store). */
export class LruMap<K, V> extends Map<K, V> {
  constructor(private readonly max: number) {
    super();
  }
  override get(key: K): V | undefined {
    const v = super.get(key);
    if (v !== undefined) {
      super.delete(key);
      super.set(key, v);
    }
    return v;
  }
  override set(key: K, value: V): this {
    if (!this.has(key) && this.size >= this.max) this.delete(this.keys().next().value as K);
    return super.set(key, value);
  }
}

function loadGeoTz(): Find {
  // Required here, not imported: geo-tz is only loaded when a position asks.
  const geoTz = require('geo-tz/all') as GeoTz;
  geoTz.setCache({ store: new LruMap<unknown, unknown>(128) });
  return geoTz.find;
}

let find: Find | undefined;
const cache = new Map<string, string>();
const MAX_CACHED = 50_000;

/** The time zone at the position; `Etc/GMT±n` at sea; '' when geo-tz cannot say. */
export function timezoneAt(lat: number, lon: number): string {
  const key = `${Math.round(lat * 1000)},${Math.round(lon * 1000)}`;
  const hit = cache.get(key);
  if (hit !== undefined) return hit;
  find ??= loadGeoTz();
  let zone = '';
  try {
    zone = find(lat, lon)[0] ?? '';
  } catch {
    zone = ''; // geo-tz throws for positions outside -90..90 / -180..180; the callers do not send those
  }
  if (cache.size >= MAX_CACHED) cache.clear();
  cache.set(key, zone);
  return zone;
}
