// The admin API's answers as the console's script reads them (/admin/api/stores, /admin/api/jobs, a job, a
// store's coverage). Types only: the browser build (tsconfig.console.json) compiles this file with the DOM and
// without Node's types, so it leans on no server module but the job contracts, which import nothing. Fields the
// console does not read are left out; the optional ones are those an older server, or a state file that never
// recorded them, may omit.

import type { JobProgress, RequestBudgetView } from '../../job-contracts';

export type { JobProgress };

export type StoreOrigin = { type: 'upstream'; url: string } | { type: 'imported' } | { type: 'sample' };

/** One row of `GET /admin/api/stores`. */
export interface StoreRow {
  id: string;
  kind: string;
  format: string;
  storage?: string;
  tileSize?: number;
  minzoom?: number;
  maxzoom?: number;
  bounds?: number[] | null;
  tiles: number | null;
  bytes?: number;
  publishedAt: string | null;
  version: string | null;
  origin?: StoreOrigin;
  job: string | null;
  /** The grids besides Web Mercator the store is offered in (absent from an older server). */
  grids?: string[];
}

export interface StoresDoc {
  stores?: StoreRow[];
}

/** One feature of a coverage: the mirrored area, or a tile (Web Mercator z/x/y, or a grid's matrix/row/col). */
export interface CoverageFeature {
  type: 'Feature';
  properties: { type: 'mirrored' } | { type: 'tile'; z: number; x: number; y: number } | { type: 'tile'; matrix: string; row: number; col: number };
  /** A grid's tile that crosses the antimeridian is a MultiPolygon of its two sides. */
  geometry: { type: 'Polygon'; coordinates: number[][][] } | { type: 'MultiPolygon'; coordinates: number[][][][] };
}

/**
 * `GET /admin/api/stores/{id}/coverage[?grid=ID]`: a GeoJSON FeatureCollection with the counts at its zoom; with a
 * grid, `z` is its matrix, `tiles` those kept there, and `grid` and `matrices` (the grid's matrix ids) are given.
 */
export interface CoverageDoc {
  type: 'FeatureCollection';
  z: number;
  tiles: number;
  expected: number;
  truncated: boolean;
  grid?: string;
  matrices?: string[];
  features: CoverageFeature[];
}

export interface RunningJob {
  trigger: string;
  startedAt: string;
  pid: number;
  host?: string;
  progress?: JobProgress;
}

/** One finished run: a row of a job's history (and its `lastRun`). */
export interface RunRow {
  startedAt: string;
  endedAt: string;
  result: string;
  tiles?: { fetched?: number; stored?: number; failed?: number };
  /** Requests the run made of its upstream (absent from runs recorded before they were counted). */
  requests?: number;
  version?: string;
  resources?: { version?: string }[];
  /** A render job's run: its metatiles planned and drawn (the fetched column shows those drawn). */
  kind?: 'render';
  metatiles?: { planned: number; drawn: number };
}

export interface JobEntry {
  name: string;
  /** `render` for a render job; absent for a mirror job. */
  kind?: 'render';
  resources?: string[];
  schedule?: string;
  timezone?: string;
  nextRun?: string;
  unconfigured?: boolean;
  running?: RunningJob;
  runningOn?: string | null;
  lastRun?: RunRow;
}

/** This month's upstream requests of each upstream, against its monthly budget (null: no budget). */
export type RequestBudget = RequestBudgetView;

/** `GET /admin/api/jobs`. */
export interface JobsDoc {
  generatedAt: string;
  scheduler: boolean;
  instance?: string;
  jobs: JobEntry[];
  /** Absent from a server that does not count its upstream requests. */
  requestBudget?: RequestBudget;
}

/** `GET /admin/api/jobs/{name}`. */
export interface JobDoc {
  job: JobEntry;
  history?: RunRow[];
}

/** The admin API's error body (a problem document or a plain `{ error }`). */
export interface ErrorBody {
  error?: string;
  message?: string;
}
