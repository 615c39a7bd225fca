// Structural checks of OGC API - Tiles JSON documents, written from the model tables of OGC 17-083r4 (Two
// Dimensional Tile Matrix Set and Tile Set Metadata 2.0) and the requirements of OGC 20-057 (Tiles Part 1): which
// members a tile matrix set, a tile matrix, a tile set and a tilesets list must carry, and what type each member
// (required or optional) has when present. Each problem names the member's path and the requirement it breaks.
// These are our reading of the standard's text, not the OGC's JSON schemas: members the tables leave open
// (extensions such as `type` or `topLeftCorner`) are allowed, as the schemas allow additional properties.
import { TILING_SCHEME } from './ogcapi';

/** The URI prefix of the OGC tile matrix set register (17-083r4 Annex D). */
export const REGISTERED_TMS_PREFIX = 'http://www.opengis.net/def/tilematrixset/OGC/1.0/';

const REQ = {
  tms: '17-083r4 /req/json-tilematrixset/model: TileMatrixSet',
  matrix: '17-083r4 /req/json-tilematrixset/model: TileMatrix',
  variableWidth: '17-083r4 /req/variablematrixwidth/model: VariableMatrixWidth',
  tileSet: '17-083r4 /req/json-tilesetmetadata/model: TileSetMetadata',
  identifier: '17-083r4 /req/tilesetmetadata/identifier A',
  limits: '17-083r4 /req/tilematrixsetlimits/model: TileMatrixLimits',
  item: '20-057 /req/tileset/description E',
  list: '20-057 /req/tilesets-list/tileset-links',
};

/** What a value must be, as a phrase ("a string"), and whether a value is that. */
interface Kind {
  what: string;
  test(v: unknown, path: string, req: string, out: string[]): boolean;
}

const isObject = (v: unknown): v is Record<string, unknown> => !!v && typeof v === 'object' && !Array.isArray(v);
const show = (v: unknown): string => (v === undefined ? 'nothing' : (JSON.stringify(v) ?? String(v)).slice(0, 80));
const simple = (what: string, test: (v: unknown) => boolean): Kind => ({ what, test: (v) => test(v) });

const str = simple('a string', (v) => typeof v === 'string');
const num = simple('a number', (v) => typeof v === 'number' && Number.isFinite(v));
const positive = simple('a positive number', (v) => typeof v === 'number' && Number.isFinite(v) && v > 0);
const int = (min: number): Kind => simple(min === 0 ? 'a non-negative integer' : min === 1 ? 'a positive integer' : `an integer >= ${min}`, (v) => typeof v === 'number' && Number.isInteger(v) && v >= min);
const oneOf = (...values: string[]): Kind => simple(`one of ${values.join(', ')}`, (v) => typeof v === 'string' && values.includes(v));
const strings = simple('an array of strings', (v) => Array.isArray(v) && v.every((s) => typeof s === 'string'));
const point2 = simple('an array of 2 numbers', (v) => Array.isArray(v) && v.length === 2 && v.every((n) => typeof n === 'number' && Number.isFinite(n)));
const absoluteUri = simple('an absolute URI string', (v) => {
  if (typeof v !== 'string') return false;
  try {
    return !!new URL(v).protocol;
  } catch {
    return false;
  }
});
/** 17-083r4 CRSType: a URI string, or an object with a uri, a wkt (PROJJSON object or WKT string) or a referenceSystem object. */
const crs = simple('a CRS: a URI string or an object with uri, wkt or referenceSystem', (v) => {
  if (typeof v === 'string') return v.length > 0;
  if (!isObject(v)) return false;
  return typeof v.uri === 'string' || isObject(v.wkt) || typeof v.wkt === 'string' || isObject(v.referenceSystem);
});

/** An object whose members follow `spec` ([required, kind] per member name), its problems cited to `req`. */
function object(what: string, spec: Record<string, [boolean, Kind]>, req: string): Kind {
  return {
    what,
    test(v, path, _req, out) {
      if (!isObject(v)) return false;
      members(v, path, spec, req, out);
      return true;
    },
  };
}

/** An array (at least `min` items) of items of one kind; each item's problems reported at its index. */
function arrayOf(item: Kind, min = 0): Kind {
  return {
    what: `an array${min ? ` of at least ${min} item${min > 1 ? 's' : ''}` : ''}, each ${item.what}`,
    test(v, path, req, out) {
      if (!Array.isArray(v) || v.length < min) return false;
      v.forEach((x, i) => check(x, item, `${path}[${i}]`, req, out));
      return true;
    },
  };
}

function check(v: unknown, kind: Kind, path: string, req: string, out: string[]): void {
  if (!kind.test(v, path, req, out)) out.push(`${path}: ${show(v)}, expected ${kind.what} (${req})`);
}

function members(obj: Record<string, unknown>, path: string, spec: Record<string, [boolean, Kind]>, req: string, out: string[]): void {
  for (const [name, [required, kind]] of Object.entries(spec)) {
    const at = path ? `${path}.${name}` : name;
    if (obj[name] === undefined) {
      if (required) out.push(`${at}: missing, a required member (${kind.what}) (${req})`);
    } else check(obj[name], kind, at, req, out);
  }
}

const described = { title: [false, str], description: [false, str], keywords: [false, strings] } satisfies Record<string, [boolean, Kind]>;

const boundingBox = object(
  'a 2DBoundingBox (lowerLeft, upperRight)',
  { lowerLeft: [true, point2], upperRight: [true, point2], crs: [false, crs], orderedAxes: [false, strings] },
  '17-083r4 2DBoundingBox',
);

const link = object('a link (href, rel)', { href: [true, str], rel: [true, str], type: [false, str], title: [false, str], templated: [false, simple('a boolean', (v) => typeof v === 'boolean')] }, 'OGC API - Common link');

const variableMatrixWidth = object('a VariableMatrixWidth', { coalesce: [true, int(2)], minTileRow: [true, int(0)], maxTileRow: [true, int(0)] }, REQ.variableWidth);

const tileMatrix = object(
  'a TileMatrix',
  {
    ...described,
    id: [true, str],
    scaleDenominator: [true, positive],
    cellSize: [true, positive],
    cornerOfOrigin: [false, oneOf('topLeft', 'bottomLeft')],
    pointOfOrigin: [true, point2],
    tileWidth: [true, int(1)],
    tileHeight: [true, int(1)],
    matrixWidth: [true, int(1)],
    matrixHeight: [true, int(1)],
    variableMatrixWidths: [false, arrayOf(variableMatrixWidth)],
  },
  REQ.matrix,
);

const TILE_MATRIX_SET: Record<string, [boolean, Kind]> = {
  ...described,
  id: [false, str],
  uri: [false, absoluteUri],
  orderedAxes: [false, strings],
  crs: [true, crs],
  wellKnownScaleSet: [false, absoluteUri],
  boundingBox: [false, boundingBox],
  tileMatrices: [true, arrayOf(tileMatrix, 1)],
};

const tileMatrixLimits = object(
  'a TileMatrixLimits',
  { tileMatrix: [true, str], minTileRow: [true, int(0)], maxTileRow: [true, int(0)], minTileCol: [true, int(0)], maxTileCol: [true, int(0)] },
  REQ.limits,
);

const DATA_TYPE = oneOf('map', 'vector', 'coverage');

const TILE_SET: Record<string, [boolean, Kind]> = {
  ...described,
  version: [false, str],
  pointOfContact: [false, str],
  attribution: [false, str],
  license: [false, str],
  mediaTypes: [false, strings],
  dataType: [true, DATA_TYPE],
  tileMatrixSetLimits: [false, arrayOf(tileMatrixLimits)],
  crs: [true, crs],
  epoch: [false, num],
  boundingBox: [false, boundingBox],
  created: [false, str],
  updated: [false, str],
  layers: [false, arrayOf(object('a GeospatialData layer', { ...described, id: [true, str], dataType: [true, DATA_TYPE] }, `${REQ.tileSet} layers`))],
  style: [false, object('a Style', { id: [true, str] }, `${REQ.tileSet} style`)],
  centerPoint: [false, object('a TilePoint', { coordinates: [true, point2], tileMatrix: [false, str] }, `${REQ.tileSet} centerPoint`)],
  tileMatrixSet: [false, object('a TileMatrixSet', TILE_MATRIX_SET, REQ.tms)],
  tileMatrixSetURI: [false, absoluteUri],
  links: [true, arrayOf(link)],
};

/** What does not follow 17-083r4's TileMatrixSet and TileMatrix structure in a tile matrix set document. */
export function tileMatrixSetProblems(doc: unknown): string[] {
  return documentProblems(doc, TILE_MATRIX_SET, REQ.tms);
}

/** A whole document's problems: it must be a JSON object whose members follow `spec`. */
function documentProblems(doc: unknown, spec: Record<string, [boolean, Kind]>, req: string): string[] {
  if (!isObject(doc)) return [`(root): ${show(doc)}, expected a JSON object (${req})`];
  const out: string[] = [];
  members(doc, '', spec, req, out);
  return out;
}

/** What does not follow 17-083r4's TileSetMetadata (and 20-057's tileset description links) in a tileset document. */
export function tileSetProblems(doc: unknown): string[] {
  const out = documentProblems(doc, TILE_SET, REQ.tileSet);
  if (!isObject(doc)) return out;
  const links = (Array.isArray(doc.links) ? doc.links : []).filter(isObject);
  if (!links.some((l) => l.rel === TILING_SCHEME) && !isObject(doc.tileMatrixSet)) {
    out.push(`links: no link rel="${TILING_SCHEME}" and no tileMatrixSet object: the tile matrix set is neither linked nor included (${REQ.identifier})`);
  }
  if (!links.some((l) => l.rel === 'item' && l.templated === true)) out.push(`links: no templated link rel="item" to the tiles (${REQ.item})`);
  return out;
}

const tilesetsListEntry = object(
  'a tileset entry (dataType, crs, links)',
  { title: [false, str], dataType: [true, DATA_TYPE], crs: [true, crs], tileMatrixSetURI: [false, absoluteUri], links: [true, arrayOf(link)] },
  REQ.list,
);

/** What does not follow the tilesets list of 20-057 /req/tilesets-list/tileset-links: a tilesets array of entries with dataType, crs and links. */
export function tilesetsListProblems(doc: unknown): string[] {
  return documentProblems(doc, { links: [false, arrayOf(link)], tilesets: [true, arrayOf(tilesetsListEntry)] }, REQ.list);
}
