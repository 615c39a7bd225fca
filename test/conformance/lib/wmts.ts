// WMTS requests built from the server's own ServiceMetadata: the KVP GetTile of 07-057r7 Table 29 on the advertised
// GetTile Get href, and RESTful tile URLs from the layers' ResourceURL templates (§10.2.1, Table 32), for every
// layer, format, tile matrix set and sampled tile.
import { KEY } from '../../helpers/server';
import { get, withParams } from './http';
import { getBindings, parseCapabilities, type Capabilities, type Layer, type TileMatrixSet } from './wmts-capabilities';
import { availableMatrices, pick, sampleTiles, type MatrixRange, type Position } from './sampling';

/** The one URL the suite is given, as the OGC test harness is: the KVP GetCapabilities of the service. */
export function capabilitiesEntry(serverUrl: string): string {
  return `${serverUrl}/wmts?SERVICE=WMTS&REQUEST=GetCapabilities&key=${KEY}`;
}

/**
 * The capabilities documents the server links from its index page (`<a href=".../WMTSCapabilities.xml">`, one per
 * resource and the service's RESTful one), besides the entry: each is a WMTS service of its own.
 */
export async function linkedCapabilities(serverUrl: string): Promise<string[]> {
  const index = (await get(`${serverUrl}/?key=${KEY}`)).body.toString('utf8');
  return [...new Set([...index.matchAll(/href="([^"]*WMTSCapabilities[^"]*)"/g)].map((m) => m[1].replace(/&amp;/g, '&')))];
}

export async function fetchCapabilities(url: string): Promise<{ xml: string; caps: Capabilities }> {
  const a = await get(url);
  if (a.status !== 200) throw new Error(`GET ${url}: ${a.status}, the capabilities are needed for every test of this file`);
  const xml = a.body.toString('utf8');
  return { xml, caps: parseCapabilities(xml) };
}

/** The GetTile KVP parameters in the spelling of 07-057r7 Table 29 (names are case-insensitive, 06-121r3 §11.5.2). */
export const GETTILE_PARAMS = ['Service', 'Request', 'Version', 'Layer', 'Style', 'Format', 'TileMatrixSet', 'TileMatrix', 'TileRow', 'TileCol'] as const;
export type GetTileParam = (typeof GETTILE_PARAMS)[number];

export interface TileCase {
  layer: Layer;
  style: string;
  format: string;
  tms: TileMatrixSet;
  range: MatrixRange;
  row: number;
  col: number;
  /** A value for each sample dimension: its Default, else its first Value. */
  dimensions: Record<string, string>;
}

/** The style a request names: the default style, else the first (07-057r7 Table 7: one is the default). */
export function styleOf(layer: Layer): string {
  return (layer.styles.find((s) => s.isDefault) ?? layer.styles[0])?.id ?? '';
}

export function defaultDimensions(layer: Layer): Record<string, string> {
  return Object.fromEntries(layer.dimensions.map((d) => [d.id, d.default ?? d.values[0] ?? '']));
}

/** The tile matrices a layer's link offers (by its limits), in the order of the set. */
export function layerMatrices(caps: Capabilities, tmsId: string, layer: Layer): { tms?: TileMatrixSet; ranges: MatrixRange[] } {
  const tms = caps.tileMatrixSets.find((t) => t.id === tmsId);
  const link = layer.links.find((k) => k.tms === tmsId);
  if (!tms || !link) return { tms, ranges: [] };
  return { tms, ranges: availableMatrices(tms.matrices, link.limits) };
}

/** Every layer x format x linked tile matrix set, at the first, middle or last matrix, its sampled tiles. */
export function tileCases(caps: Capabilities, position: Position, formats: (layer: Layer) => string[] = (l) => l.formats): TileCase[] {
  return caps.layers.flatMap((layer) =>
    formats(layer).flatMap((format) =>
      layer.links.flatMap((link) => {
        const { tms, ranges } = layerMatrices(caps, link.tms, layer);
        const range = pick(ranges, position);
        if (!tms || !range) return [];
        return sampleTiles(range).map(({ row, col }) => ({ layer, style: styleOf(layer), format, tms, range, row, col, dimensions: defaultDimensions(layer) }));
      }),
    ),
  );
}

/** One case per layer (first format, first set, middle matrix, middle tile): the valid request the error tests spoil. */
export function baseCases(caps: Capabilities): TileCase[] {
  return caps.layers.flatMap((layer) => {
    const cases = tileCases(caps, 'middle', (l) => l.formats.slice(0, 1)).filter((c) => c.layer === layer && c.tms.id === layer.links[0]?.tms);
    return cases.length ? [cases[Math.floor(cases.length / 2)]] : [];
  });
}

export function kvpTilePrefix(caps: Capabilities): string | undefined {
  return getBindings(caps, 'GetTile', 'KVP')[0]?.href;
}

/**
 * The KVP GetTile URL of a case. `change` replaces parameters (a string), leaves them out (null) or adds others
 * (any other name, e.g. a dimension); names are matched case-insensitively.
 */
export function kvpTileUrl(prefix: string, c: TileCase, change: Record<string, string | null> = {}): string {
  const values: Record<GetTileParam, string> = {
    Service: 'WMTS',
    Request: 'GetTile',
    Version: '1.0.0',
    Layer: c.layer.id,
    Style: c.style,
    Format: c.format,
    TileMatrixSet: c.tms.id,
    TileMatrix: c.range.matrix,
    TileRow: String(c.row),
    TileCol: String(c.col),
  };
  const params: [string, string][] = [...GETTILE_PARAMS.map((p) => [p, values[p]] as [string, string]), ...Object.entries(c.dimensions)];
  const changed = new Set(Object.keys(change).map((k) => k.toLowerCase()));
  const kept = params.filter(([k]) => !changed.has(k.toLowerCase()));
  const extra = Object.entries(change).filter((e): e is [string, string] => e[1] !== null);
  return withParams(prefix, [...kept, ...extra]);
}

/** Substitutes `{Name}` variables of a ResourceURL template, names case-insensitive; unknown variables stay. */
export function fillTemplate(template: string, vars: Record<string, string>): string {
  const lower = Object.fromEntries(Object.entries(vars).map(([k, v]) => [k.toLowerCase(), v]));
  return template.replace(/\{([^}]+)\}/g, (m, name: string) => (name.toLowerCase() in lower ? encodeURIComponent(lower[name.toLowerCase()]) : m));
}

/** The variables of a RESTful tile request of a case (07-057r7 §10.2.1: Style, TileMatrixSet, TileMatrix, TileRow, TileCol, dimensions). */
export function restVars(c: TileCase, change: Record<string, string> = {}): Record<string, string> {
  return { Style: c.style, TileMatrixSet: c.tms.id, TileMatrix: c.range.matrix, TileRow: String(c.row), TileCol: String(c.col), ...c.dimensions, ...change };
}

/** The tile ResourceURL templates of a layer for a format (format compared case-insensitively, as the OGC suite does). */
export function tileTemplates(layer: Layer, format: string): string[] {
  return layer.resourceUrls.filter((r) => r.resourceType.toLowerCase() === 'tile' && r.format.toLowerCase() === format.toLowerCase()).map((r) => r.template);
}

export const caseLabel = (c: TileCase): string =>
  `${c.layer.id} ${c.format} ${c.tms.id} TileMatrix ${c.range.matrix} row ${c.row} col ${c.col}${Object.keys(c.dimensions).length ? ` ${JSON.stringify(c.dimensions)}` : ''}`;
