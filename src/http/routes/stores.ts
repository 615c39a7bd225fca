import type { TileStore } from '../../store/tile-reader';
import type { ResourceKind } from '../../store/types';
import { notFound } from '../reply';
import type { RequestContext } from '../route-table';

const NOUN: Record<ResourceKind, string> = { tiles: 'tileset', maps: 'map', images: 'image' };

/** The store behind a path id, or not found, naming what was not found. */
export function requireStore(ctx: RequestContext, kind: ResourceKind, id: string | undefined): TileStore {
  const store = id === undefined ? undefined : ctx.catalog.get(kind, id);
  if (!store) throw notFound(`Unknown ${NOUN[kind]}: ${id ?? ''}`);
  return store;
}
