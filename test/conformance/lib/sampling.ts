// Which tiles to ask for: for a layer's (or tileset's) tile matrix set and its limits, the first, middle and last
// tile matrix it offers, and in each the rows and columns at the low end, the middle and the high end of its limits,
// every combination (the OGC WMTS test suite's choice: ets-wmts10 wmtsFunctions getTileRows/getTileCols, middle as
// (count + 1) idiv 2). Out-of-range addresses for the error tests come from the same limits.

export interface MatrixDefinition {
  id: string;
  tileWidth: number;
  tileHeight: number;
  matrixWidth: number;
  matrixHeight: number;
}

export interface Limits {
  matrix: string;
  minRow: number;
  maxRow: number;
  minCol: number;
  maxCol: number;
}

export interface MatrixRange extends Limits {
  tileWidth: number;
  tileHeight: number;
  matrixWidth: number;
  matrixHeight: number;
}

export type Position = 'first' | 'middle' | 'last';
export const POSITIONS: readonly Position[] = ['first', 'middle', 'last'];

/**
 * The matrices a layer offers, in the order of the tile matrix set: those its limits name (a matrix not named is not
 * available: 17-083r4 /req/tilematrixsetlimits/model B), or every matrix whole when there are no limits. Limits
 * naming no matrix of the set are left out here (the capabilities tests report them).
 */
export function availableMatrices(matrices: readonly MatrixDefinition[], limits?: readonly Limits[]): MatrixRange[] {
  return matrices.flatMap((m) => {
    const whole = { minRow: 0, maxRow: m.matrixHeight - 1, minCol: 0, maxCol: m.matrixWidth - 1 };
    const l = limits ? limits.find((x) => x.matrix === m.id) : whole;
    if (!l) return [];
    return [{ matrix: m.id, minRow: l.minRow, maxRow: l.maxRow, minCol: l.minCol, maxCol: l.maxCol, tileWidth: m.tileWidth, tileHeight: m.tileHeight, matrixWidth: m.matrixWidth, matrixHeight: m.matrixHeight }];
  });
}

export function pick<T>(items: readonly T[], position: Position): T | undefined {
  if (!items.length) return undefined;
  if (position === 'first') return items[0];
  if (position === 'last') return items[items.length - 1];
  return items[Math.ceil(items.length / 2) - 1];
}

const lowMidHigh = (lo: number, hi: number): number[] => [...new Set([lo, Math.floor((lo + hi) / 2), hi])];

/** Rows and columns at the low end, middle and high end of the range, every combination. */
export function sampleTiles(r: Limits): { row: number; col: number }[] {
  return lowMidHigh(r.minRow, r.maxRow).flatMap((row) => lowMidHigh(r.minCol, r.maxCol).map((col) => ({ row, col })));
}

export function middleTile(r: Limits): { row: number; col: number } {
  return { row: Math.floor((r.minRow + r.maxRow) / 2), col: Math.floor((r.minCol + r.maxCol) / 2) };
}
