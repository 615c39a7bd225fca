// Generic sources: a tile set mirrored from any TileJSON URL, WMTS capabilities URL, XYZ template or WMS (not
// only from an upstream that speaks the spec's interface) into `tiles/{id}`, which the server then serves like
// any other. The source URL's origin is the run's upstream (the key goes only there, and to an XYZ template's
// subdomain hosts); a `key=` in the URL is the key.

import { stripKey } from '../../upstream/client';
import { UsageError } from '../../errors';
import type { DiscoverContext, Discovered } from '../types';
import { discoverTileJsonSource } from './tilejson';
import { discoverWmsSource, type WmsSource } from './wms';
import { discoverWmtsSource } from './wmts';
import { discoverXyzSource, xyzOrigins, xyzTemplate, type XyzSource } from './xyz';

export type GenericSource =
  | { type: 'tilejson'; url: string }
  | {
      type: 'wmts';
      /** The capabilities document (RESTful WMTSCapabilities.xml or a KVP GetCapabilities URL). */
      url: string;
      layer: string;
      /** The TileMatrixSet to use (default: the layer's first Web Mercator one). */
      matrixSet?: string;
    }
  | XyzSource
  | WmsSource;

/** The source with its URL made key-free, and the key the URL carried (`key=`), if any. */
export function splitSourceKey<S extends GenericSource>(source: S): { source: S; key?: string } {
  const m = /[?&]key=([^&#]*)/i.exec(source.url);
  let key: string | undefined;
  if (m && m[1]) {
    try {
      key = decodeURIComponent(m[1].replace(/\+/g, ' '));
    } catch {
      key = m[1];
    }
  }
  return { source: { ...source, url: stripKey(source.url) }, key };
}

/** The upstream base of a source: its URL's origin (what the client sends the key to); an XYZ template's first host. */
export function sourceBase(source: GenericSource): string {
  if (source.type === 'xyz') {
    xyzTemplate(source);
    return xyzOrigins(source)[0];
  }
  const m = /^(https?:\/\/[^/?#]+)/i.exec(source.url);
  if (!m || m[1].includes('{')) throw new UsageError(`the source must be an http(s) URL, got ${stripKey(source.url)}`);
  return m[1];
}

/** Every origin a source's requests go to with the key: the base's, and an XYZ template's other subdomain hosts. */
export function sourceOrigins(source: GenericSource): string[] {
  return source.type === 'xyz' ? xyzOrigins(source) : [sourceBase(source)];
}

const KIND_NAMES: Record<GenericSource['type'], string> = { tilejson: 'TileJSON', wmts: 'WMTS', xyz: 'XYZ', wms: 'WMS' };

/** A short description for logs and provenance (no key). */
export function describeSource(source: GenericSource): string {
  const url = stripKey(source.url);
  switch (source.type) {
    case 'tilejson':
      return `TileJSON ${url}`;
    case 'wmts':
      return `WMTS ${url} layer ${source.layer}${source.matrixSet ? ` set ${source.matrixSet}` : ''}`;
    case 'xyz':
      return `XYZ ${url}${source.scheme === 'tms' ? ' (tms)' : ''}`;
    case 'wms':
      return `WMS ${url} layers ${source.layers}`;
  }
}

/** Discovery of a generic source into `tiles/{id}`. */
export function discoverSource(kind: string, id: string, source: GenericSource, ctx: DiscoverContext): Promise<Discovered> {
  if (kind !== 'tiles') throw new UsageError(`a ${KIND_NAMES[source.type]} source is mirrored into tiles/ID, not ${kind}/${id}`);
  switch (source.type) {
    case 'tilejson':
      return discoverTileJsonSource(id, source.url, ctx);
    case 'wmts':
      return discoverWmtsSource(id, source, ctx);
    case 'xyz':
      return discoverXyzSource(id, source, ctx);
    case 'wms':
      return discoverWmsSource(id, source, ctx);
  }
}
