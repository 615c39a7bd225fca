// Generic sources: a tile set mirrored from any TileJSON URL or any WMTS capabilities URL (not only from an
// upstream that speaks the spec's interface) into `tiles/{id}`, which the server then serves like any other.
// The source URL's origin is the run's upstream (the key goes only there); a `key=` in the URL is the key.

import { stripKey } from '../client';
import { UsageError } from '../errors';
import type { DiscoverContext, Discovered } from '../discoverers/types';
import { discoverTileJsonSource } from './tilejson';
import { discoverWmtsSource } from './wmts';

export type GenericSource =
  | { type: 'tilejson'; url: string }
  | {
      type: 'wmts';
      /** The capabilities document (RESTful WMTSCapabilities.xml or a KVP GetCapabilities URL). */
      url: string;
      layer: string;
      /** The TileMatrixSet to use (default: the layer's first Web Mercator one). */
      matrixSet?: string;
    };

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

/** The upstream base of a source: its URL's origin (what the client sends the key to). */
export function sourceBase(source: GenericSource): string {
  const m = /^(https?:\/\/[^/?#]+)/i.exec(source.url);
  if (!m) throw new UsageError(`the source must be an http(s) URL, got ${stripKey(source.url)}`);
  return m[1];
}

/** A short description for logs and provenance (no key). */
export function describeSource(source: GenericSource): string {
  return source.type === 'tilejson' ? `TileJSON ${stripKey(source.url)}` : `WMTS ${stripKey(source.url)} layer ${source.layer}${source.matrixSet ? ` set ${source.matrixSet}` : ''}`;
}

/** Discovery of a generic source into `tiles/{id}`. */
export function discoverSource(kind: string, id: string, source: GenericSource, ctx: DiscoverContext): Promise<Discovered> {
  if (kind !== 'tiles') throw new UsageError(`a ${source.type === 'tilejson' ? 'TileJSON' : 'WMTS'} source is mirrored into tiles/ID, not ${kind}/${id}`);
  return source.type === 'tilejson' ? discoverTileJsonSource(id, source.url, ctx) : discoverWmtsSource(id, source, ctx);
}
