// Builds the label index of one vector tile set: one SQLite file (labels with the grid cell of their position +
// FTS5 over normalised names + the vocabulary for typo candidates), written to a temporary file and renamed into
// place. The work is cut into slices that yield to the event loop (setImmediate), so a server building in the
// background keeps answering. The tile set is read through the store's tile reader (its scan), whatever file
// holds it (MBTiles or PMTiles); the scan holds nothing open while the build yields.
//
// Steps: (1) every tile of the deepest zoom holding tiles → labels (points kept in the tile proper), road pieces
// and their segments filed by grid cell, house numbers set aside; (2) the pieces of one street name within
// MERGE_METERS of each other become one road, placed at its vertex nearest the middle of its extent; (3) house
// numbers without `addr:street` take the name of the nearest road within STREET_METERS; (4) the labels, staged by
// the steps before, numbered in position order and written with their full-text entries (so the labels of a range
// of cells are a range of ids); (5) the vocabulary and the indexes on type and position. Each label is staged once,
// in the step that knows all of it, and written once: no label is updated after.
//
// Cost at size (a synthetic country of 5.3 M labels, bench/country.js): every step is linear in the labels and
// reads them in pages, so memory stays bounded whatever the set's size. The street lookup of step (3) reads road
// segments from a B-tree keyed by a grid cell (a sort after step 1, then a few point lookups per house), not from
// an R*Tree of densified vertices: inserting ~60 vertices a street into an R*Tree was 40 % of the build. Positions
// are a B-tree on (cell, lon, lat) too, sorted once at the end: one R*Tree insert a label was the largest part of
// the build left (2.4 of 13 CPU s at scale 0.05), a sort of the same rows ~0.1 s.

import Database from 'better-sqlite3';
import { randomBytes } from 'node:crypto';
import { renameSync, rmSync, statSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { isGzip } from '../../store/bytes/formats';
import type { ScannedTile, TileReader } from '../../store/tile-reader';
import { extractLabels, type ExtractedLabel } from './labels-extract';
import {
  CATEGORY_GRID,
  categoryColumn,
  categoryList,
  createLabelTables,
  finishLabelIndex,
  indexLabels,
  LABEL_INDEX_FORMAT,
  labelBuildStatements,
  labelCounts,
  labelMergeStatements,
  positionCell,
  positionColumn,
  positionRow,
  stagedInPositionOrder,
  type PieceRow,
} from './labels-sql';
import { words } from './labels-text';


/** Two pieces of a street with the same name closer than this are one street. */
export const MERGE_METERS = 150;
/** A house number without its own street takes the nearest named road within this distance. */
export const STREET_METERS = 100;
/** Side of the grid cells of the street lookup (degrees): ~550 m of latitude, well above STREET_METERS, so a segment
 * mostly lies in one or two cells and a house looks in one to four. */
const CELL_DEG = 0.005;

const M_PER_DEG = 111_320;
/**
 * Tiles decoded per transaction of the index (then the build may yield). A transaction cannot yield: at ~1.5 ms a
 * country tile (16 KB gzipped: inflate, decode, ~20 labels), 8 keep a server building in the background answering
 * within ~12 ms of CPU; 32 held it ~50 ms.
 */
const TILE_BATCH = 8;
/** Labels written per transaction of the full-text and position indexes (~20 µs each). */
const LABEL_PAGE = 500;
/**
 * Transactions of a build with its thread to itself (`alone`): nothing waits on its event loop, so they are long.
 * Fewer commits write each B-tree page fewer times, and FTS5 writes one segment per transaction, so fewer
 * segments are left to merge.
 */
const ALONE_TILE_BATCH = 128;
const ALONE_LABEL_PAGE = 10_000;

export interface LabelIndexStats {
  labels: number;
  byType: Record<string, number>;
  tiles: number;
  zoom: number;
  bytes: number;
  ms: number;
  /** House numbers given a street by proximity (the others had their own or none within reach). */
  streetsDerived: number;
}

export interface BuildOptions {
  /** Work at most this long before yielding to the event loop (ms). */
  sliceMs?: number;
  /** Stops the build (the temporary file is removed). */
  signal?: AbortSignal;
  /** The build has its thread to itself (a worker): long transactions, no slices. */
  alone?: boolean;
  /** The temporary file renamed onto the target when complete (default: beside it, a name of its own). */
  tmp?: string;
}

/** The grid cell of a position (row-major over the world: 36,000 rows of 72,000 columns). */
const cellOf = (col: number, row: number) => row * 72_000 + col;
const colOf = (lon: number) => Math.floor((lon + 180) / CELL_DEG);
const rowOf = (lat: number) => Math.floor((lat + 90) / CELL_DEG);

/** Metres from a point to a segment, on the plane tangent at the point (segments are at most a cell long). */
export function metersToSegment(lon: number, lat: number, x1: number, y1: number, x2: number, y2: number): number {
  const k = Math.cos((lat * Math.PI) / 180);
  const ax = (x1 - lon) * k;
  const ay = y1 - lat;
  const dx = (x2 - x1) * k;
  const dy = y2 - y1;
  const len2 = dx * dx + dy * dy;
  const t = len2 > 0 ? Math.max(0, Math.min(1, -(ax * dx + ay * dy) / len2)) : 0;
  return Math.hypot(ax + t * dx, ay + t * dy) * M_PER_DEG;
}

function metersBetween(lon1: number, lat1: number, lon2: number, lat2: number): number {
  const x = (lon2 - lon1) * Math.cos((((lat1 + lat2) / 2) * Math.PI) / 180);
  return Math.hypot(x, lat2 - lat1) * M_PER_DEG;
}

/** The segments of one road piece within one cell: its name and x1, y1, x2, y2 of each segment, in turn. */
interface CellSegments {
  name: string;
  coords: Float64Array;
}

/** Float64 values of a blob (copied when the blob's bytes are not 8-aligned). */
function float64s(blob: Buffer): Float64Array {
  if (blob.byteOffset % 8 === 0) return new Float64Array(blob.buffer, blob.byteOffset, blob.length / 8);
  return new Float64Array(new Uint8Array(blob).buffer);
}

const tick = () => new Promise<void>((r) => setImmediate(r));

/**
 * Builds the index of the tile set `tileset` (its main pyramid) into `target` (atomically: a temporary file renamed
 * onto it). The index records the set's id, content version and attribution from `tileset.info`.
 */
export async function buildLabelIndex(tileset: TileReader, target: string, opts: BuildOptions = {}): Promise<LabelIndexStats> {
  const started = Date.now();
  const sliceMs = opts.sliceMs ?? 20;
  const tileBatch = opts.alone ? ALONE_TILE_BATCH : TILE_BATCH;
  const labelPage = opts.alone ? ALONE_LABEL_PAGE : LABEL_PAGE;
  let sliceStart = Date.now();
  const maybeYield = async () => {
    if (Date.now() - sliceStart < sliceMs) return;
    await tick();
    if (opts.signal?.aborted) throw new Error('label index build aborted');
    sliceStart = Date.now();
  };
  const tmp = opts.tmp ?? `${target}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  const db = new Database(tmp);
  try {
    db.pragma('journal_mode = OFF');
    db.pragma('synchronous = OFF');
    createLabelTables(db);
    const { stageLabel, insertLabel, insertFts, insertCategory, insertHouse, insertPiece, insertSeg } = labelBuildStatements(db);
    let tiles = 0;

    // A label in its final form, staged: its row (with its position's cell) and its full-text entry (the indexed
    // name, and its names in other languages that differ from it). Each label is staged once, in the step that knows
    // all of it; step (4) numbers them in position order.
    const addLabel = (type: string, placeType: string, name: string, names: Record<string, string>, categories: string, housenumber: string | null, street: string | null, lon: number, lat: number) => {
      const main = words(housenumber ? `${housenumber} ${street ?? ''}` : name).join(' ');
      const alt = new Set<string>();
      for (const n of Object.values(names)) {
        const w = words(n).join(' ');
        if (w !== main) alt.add(w);
      }
      stageLabel.run(positionCell(positionColumn(lon), positionRow(lat)), lon, lat, type, placeType, name, JSON.stringify(names), categories, housenumber, street, main, [...alt].join(' ; '));
    };

    const addRoadPiece = (l: ExtractedLabel, line: [number, number][]) => {
      if (line.length === 0) return;
      let minx = Infinity;
      let miny = Infinity;
      let maxx = -Infinity;
      let maxy = -Infinity;
      for (const [x, y] of line) {
        minx = Math.min(minx, x);
        miny = Math.min(miny, y);
        maxx = Math.max(maxx, x);
        maxy = Math.max(maxy, y);
      }
      insertPiece.run(l.name, JSON.stringify(l.names), categoryColumn(l.categories), minx, miny, maxx, maxy, JSON.stringify(line));
      // Each segment, cut into parts no longer than a cell, is filed under every cell its part's extent covers
      // (at most four): a house then looks in the cells within STREET_METERS of it only. A piece's parts in one
      // cell are one row (a blob of coordinates), not one row a part: fewer rows to write, sort and read.
      const byCell = new Map<number, number[]>();
      const file = (cell: number, x1: number, y1: number, x2: number, y2: number) => {
        const list = byCell.get(cell);
        if (list) list.push(x1, y1, x2, y2);
        else byCell.set(cell, [x1, y1, x2, y2]);
      };
      for (let i = 0; i + 1 < line.length; i++) {
        const [ax, ay] = line[i];
        const [bx, by] = line[i + 1];
        const parts = Math.max(1, Math.ceil(Math.max(Math.abs(bx - ax), Math.abs(by - ay)) / CELL_DEG));
        for (let s = 0; s < parts; s++) {
          const x1 = ax + ((bx - ax) * s) / parts;
          const y1 = ay + ((by - ay) * s) / parts;
          const x2 = ax + ((bx - ax) * (s + 1)) / parts;
          const y2 = ay + ((by - ay) * (s + 1)) / parts;
          for (let col = colOf(Math.min(x1, x2)); col <= colOf(Math.max(x1, x2)); col++) {
            for (let row = rowOf(Math.min(y1, y2)); row <= rowOf(Math.max(y1, y2)); row++) file(cellOf(col, row), x1, y1, x2, y2);
          }
        }
      }
      if (line.length === 1) file(cellOf(colOf(line[0][0]), rowOf(line[0][1])), line[0][0], line[0][1], line[0][0], line[0][1]);
      for (const [cell, coords] of byCell) insertSeg.run(cell, l.name, Buffer.from(new Float64Array(coords).buffer));
    };

    const indexTiles = (batch: ScannedTile[]) =>
      db.transaction(() => {
        for (const t of batch) {
          tiles++;
          let labels: ExtractedLabel[];
          try {
            labels = extractLabels(isGzip(t.data) ? gunzipSync(t.data) : t.data, t.z, t.x, t.y);
          } catch {
            continue; // A damaged tile adds no labels; the others still do.
          }
          for (const l of labels) {
            if (l.lines) {
              for (const line of l.lines) addRoadPiece(l, line);
            } else if (l.type === 'address') {
              // Written in step (3), once its street is known.
              insertHouse.run(l.placeType, JSON.stringify(l.names), categoryColumn(l.categories), l.housenumber ?? '', l.street ?? null, l.lon, l.lat);
            } else {
              addLabel(l.type, l.placeType, l.name, l.names, categoryColumn(l.categories), l.housenumber ?? null, l.street ?? null, l.lon, l.lat);
            }
          }
        }
      })();

    // (1) Tiles of the deepest zoom that holds any (looked for from the pyramid's maxzoom down), a batch per transaction.
    const main = tileset.info.pyramids[0];
    let zoom: number | undefined;
    for (let z = main.maxzoom; z >= main.minzoom && zoom === undefined; z--) {
      let batch: ScannedTile[] = [];
      for (const t of tileset.scan(main.name, { minzoom: z, maxzoom: z })) {
        zoom = z;
        batch.push(t);
        if (batch.length < tileBatch) continue;
        indexTiles(batch);
        batch = [];
        await maybeYield();
      }
      indexTiles(batch);
    }

    // (2) One road per street name and neighbourhood.
    const { streetNamesAfter, piecesOf, housesAfter, segmentsInCell: inCell } = labelMergeStatements(db);
    for (let after = ''; ; ) {
      const names = streetNamesAfter.all(after, 200);
      if (names.length === 0) break;
      after = names[names.length - 1].name;
      db.transaction(() => {
        for (const { name } of names) {
          for (const road of mergePieces(piecesOf.all(name))) addLabel('road', 'road', name, road.names, road.categories, null, null, road.lon, road.lat);
        }
      })();
      await maybeYield();
    }

    // (3) House numbers: those without `addr:street` take the street of the nearest road, by proximity; an address
    // shows its street as its name, or its number when it has none.
    let streetsDerived = 0;
    // Houses come in tile order, so neighbours look in the same cells: a cell's segments are read once, kept for the
    // next houses (up to 4,096 cells).
    const cells = new Map<number, CellSegments[]>();
    const segmentsIn = (cell: number) => {
      let segs = cells.get(cell);
      if (!segs) cells.set(cell, (segs = inCell.all(cell).map(([name, blob]) => ({ name, coords: float64s(blob) }))));
      return segs;
    };
    const streetNear = (lon: number, lat: number): string | undefined => {
      const dLat = STREET_METERS / M_PER_DEG;
      const dLon = dLat / Math.max(0.01, Math.cos((lat * Math.PI) / 180));
      // A segment whose both ends lie beyond the search box on one side is farther than STREET_METERS (the box is
      // a thousandth wider, so rounding cannot drop one the distance would keep): skipped unmeasured.
      const west = lon - dLon * 1.001;
      const east = lon + dLon * 1.001;
      const south = lat - dLat * 1.001;
      const north = lat + dLat * 1.001;
      let best: string | undefined;
      let bestM = Infinity;
      for (let col = colOf(lon - dLon); col <= colOf(lon + dLon); col++) {
        for (let row = rowOf(lat - dLat); row <= rowOf(lat + dLat); row++) {
          for (const { name, coords: c } of segmentsIn(cellOf(col, row))) {
            for (let i = 0; i < c.length; i += 4) {
              const x1 = c[i];
              const y1 = c[i + 1];
              const x2 = c[i + 2];
              const y2 = c[i + 3];
              if ((x1 < west && x2 < west) || (x1 > east && x2 > east) || (y1 < south && y2 < south) || (y1 > north && y2 > north)) continue;
              const m = metersToSegment(lon, lat, x1, y1, x2, y2);
              if (m <= STREET_METERS && (best === undefined || m < bestM || (m === bestM && name < best))) {
                best = name;
                bestM = m;
              }
            }
          }
        }
      }
      return best;
    };
    for (let after = 0; ; ) {
      if (cells.size > 4096) cells.clear();
      const houses = housesAfter.all(after, labelPage);
      if (houses.length === 0) break;
      after = houses[houses.length - 1][0];
      db.transaction(() => {
        for (const [, placeType, names, categories, housenumber, own, lon, lat] of houses) {
          let street = own;
          if (street === null) {
            street = streetNear(lon, lat) ?? null;
            if (street !== null) streetsDerived++;
          }
          addLabel('address', placeType, street ?? housenumber, JSON.parse(names) as Record<string, string>, categories, housenumber, street, lon, lat);
        }
      })();
      await maybeYield();
    }

    // (4) The labels numbered in position order (cell, lon, lat), so that a range of cells is a range of ids, each
    // written with its full-text entry and its categories.
    const staged = stagedInPositionOrder(db);
    let lastId = 0;
    for (let after: [number, number, number, number] = [-1, 0, 0, 0]; ; ) {
      const page = staged.all(...after, labelPage);
      if (page.length === 0) break;
      const last = page[page.length - 1];
      after = [last[0], last[1], last[2], last[12]];
      db.transaction(() => {
        for (const [cell, lon, lat, type, placeType, name, names, categories, housenumber, street, main, alt] of page) {
          // Numbered here, not read back from SQLite (lastInsertRowid): ~20 % of the row's insert.
          const id = ++lastId;
          insertLabel.run(id, type, placeType, name, names, categories, housenumber, street, lon, lat, cell);
          insertFts.run(id, main, alt);
          for (const c of categoryList(categories)) insertCategory.run(c, CATEGORY_GRID.cell(CATEGORY_GRID.column(lon), CATEGORY_GRID.row(lat)), id);
        }
      })();
      await maybeYield();
    }

    // (5) Vocabulary, the type and position indexes, the metadata; FTS5's segments merged.
    indexLabels(db);
    const byType = labelCounts(db);
    const labels = Object.values(byType).reduce((a, b) => a + b, 0);
    const meta: Record<string, string> = {
      format: LABEL_INDEX_FORMAT,
      tileset: tileset.info.id,
      source_version: tileset.info.version,
      attribution: tileset.info.attribution,
      zoom: String(zoom ?? ''),
      built_at: new Date().toISOString(),
      labels: String(labels),
    };
    finishLabelIndex(db, meta);
    db.close();
    renameSync(tmp, target);
    return { labels, byType, tiles, zoom: zoom ?? -1, bytes: statSync(target).size, ms: Date.now() - started, streetsDerived };
  } catch (err) {
    if (db.open) db.close();
    rmSync(tmp, { force: true });
    throw err;
  }
}

/**
 * Pieces of one street name → streets: pieces whose extents, grown by MERGE_METERS, touch are one street
 * (transitively). Each street is placed at its vertex nearest the middle of its extent (a point on the road).
 */
export function mergePieces(pieces: PieceRow[]): { lon: number; lat: number; names: Record<string, string>; categories: string }[] {
  const parent = pieces.map((_, i) => i);
  // Iterative with path halving: a recursive find over a long chain of pieces could overflow the stack.
  const find = (i: number): number => {
    while (parent[i] !== i) i = parent[i] = parent[parent[i]];
    return i;
  };
  for (let i = 0; i < pieces.length; i++) {
    const a = pieces[i];
    const dLat = MERGE_METERS / M_PER_DEG;
    const dLon = dLat / Math.max(0.01, Math.cos((((a.miny + a.maxy) / 2) * Math.PI) / 180));
    for (let j = i + 1; j < pieces.length; j++) {
      const b = pieces[j];
      if (b.minx > a.maxx + dLon) break; // sorted by minx: no later piece can touch
      if (b.miny <= a.maxy + dLat && b.maxy >= a.miny - dLat) parent[find(j)] = find(i);
    }
  }
  // Grouped by appending (not by copying each group anew) and bounded by loops (not by spreading a group into
  // Math.min): one street of 40,000 pieces took 69 s the other way, quadratic in its pieces, and a spread that long
  // can overflow the stack.
  const groups = new Map<number, PieceRow[]>();
  pieces.forEach((p, i) => {
    const root = find(i);
    const group = groups.get(root);
    if (group) group.push(p);
    else groups.set(root, [p]);
  });
  return [...groups.values()].map((group) => {
    let minx = Infinity;
    let maxx = -Infinity;
    let miny = Infinity;
    let maxy = -Infinity;
    for (const p of group) {
      minx = Math.min(minx, p.minx);
      maxx = Math.max(maxx, p.maxx);
      miny = Math.min(miny, p.miny);
      maxy = Math.max(maxy, p.maxy);
    }
    const cx = (minx + maxx) / 2;
    const cy = (miny + maxy) / 2;
    let best: [number, number] = [cx, cy];
    let bestD = Infinity;
    const names: Record<string, string> = {};
    const categories = new Set<string>();
    for (const p of group) {
      for (const v of JSON.parse(p.coords) as [number, number][]) {
        const d = metersBetween(cx, cy, v[0], v[1]);
        if (d < bestD) {
          bestD = d;
          best = v;
        }
      }
      for (const [k, v] of Object.entries(JSON.parse(p.names) as Record<string, string>)) if (!(k in names)) names[k] = v;
      for (const c of p.categories.split('|')) if (c) categories.add(c);
    }
    return { lon: best[0], lat: best[1], names, categories: categoryColumn([...categories]) };
  });
}
