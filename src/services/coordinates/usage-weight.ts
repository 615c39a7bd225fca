// How much each EPSG object is used, as a number the search ranks by (a prior that multiplies how well an object
// matches the terms), and how well an object's area of use fits a country. Derived from the registry itself when
// the coordinates index is built (search-tables.ts); the rule, its terms and why are in
// docs/decisions/0028-crs-search-usage-weight.md. Pure functions.

/** A usage record of an object: its extent's box (degrees; west > east crosses the antimeridian) and scope text. */
export interface UsageArea {
  west: number;
  south: number;
  east: number;
  north: number;
  scope: string;
}

/** What the registry says about a geodetic CRS (or a datum's CRS) that others build on. */
export interface DatumRefs {
  /** Non-deprecated EPSG transformations (and concatenated operations) from or to it. */
  transformations: number;
  /** Of those, the grid-based ones: a national agency published a grid for it. */
  grids: number;
  /** Non-deprecated compound CRS with it as the horizontal part. */
  compounds: number;
  /** Non-deprecated projected CRS on it. */
  projected: number;
}

/**
 * How much the registry builds on a geodetic CRS: its transformations, grid transformations again (a grid is a
 * national agency's investment), compound CRS twice (a national height system paired with it) and a fifth of its
 * projected CRS (many zones say how far it spreads more than how much it is used).
 */
export function datumReferences(r: DatumRefs): number {
  return r.transformations + r.grids + 2 * r.compounds + 0.2 * r.projected;
}

/** Kinds a user looks for first: projected before geographic 2D, then the rest (3D, geocentric, vertical, compound). */
export const KIND_FACTOR: Readonly<Record<string, number>> = {
  'CRS-PROJCRS': 1,
  'CRS-GEOGCRS': 0.6,
  'CRS-GEOG3DCRS': 0.15,
  'CRS-GCENCRS': 0.15,
  'CRS-COMPOUNDCRS': 0.2,
  'CRS-VERTCRS': 0.2,
  'CRS-ENGCRS': 0.2,
};
/** Every other kind (datums, operations, ellipsoids …), met only with `kind:` filters or `kind:*`. */
export const OTHER_KIND_FACTOR = 0.5;
/**
 * An axis-order variant of a projected CRS (its name plus "(N-E)", "(E-N)" …, same base and conversion), added
 * for one community's software: data and GIS users use the original (25830 rather than 3042, whose eight ETRS-TM
 * aliases would otherwise rank it first; 31467 rather than 5677, whose GIS scope would).
 */
export const VARIANT_FACTOR = 0.3;
/** Deprecated objects (shown with `deprecated:*` or `deprecated:1`) rank after the ones in use. */
export const DEPRECATED_FACTOR = 0.3;

/**
 * World and continental systems everyone means (epsg.io's list of well-known systems, kept to the ones that are not
 * a country's: a country's systems are ranked by the registry's data alone). Weight multiplied by 1 + 4 × value.
 */
export const FAMOUS: Readonly<Record<number, number>> = {
  4326: 1, 3857: 1, 4258: 0.5, 4269: 0.5, 3395: 0.3, 3035: 0.3, 4979: 0.3, 4978: 0.2,
};

/**
 * What a scope says about how much an object is used: cadastre, GIS, web mapping and spatial data management are
 * the everyday uses (1.5); unknown, unofficial, intermediate and single-industry scopes (oil and gas, mining,
 * military, railways, highways, hydrography) are narrow (0.6); the rest (mapping, survey, geodesy …) 1. The best of
 * an object's usages counts.
 */
export function scopeFactor(scopes: readonly string[]): number {
  let best = 0;
  for (const scope of scopes) {
    const s = scope.toLowerCase();
    const f = /cadastr|\bgis\b|web mapping|spatial data/.test(s)
      ? 1.5
      : /not known|not recommended|no official|intermediate|oil|exploration|minerals|military|seismic|railway|highway|hydrograph/.test(s)
        ? 0.6
        : 1;
    best = Math.max(best, f);
  }
  return best || 1;
}

export interface WeightInput {
  kind: string;
  code: number;
  deprecated: boolean;
  /** The largest area of its usages, square degrees scaled by cos(latitude). */
  area: number;
  aliases: number;
  /** Non-deprecated compound CRS built on it (projected CRS only: a national height system paired with it). */
  compounds: number;
  scopes: readonly string[];
  /** A projected CRS that is another's axis-order variant (search-tables.ts): "ETRS89 / UTM zone 30N (N-E)". */
  variant?: boolean;
  /**
   * The datum's share the object draws on: for a geodetic CRS its own references; for a projected CRS (or a compound
   * through its horizontal part) its base's references divided by √(projected CRS on that base), so a datum with 400
   * zones lends each less than one with 2.
   */
  datum: number;
}

/**
 * The usage weight: log2(2 + datum) × area^¼ × √(1 + compounds) × √(1 + aliases) × scope × famous, times the
 * kind's factor (and the deprecated factor). Each term is a thing the registry records because an object is used:
 * what builds on its datum, how far it reaches, national height systems paired with it, the other names it is known
 * by (national, ESRI, older EPSG names), what it is used for.
 */
export function usageWeight(w: WeightInput): number {
  const crs = w.kind.startsWith('CRS-');
  let v =
    Math.log2(2 + w.datum) *
    Math.pow(Math.max(w.area, 1e-3), 0.25) *
    Math.sqrt(1 + w.compounds) *
    Math.sqrt(1 + w.aliases) *
    scopeFactor(w.scopes);
  if (crs && w.kind !== 'CRS-COMPOUNDCRS') v *= 1 + 4 * (FAMOUS[w.code] ?? 0);
  v *= crs ? (KIND_FACTOR[w.kind] ?? OTHER_KIND_FACTOR) : OTHER_KIND_FACTOR;
  if (w.variant) v *= VARIANT_FACTOR;
  return w.deprecated ? v * DEPRECATED_FACTOR : v;
}

export interface Box {
  west: number;
  south: number;
  east: number;
  north: number;
}

const RAD = Math.PI / 180;

/** The longitude spans of a box (two when it crosses the antimeridian). */
function spans(b: Box): [number, number][] {
  return b.west <= b.east ? [[b.west, b.east]] : [[b.west, 180], [-180, b.east]];
}

/** A box's area in square degrees scaled by cos(mean latitude): proportional to its area on the sphere. */
export function boxArea(b: Box): number {
  const width = spans(b).reduce((s, [w, e]) => s + (e - w), 0);
  return Math.max(0, width * (b.north - b.south) * Math.cos(((b.north + b.south) / 2) * RAD));
}

function intersection(a: Box, b: Box): number {
  const s = Math.max(a.south, b.south);
  const n = Math.min(a.north, b.north);
  if (n <= s) return 0;
  let width = 0;
  for (const [aw, ae] of spans(a)) for (const [bw, be] of spans(b)) width += Math.max(0, Math.min(ae, be) - Math.max(aw, bw));
  return width * (n - s) * Math.cos(((n + s) / 2) * RAD);
}

/**
 * How well an area of use fits a country (0..1): the share of the country's main land it covers times the square
 * of the share of the area's land that is that country. The area's land is what it shares with each country its
 * description names (a UTM zone "by country" is those countries' strips, not the sea and the countries between), or
 * its whole box when it names none whose box is known. Squared, so that a system of many countries ranks well
 * below each country's own even when its usage weight is five times theirs: a national grid over the whole country
 * is 1; a zone over half of a country that is half its land 0.125; a continental system (LAEA Europe for Sweden)
 * a few thousandths. Without the country's box: 1 / the countries the area names.
 */
export function countryFit(area: Box, country: Box | undefined, named: readonly (Box | undefined)[]): number {
  if (!country) return 1 / Math.max(1, named.length);
  const both = intersection(area, country);
  if (both <= 0) return 0;
  let land = 0;
  for (const c of named) if (c) land += intersection(area, c);
  if (land < both) land = boxArea(area);
  return Math.min(1, both / Math.max(boxArea(country), 1e-9)) * Math.min(1, both / Math.max(land, 1e-9)) ** 2;
}
