'use strict';
// The content of one tile of the synthetic country, a pure function of its address (and the generator's
// constants): what `country-store.js` encodes, and what the country bench and tests read back as the known
// answers. Nothing here knows the label index; it only says what was placed where.
//
// A z14 tile holds: two streets (transportation_name lines, named, wavy, ~1.4 km), house numbers along both sides
// of each (housenumber points ~25 m off the street, OpenMapTiles-style: a number and no street), POIs with a class
// and subclass, one place every few tiles (village, town, city, suburb, hamlet), and filler layers (buildings,
// roads, landcover) of pseudo-random geometry so gzipped tiles weigh what OpenMapTiles' z14 tiles weigh. Every
// name is unique in the country (a permutation of word combinations), so every query has exactly one right answer.
// Parent tiles (z0-13) hold the places of their area that rank at that zoom and filler.

const EXTENT = 4096;
/** The z14 tile rectangle at scale 1: 500 x 500 tiles (lon -3.1..7.9, lat 44.3..49.4). */
const ORIGIN = { x: 8050, y: 5600 };
const SIDE_AT_SCALE_1 = 500;

const STREET_TYPES = ['Rue', 'Avenue', 'Boulevard', 'Chemin', 'Allée', 'Impasse', 'Route', 'Place', 'Quai', 'Passage'];
const GIVEN = [];
const FAMILY = [];
const SYL = ['ba', 'be', 'bo', 'ca', 'ce', 'da', 'de', 'do', 'fa', 'fe', 'ga', 'go', 'la', 'le', 'lo', 'ma', 'me', 'mi', 'mo', 'na', 'ne', 'no', 'pa', 'pe', 'ra', 're', 'ri', 'ro', 'sa', 'se', 'ta', 'te', 'to', 'va', 've', 'vi'];
const CODA = ['', 'n', 'r', 'l', 's', 'x', 't', 'c'];
// Word lists made from syllables (deterministic, pronounceable, not real words): 324 given names, 1,296 family
// names, so street and POI names (type x given x family) run to 4.2 M distinct combinations.
for (let i = 0; i < 324; i++) GIVEN.push(cap(SYL[i % 36] + SYL[(i * 7 + 3) % 36] + CODA[i % 8]));
for (let i = 0; i < 1296; i++) FAMILY.push(cap(SYL[i % 36] + SYL[Math.floor(i / 36) % 36] + SYL[(i * 5 + 11) % 36] + CODA[(i >> 3) % 8]));

const POI_CLASSES = [
  ['restaurant', 'restaurant', 'Restaurant'],
  ['cafe', 'cafe', 'Café'],
  ['shop', 'bakery', 'Boulangerie'],
  ['shop', 'supermarket', 'Supermarché'],
  ['pharmacy', 'pharmacy', 'Pharmacie'],
  ['school', 'school', 'École'],
  ['bar', 'pub', 'Bar'],
  ['fuel', 'fuel', 'Station'],
  ['lodging', 'hotel', 'Hôtel'],
  ['town_hall', 'townhall', 'Mairie'],
];

/** Place classes by how often they occur (one place every PLACE_EVERY z14 tiles) and the zoom they appear from. */
const PLACE_KINDS = [
  { cls: 'city', every: 400, minzoom: 6 },
  { cls: 'town', every: 40, minzoom: 9 },
  { cls: 'village', every: 6, minzoom: 11 },
  { cls: 'suburb', every: 10, minzoom: 12 },
  { cls: 'hamlet', every: 5, minzoom: 13 },
];

function cap(s) {
  return s[0].toUpperCase() + s.slice(1);
}

/** mulberry32: a small seeded PRNG (the same numbers on every machine). */
function rng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const seedOf = (z, x, y, salt = 0) => (Math.imul(x, 73856093) ^ Math.imul(y, 19349663) ^ Math.imul(z + 1, 83492791) ^ salt) >>> 0;

/** Tile pixel → lon/lat (Web Mercator), written here independently of the project's code. */
function lonLat(z, x, y, px, py) {
  const n = 2 ** z;
  const lon = ((x + px / EXTENT) / n) * 360 - 180;
  const lat = (Math.atan(Math.sinh(Math.PI * (1 - (2 * (y + py / EXTENT)) / n))) * 180) / Math.PI;
  return [lon, lat];
}

/** The z14 rectangle of a scale: side = round(500 x sqrt(scale)) tiles. */
function areaOf(scale, towns = 0) {
  const side = Math.max(2, Math.round(SIDE_AT_SCALE_1 * Math.sqrt(scale)));
  // `towns` (a square number): the area cut into that many square towns, each with the same street and POI names
  // (and so the same addresses), as "Main Street" or "Lenin Street" recur across a real country. 0: every name unique.
  const town = towns > 0 ? Math.max(1, Math.floor(side / Math.round(Math.sqrt(towns)))) : 0;
  return { z: 14, x0: ORIGIN.x, y0: ORIGIN.y, x1: ORIGIN.x + side - 1, y1: ORIGIN.y + side - 1, side, town };
}

/** A bijection of 0..n-1 (n = 4,199,040 = 10 x 324 x 1,296) by multiplication with a number prime to n. */
const COMBOS = STREET_TYPES.length * GIVEN.length * FAMILY.length;
const MULT = 2_654_435_761 % COMBOS; // odd and not a multiple of 3 or 5: prime to 2^7 x 3^8 x 5
function combo(k) {
  return Number((BigInt(k) * BigInt(MULT) + 12345n) % BigInt(COMBOS));
}

/** The name of street number `k` of the country (unique for k < 4.2 M). */
function streetName(k) {
  const c = combo(k);
  const t = c % STREET_TYPES.length;
  const g = Math.floor(c / STREET_TYPES.length) % GIVEN.length;
  const f = Math.floor(c / (STREET_TYPES.length * GIVEN.length));
  return `${STREET_TYPES[t]} ${GIVEN[g]} ${FAMILY[f]}`;
}

/** The name of POI number `k` of class `word` (unique per k: the combination of streets, offset). */
function poiName(word, k) {
  const c = combo(k + 2_000_000);
  const g = Math.floor(c / STREET_TYPES.length) % GIVEN.length;
  const f = Math.floor(c / (STREET_TYPES.length * GIVEN.length));
  return `${word} ${GIVEN[g]} ${FAMILY[f]}`;
}

/** The name of place number `k` (unique for k < 36^4 x 8). */
function placeName(k) {
  const c = Number((BigInt(k) * 1_000_003n + 7n) % BigInt(36 ** 3 * 8));
  return cap(SYL[c % 36] + SYL[Math.floor(c / 36) % 36] + SYL[Math.floor(c / 1296) % 36] + CODA[Math.floor(c / 46656) % 8]) + 'ville';
}

const STREETS_PER_TILE = 2;
/** One national road every NATIONAL_EVERY rows of z14 tiles, at this height in its tiles (between the streets). */
const NATIONAL_EVERY = 10;
const NATIONAL_Y = 2000;

/** The name of the national road of row y, and the road itself (end to end of the area) in lon/lat. */
function nationalName(area, y) {
  return `Route nationale ${(y - area.y0 - NATIONAL_EVERY / 2) / NATIONAL_EVERY + 1}`;
}

/** The national roads of an area: name and line (west and east ends). */
function nationalRoads(area) {
  const out = [];
  for (let y = area.y0 + NATIONAL_EVERY / 2; y <= area.y1; y += NATIONAL_EVERY) {
    out.push({ name: nationalName(area, y), line: [lonLat(14, area.x0, y, 0, NATIONAL_Y), lonLat(14, area.x1 + 1, y, 0, NATIONAL_Y)] });
  }
  return out;
}
const HOUSES_PER_SIDE = 4; // 2 streets x 2 sides x 4 = 16 house numbers a tile
const POIS_PER_TILE = 3;

/** The index of a z14 tile in its area (row-major), the base of its streets', POIs' and places' numbers. */
const tileIndex = (area, x, y) => (y - area.y0) * area.side + (x - area.x0);
/** The index that numbers a tile's street and POI names: its index in its town when the area has towns. */
const nameIndex = (area, x, y) => (area.town ? ((y - area.y0) % area.town) * area.town + ((x - area.x0) % area.town) : tileIndex(area, x, y));

/**
 * The labels placed in z14 tile x/y of `area` (lon/lat, the known answers) and its features in tile
 * coordinates (what is encoded). Streets run west-east at two heights; their house numbers stand 60 units
 * (~25 m) north and south of them.
 */
function z14Content(area, x, y) {
  const r = rng(seedOf(14, x, y));
  const t = nameIndex(area, x, y);
  const streets = [];
  const addresses = [];
  const pois = [];
  const places = [];
  const layers = { transportation_name: [], housenumber: [], poi: [], place: [] };
  for (let s = 0; s < STREETS_PER_TILE; s++) {
    const name = streetName(t * STREETS_PER_TILE + s);
    const baseY = 700 + s * 1900 + Math.floor(r() * 600);
    const line = [];
    for (let px = 300; px <= 3700; px += 425) line.push([px, baseY + Math.floor(Math.sin(px / 500 + s) * 40)]);
    const cls = ['residential', 'tertiary', 'secondary', 'minor'][Math.floor(r() * 4)];
    layers.transportation_name.push({ type: 2, geometry: [line.map(([a, b]) => [a, b])], tags: { name, 'name:latin': name, class: cls } });
    streets.push({ name, class: cls, line: line.map(([px, py]) => lonLat(14, x, y, px, py)) });
    let n = 1 + Math.floor(r() * 10);
    for (let h = 0; h < HOUSES_PER_SIDE; h++) {
      for (const side of [-1, 1]) {
        const px = 400 + h * 850 + Math.floor(r() * 200);
        const py = baseY + Math.floor(Math.sin(px / 500 + s) * 40) + side * 60;
        const housenumber = String(n);
        n += 1 + Math.floor(r() * 2);
        layers.housenumber.push({ type: 1, geometry: [[px, py]], tags: { housenumber } });
        addresses.push({ housenumber, street: name, lonlat: lonLat(14, x, y, px, py) });
      }
    }
  }
  // A national road along every tenth row of tiles, crossing each tile of the row (one piece per tile, buffer
  // included, as tiles cut lines): the index merges the pieces of one name back into one road.
  if ((y - area.y0) % NATIONAL_EVERY === NATIONAL_EVERY / 2) {
    const name = nationalName(area, y);
    const line = [];
    for (let i = 0; i <= 8; i++) line.push([-64 + (i * (EXTENT + 128)) / 8, NATIONAL_Y]);
    layers.transportation_name.push({ type: 2, geometry: [line], tags: { name, ref: `N${(y - area.y0 - NATIONAL_EVERY / 2) / NATIONAL_EVERY + 1}`, class: 'trunk' } });
  }
  for (let p = 0; p < POIS_PER_TILE; p++) {
    const [cls, sub, word] = POI_CLASSES[Math.floor(r() * POI_CLASSES.length)];
    const name = poiName(word, t * POIS_PER_TILE + p);
    const px = 200 + Math.floor(r() * 3700);
    const py = 1400 + p * 200 + Math.floor(r() * 150);
    layers.poi.push({ type: 1, geometry: [[px, py]], tags: { name, class: cls, subclass: sub, rank: 1 + p } });
    pois.push({ name, class: cls, subclass: sub, lonlat: lonLat(14, x, y, px, py) });
  }
  for (const place of placesIn(area, x, y)) {
    layers.place.push({ type: 1, geometry: [[place.px, place.py]], tags: { name: place.name, class: place.cls, rank: place.rank } });
    places.push({ name: place.name, class: place.cls, lonlat: lonLat(14, x, y, place.px, place.py) });
  }
  return { streets, addresses, pois, places, layers };
}

/** The place of z14 tile x/y, if it has one (the first kind whose period divides the tile's index). */
function placesIn(area, x, y) {
  const t = tileIndex(area, x, y);
  const r = rng(seedOf(14, x, y, 0x9e3779b9));
  for (let i = 0; i < PLACE_KINDS.length; i++) {
    const k = PLACE_KINDS[i];
    if (t % k.every !== 0) continue;
    return [{ name: placeName(t), cls: k.cls, rank: i + 1, minzoom: k.minzoom, px: 500 + Math.floor(r() * 3000), py: 3300 + Math.floor(r() * 400) }];
  }
  return [];
}

/**
 * Filler layers of pseudo-random geometry: buildings (small quadrilaterals), roads (unnamed lines), landcover
 * (polygons). Their count sets the tile's weight: `buildings` per tile.
 */
function filler(z, x, y, buildings) {
  const r = rng(seedOf(z, x, y, 0x51ed270b));
  const building = [];
  for (let i = 0; i < buildings; i++) {
    const cx = Math.floor(r() * EXTENT);
    const cy = Math.floor(r() * EXTENT);
    const w = 8 + Math.floor(r() * 40);
    const h = 8 + Math.floor(r() * 40);
    const dx = Math.floor(r() * 9) - 4;
    const ring = [[cx, cy], [cx + w, cy + dx], [cx + w + dx, cy + h], [cx + dx, cy + h - dx], [cx, cy]];
    building.push({ type: 3, geometry: [ring], tags: { render_height: 3 + Math.floor(r() * 30) } });
  }
  const transportation = [];
  for (let i = 0; i < buildings / 20; i++) {
    const line = [];
    let px = Math.floor(r() * EXTENT);
    let py = Math.floor(r() * EXTENT);
    for (let v = 0; v < 8; v++) {
      line.push([px, py]);
      px += Math.floor(r() * 300) - 150;
      py += Math.floor(r() * 300) - 150;
    }
    transportation.push({ type: 2, geometry: [line], tags: { class: ['service', 'track', 'path', 'minor'][i % 4] } });
  }
  const landcover = [];
  for (let i = 0; i < 6; i++) {
    const ring = [];
    const cx = Math.floor(r() * EXTENT);
    const cy = Math.floor(r() * EXTENT);
    for (let v = 0; v < 24; v++) {
      const a = (v / 24) * 2 * Math.PI;
      const rad = 200 + Math.floor(r() * 300);
      ring.push([cx + Math.round(Math.cos(a) * rad), cy + Math.round(Math.sin(a) * rad)]);
    }
    ring.push(ring[0]);
    landcover.push({ type: 3, geometry: [ring], tags: { class: ['farmland', 'wood', 'grass'][i % 3] } });
  }
  return { building, transportation, landcover };
}

/** The places of a parent tile z/x/y (z < 14): those of its z14 tiles whose kind shows from z on. */
function parentPlaces(area, z, x, y) {
  const d = 2 ** (14 - z);
  const out = [];
  const fx0 = Math.max(area.x0, x * d);
  const fx1 = Math.min(area.x1, x * d + d - 1);
  const fy0 = Math.max(area.y0, y * d);
  const fy1 = Math.min(area.y1, y * d + d - 1);
  // Only the kinds that show at z (cities from 6, towns from 9...): walk the indexes that are multiples of them.
  const kinds = PLACE_KINDS.filter((k) => k.minzoom <= z);
  if (kinds.length === 0) return out;
  for (let ty = fy0; ty <= fy1; ty++) {
    for (let tx = fx0; tx <= fx1; tx++) {
      const t = tileIndex(area, tx, ty);
      if (!kinds.some((k) => t % k.every === 0)) continue;
      for (const p of placesIn(area, tx, ty)) {
        if (p.minzoom > z) continue;
        const gx = ((tx - x * d) * EXTENT + p.px) / d;
        const gy = ((ty - y * d) * EXTENT + p.py) / d;
        out.push({ type: 1, geometry: [[Math.floor(gx), Math.floor(gy)]], tags: { name: p.name, class: p.cls, rank: p.rank } });
      }
    }
  }
  return out;
}

const VECTOR_LAYERS = [
  { id: 'transportation_name', fields: { name: 'String', 'name:latin': 'String', class: 'String' } },
  { id: 'housenumber', fields: { housenumber: 'String' } },
  { id: 'poi', fields: { name: 'String', class: 'String', subclass: 'String', rank: 'Number' } },
  { id: 'place', fields: { name: 'String', class: 'String', rank: 'Number' } },
  { id: 'building', fields: { render_height: 'Number' } },
  { id: 'transportation', fields: { class: 'String' } },
  { id: 'landcover', fields: { class: 'String' } },
].map((l) => ({ ...l, minzoom: 0, maxzoom: 14 }));

const LABELS_PER_TILE = { address: STREETS_PER_TILE * HOUSES_PER_SIDE * 2, road: STREETS_PER_TILE, poi: POIS_PER_TILE };

module.exports = {
  EXTENT,
  areaOf,
  z14Content,
  filler,
  parentPlaces,
  lonLat,
  rng,
  VECTOR_LAYERS,
  LABELS_PER_TILE,
  nationalRoads,
  PLACE_KINDS,
};
