// QGIS 3.22 (Debian bookworm's python3-qgis) as a WMTS client: qgis_wmts.py run with /usr/bin/python3 on Qt's
// offscreen platform, the layer sources its Add Layer dialog writes, and readings of the script's report (pixels,
// the GetTile requests QGIS sent). Shared by the interop tests that drive QGIS.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { type ClientCheck, SYSTEM_PYTHON } from '../helpers/clients';
import type { RGBA } from '../helpers/pixels';
import { assertOk, clientEnv, run } from '../helpers/run';

const SCRIPT = path.join(__dirname, 'qgis_wmts.py');

/** What QGIS needs: the system python with the QGIS bindings, and QGIS's WMS/WMTS provider. */
export const QGIS_CHECK: ClientCheck = {
  bins: [SYSTEM_PYTHON],
  pythonModules: ['qgis.core', 'qgis.gui'],
  files: [['/usr/lib/qgis/plugins/libprovider_wms.so']],
  packages: ['python3-qgis'],
};

// ---------------------------------------------------------------------------------------------
// The script's report
// ---------------------------------------------------------------------------------------------

export interface Request {
  url: string;
  status: number | null;
  error?: string;
}
export interface BrowserItem {
  name: string;
  path: string;
  depth: number;
  type: string;
  uri?: string;
  provider?: string;
}
export interface BrowserResult {
  root: string;
  items: BrowserItem[];
}
export interface DialogResult {
  widget: string;
  requests: Request[];
  tilesets: Record<string, string | null>[];
  dimensionsDialog: {
    class: string;
    title: string;
    rows: { identifier: string; title: string; abstract: string; default: string; values: string[] | null; preselected: string | null }[];
  } | null;
  added: { uri: string; name: string; provider: string }[];
}
export interface Pixels {
  file?: string;
  width: number;
  height: number;
  requests?: Request[];
  error?: string;
  traceback?: string;
}
export interface LayerResult {
  uri: string;
  valid: boolean;
  error?: string;
  openRequests: Request[];
  crs: string;
  extent: [number, number, number, number];
  bandCount: number;
  argb32: boolean;
  temporal: { providerHasTemporalCapabilities: boolean; availableTemporalRange: [string, string] | null; layerTemporalPropertiesActive: boolean };
  blocks: (Pixels & { extent: number[]; valid: boolean })[];
  render?: Pixels & { time?: string; errors: string[]; requests?: Request[] };
}
export type Job =
  | { op: 'browser'; url: string }
  | { op: 'dialog'; url: string; layer: string; dimensions?: Record<string, string> }
  | { op: 'layer'; uri: string; blocks?: { extent: number[]; width: number; height: number }[]; render?: { extent: number[]; width: number; height: number; time?: string } };

/**
 * One QGIS session running the jobs, with a home of its own (settings, network cache: nothing from earlier runs),
 * made with `tempDir` (the calling test file's, which removes them).
 */
export async function runQgis<T extends unknown[]>(jobs: Job[], tempDir: (prefix?: string) => string, timeoutMs = 45_000): Promise<T> {
  const home = tempDir();
  const out = tempDir('tilemirror-qgis-out-');
  const env = clientEnv({ HOME: home, XDG_RUNTIME_DIR: home, QT_QPA_PLATFORM: 'offscreen' });
  const r = assertOk(await run(SYSTEM_PYTHON, [SCRIPT, out, JSON.stringify(jobs)], { env, timeoutMs }));
  const report = JSON.parse(r.stdout) as { qgisVersion: string; results: (T[number] & { error?: string; traceback?: string })[] };
  // What the tests pin (KVP preferred, tileDimensions, no temporal WMTS) is QGIS 3.22's, Debian bookworm's.
  expect(report.qgisVersion).toMatch(/^3\.22\./);
  report.results.forEach((res, i) => {
    // A layer that does not open reports its error and is checked by the test; anything else is a script failure.
    if (res.error && jobs[i].op !== 'layer') throw new Error(`QGIS job ${JSON.stringify(jobs[i])}: ${res.error}\n${res.traceback ?? ''}`);
  });
  return report.results as unknown as T;
}

/** A layer QGIS opened, or the error it gave. */
export function openLayer(res: LayerResult, label: string): LayerResult {
  if (!res.valid) throw new Error(`QGIS could not open ${label}: ${res.error}\nsource: ${res.uri}`);
  return res;
}

// ---------------------------------------------------------------------------------------------
// Layer sources, pixels, requests
// ---------------------------------------------------------------------------------------------

/**
 * A source of QGIS's wms provider, written as QgsDataSourceUri::encodedUri() writes it: parameters sorted, each
 * value with its '&', '=' and '#' percent-encoded (the rest as is), so the capabilities URL's own query stays
 * inside `url` (`url=http://host/wmts/1.0.0/WMTSCapabilities.xml?key%3Ddemo`). The Browser's sources are
 * compared with these.
 */
export function wmsSource(params: Record<string, string>): string {
  const enc = (v: string) => v.replace(/&/g, '%26').replace(/=/g, '%3D').replace(/#/g, '%23');
  return Object.keys(params)
    .sort()
    .map((k) => `${k}=${enc(params[k])}`)
    .join('&');
}

/** The parameters of a wms provider source (decoded). */
export function sourceParams(uri: string): Record<string, string> {
  return Object.fromEntries(
    uri.split('&').map((kv) => {
      const i = kv.indexOf('=');
      return [kv.slice(0, i), decodeURIComponent(kv.slice(i + 1))];
    }),
  );
}

/** The source parameters of the brief's layer: what the Add Layer dialog of QGIS writes, with dpiMode 7. */
export function layerSource(capsUrl: string, layer: string, tileMatrixSet: string, extra: Record<string, string> = {}): string {
  return wmsSource({
    contextualWMSLegend: '0',
    crs: 'EPSG:3857',
    dpiMode: '7',
    featureCount: '10',
    format: 'image/png',
    layers: layer,
    styles: 'default',
    tileMatrixSet,
    url: capsUrl,
    ...extra,
  });
}

/** What QGIS wrote: raw RGBA. */
export function qgisPixels(p: Pixels, label: string): RGBA {
  if (p.error || !p.file) throw new Error(`QGIS ${label}: ${p.error}\n${p.traceback ?? ''}`);
  return { width: p.width, height: p.height, data: readFileSync(p.file) };
}


/** The query parameters of a GetTile QGIS sent (names as sent). */
export function query(r: Request): URLSearchParams {
  return new URL(r.url).searchParams;
}

/** Every request answered 200, and they are KVP GetTile requests (QGIS 3.22 prefers KVP when it is offered). */
export function expectKvpGetTiles(requests: Request[] | undefined, label: string): Request[] {
  if (!requests?.length) throw new Error(`${label}: QGIS sent no request`);
  for (const r of requests) {
    expect({ url: r.url, status: r.status }).toEqual({ url: r.url, status: 200 });
    expect(query(r).get('REQUEST')).toBe('GetTile');
  }
  return requests;
}

/** The GetTile of one tile among those QGIS sent for a block (it also asks for the neighbours the edges touch). */
export function requestOf(requests: Request[], matrix: string, row: number, col: number): Request {
  const r = requests.find((q) => query(q).get('TILEMATRIX') === matrix && query(q).get('TILEROW') === String(row) && query(q).get('TILECOL') === String(col));
  if (!r) throw new Error(`no GetTile of ${matrix}/${row}/${col} among ${requests.map((q) => q.url).join('\n')}`);
  return r;
}
