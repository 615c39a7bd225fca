// Tile URLs from an upstream's URL templates: {z}/{x}/{y} (or {-y}), a WMS box, WMTS TileMatrix identifiers and
// subdomains. Pure.

import { tileBoundsMeters } from '../../geo/mercator';
import type { UpstreamPyramid } from './types';

/**
 * The URL of one tile from a template ({z}/{x}/{y}, or {-y} for TMS rows; {bbox-epsg-3857}, as MapLibre names
 * it, the tile's box in metres for a WMS GetMap); `zValue` replaces {z} when given (a WMTS TileMatrix identifier).
 */
export function tileUrl(template: string, z: number, x: number, y: number, zValue?: string): string {
  const url = template
    .replace('{z}', zValue ?? String(z))
    .replace('{x}', String(x))
    .replace('{y}', String(y))
    .replace('{-y}', String(2 ** z - 1 - y));
  return url.includes('{bbox-epsg-3857}') ? url.replace('{bbox-epsg-3857}', tileBoundsMeters(z, x, y).join(',')) : url;
}

/** The subdomain of a tile ({s}): the same for a tile every time, spread over the list as Leaflet does ((x + y) mod n). */
export function subdomainOf(subdomains: readonly string[], x: number, y: number): string {
  return subdomains[(x + y) % subdomains.length];
}

/** The URL of one tile of an upstream pyramid: its template with its TileMatrix identifiers and its subdomains ({s}). */
export function upstreamTileUrl(upstream: Pick<UpstreamPyramid, 'template' | 'matrixIds' | 'subdomains'>, z: number, x: number, y: number): string {
  const template = upstream.subdomains?.length ? upstream.template.replace('{s}', subdomainOf(upstream.subdomains, x, y)) : upstream.template;
  return tileUrl(template, z, x, y, upstream.matrixIds?.[z]);
}
