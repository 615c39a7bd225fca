// Tile grids other than Web Mercator: the OGC 2D-TMS registry's WorldCRS84Quad, EuropeanETRS89_LAEAQuad and
// UTM01WGS84Quad..UTM60WGS84Quad (their definitions, OGC 17-083r4 Annex D and the registry's JSON, generated here
// from their origin and first cell size), and grids an operator defines (a national grid such as Swiss LV95).
// Pure: a grid's matrices, a tile's bounds in the grid's CRS. Tiles of these grids are drawn from the Web Mercator
// tiles (services/wms/get-map.ts).

/** Metres per degree as OGC computes scale denominators of geographic CRS (6378137 × 2π / 360). */
const METRES_PER_DEGREE = (6378137 * 2 * Math.PI) / 360;
/** The standardized rendering pixel size of OGC scale denominators: 0.28 mm. */
const PIXEL_SIZE_M = 0.00028;

export interface GridMatrix {
  /** Identifier (the zoom as a string). */
  id: string;
  /** CRS units per pixel. */
  cellSize: number;
  scaleDenominator: number;
  matrixWidth: number;
  matrixHeight: number;
}

export interface Grid {
  /** Identifier in WMTS and OGC API (the registry's, or the operator's). */
  id: string;
  title: string;
  /** The registry URI of a registered grid. */
  uri?: string;
  /** EPSG code PROJ draws in (4326 for CRS84, with longitude first). */
  epsg: number;
  /** The CRS as OGC API names it (an http URI) and as WMTS names it (a URN). */
  crsUri: string;
  crsUrn: string;
  /** The CRS's axes are northing (or latitude) first: WMTS TopLeftCorner and TMS pointOfOrigin are written so. */
  northFirst: boolean;
  /** The CRS's axes in its order, as 2D-TMS 2.0 `orderedAxes` names them (the registry's JSON for a registered grid). */
  orderedAxes: [string, string];
  wellKnownScaleSet?: { uri: string; urn: string };
  tileSize: number;
  /** Top-left corner of every matrix, easting (or longitude) first. */
  origin: [number, number];
  matrices: GridMatrix[];
  /** Where the grid is meant to be used (lon/lat): a layer is offered in it when their areas meet. */
  area: [number, number, number, number];
}

const unitMetres = (geographic: boolean): number => (geographic ? METRES_PER_DEGREE : 1);

/** Matrices from zoom `first` to `last`, each twice as fine as the one before. */
function quadMatrices(first: number, last: number, firstCell: number, size: (z: number) => [number, number], geographic: boolean): GridMatrix[] {
  const out: GridMatrix[] = [];
  for (let z = first; z <= last; z++) {
    const cellSize = firstCell / 2 ** (z - first);
    const [matrixWidth, matrixHeight] = size(z);
    out.push({ id: String(z), cellSize, scaleDenominator: (cellSize * unitMetres(geographic)) / PIXEL_SIZE_M, matrixWidth, matrixHeight });
  }
  return out;
}

/** WorldCRS84Quad: longitude and latitude, two tiles at zoom 0. */
function worldCrs84Quad(): Grid {
  return {
    id: 'WorldCRS84Quad',
    title: 'CRS84 for the World',
    uri: 'http://www.opengis.net/def/tilematrixset/OGC/1.0/WorldCRS84Quad',
    epsg: 4326,
    crsUri: 'http://www.opengis.net/def/crs/OGC/1.3/CRS84',
    crsUrn: 'urn:ogc:def:crs:OGC:1.3:CRS84',
    northFirst: false,
    orderedAxes: ['Lon', 'Lat'],
    wellKnownScaleSet: { uri: 'http://www.opengis.net/def/wkss/OGC/1.0/GoogleCRS84Quad', urn: 'urn:ogc:def:wkss:OGC:1.0:GoogleCRS84Quad' },
    tileSize: 256,
    origin: [-180, 90],
    matrices: quadMatrices(0, 23, 0.703125, (z) => [2 ** (z + 1), 2 ** z], true),
    area: [-180, -90, 180, 90],
  };
}

/** EuropeanETRS89_LAEAQuad: EPSG:3035 (northing first), one tile at zoom 0. */
function europeanLaeaQuad(): Grid {
  return {
    id: 'EuropeanETRS89_LAEAQuad',
    title: 'Lambert Azimuthal Equal Area ETRS89 for Europe',
    uri: 'http://www.opengis.net/def/tilematrixset/OGC/1.0/EuropeanETRS89_LAEAQuad',
    epsg: 3035,
    crsUri: 'http://www.opengis.net/def/crs/EPSG/0/3035',
    crsUrn: 'urn:ogc:def:crs:EPSG::3035',
    northFirst: true,
    orderedAxes: ['Y', 'X'],
    tileSize: 256,
    origin: [2000000, 5500000],
    matrices: quadMatrices(0, 15, 17578.125, (z) => [2 ** z, 2 ** z], false),
    // EPSG:3035's area of use.
    area: [-35.58, 24.6, 44.83, 84.73],
  };
}

/** UTM{zone}WGS84Quad: EPSG:326{zone}, from zoom 1 (one tile across, two down: both hemispheres). */
function utmQuad(zone: number): Grid {
  const nn = String(zone).padStart(2, '0');
  const west = -180 + (zone - 1) * 6;
  return {
    id: `UTM${nn}WGS84Quad`,
    title: `Universal Transverse Mercator Zone ${zone} WGS84 Quad`,
    uri: `http://www.opengis.net/def/tilematrixset/OGC/1.0/UTM${nn}WGS84Quad`,
    epsg: 32600 + zone,
    crsUri: `http://www.opengis.net/def/crs/EPSG/0/${32600 + zone}`,
    crsUrn: `urn:ogc:def:crs:EPSG::${32600 + zone}`,
    northFirst: false,
    orderedAxes: ['E', 'N'],
    tileSize: 256,
    origin: [-9501965.72931276, 20003931.4586255],
    matrices: quadMatrices(1, 24, 78140.3572602559, (z) => [2 ** (z - 1), 2 ** z], false),
    area: [west, -80, west + 6, 84],
  };
}

/** The registered grids by identifier. */
export function registeredGrid(id: string): Grid | undefined {
  if (id === 'WorldCRS84Quad') return worldCrs84Quad();
  if (id === 'EuropeanETRS89_LAEAQuad') return europeanLaeaQuad();
  const utm = /^UTM(\d\d)WGS84Quad$/.exec(id);
  if (utm && Number(utm[1]) >= 1 && Number(utm[1]) <= 60) return utmQuad(Number(utm[1]));
  return undefined;
}

/** What an operator writes to define a grid (the `grids` section of the configuration). */
export interface GridDefinition {
  id: string;
  title?: string;
  /** EPSG code of the CRS. */
  crs: number;
  /** Top-left corner, easting first. */
  origin: [number, number];
  /** The grid's extent, easting first: [minX, minY, maxX, maxY]; matrices cover it from the origin. */
  extent: [number, number, number, number];
  tileSize: number;
  /** CRS units per pixel, coarsest first (one per zoom). */
  resolutions: number[];
  /** True when the CRS's axes are northing first (read from PROJ's registry when the grid is built). */
  northFirst: boolean;
  /** Where it is meant to be used (lon/lat): the CRS's area of use. */
  area: [number, number, number, number];
  /** The CRS's unit is the degree. */
  geographic: boolean;
}

/**
 * The axes of an operator's CRS as `orderedAxes` names them. What PROJ's registry gives here is which comes first,
 * not the CRS's own abbreviations: they are named as the registry's sets name theirs (Lon/Lat, E/N), in that order.
 */
function axesOf(d: GridDefinition): [string, string] {
  if (d.geographic) return d.northFirst ? ['Lat', 'Lon'] : ['Lon', 'Lat'];
  return d.northFirst ? ['N', 'E'] : ['E', 'N'];
}

/** A grid an operator defined: its matrices cover the extent from the origin at each resolution. */
export function definedGrid(d: GridDefinition): Grid {
  const span = (res: number): [number, number] => [
    Math.max(1, Math.ceil((d.extent[2] - d.origin[0]) / (res * d.tileSize) - 1e-9)),
    Math.max(1, Math.ceil((d.origin[1] - d.extent[1]) / (res * d.tileSize) - 1e-9)),
  ];
  return {
    id: d.id,
    title: d.title ?? d.id,
    epsg: d.crs,
    crsUri: `http://www.opengis.net/def/crs/EPSG/0/${d.crs}`,
    crsUrn: `urn:ogc:def:crs:EPSG::${d.crs}`,
    northFirst: d.northFirst,
    orderedAxes: axesOf(d),
    tileSize: d.tileSize,
    origin: d.origin,
    matrices: d.resolutions.map((cellSize, z) => {
      const [matrixWidth, matrixHeight] = span(cellSize);
      return { id: String(z), cellSize, scaleDenominator: (cellSize * unitMetres(d.geographic)) / PIXEL_SIZE_M, matrixWidth, matrixHeight };
    }),
    area: d.area,
  };
}

/** The bounds of a tile in the grid's CRS, easting first: [minX, minY, maxX, maxY]. */
export function gridTileBounds(grid: Grid, m: GridMatrix, row: number, col: number): [number, number, number, number] {
  const span = m.cellSize * grid.tileSize;
  const minX = grid.origin[0] + col * span;
  const maxY = grid.origin[1] - row * span;
  return [minX, maxY - span, minX + span, maxY];
}

/** Whether two lon/lat boxes meet. */
export function areasMeet(a: readonly number[], b: readonly number[]): boolean {
  return a[0] <= b[2] && b[0] <= a[2] && a[1] <= b[3] && b[1] <= a[3];
}
