// RESOURCE arguments (`tiles/ID`, `maps/ID`, `images/ID`) and the discovery job of each kind. The other kinds of
// the spec (fonts, sprites, data, weather, ogc) are recognised so they get a clear "not supported yet".

import type { ResourceKind } from '../../store/types';
import { UsageError } from '../plan';
import { discoverImage } from './images';
import { discoverMap } from './maps';
import { discoverTiles } from './tiles';
import type { DiscoverContext, Discovered } from './types';

export type { Discovered, DiscoverContext, PyramidSource, StoredDoc } from './types';

export interface ResourceRef {
  kind: ResourceKind;
  id: string;
}

const LATER = new Set(['fonts', 'sprites', 'data', 'weather', 'ogc']);
// Ids become file names: no path separators, no leading dot (hidden files are staging files), no control characters.
const ID = /^[^./\\\x00-\x1f][^/\\\x00-\x1f]*$/;

export function parseResource(text: string): ResourceRef {
  const slash = text.indexOf('/');
  const kind = slash < 0 ? text : text.slice(0, slash);
  const id = slash < 0 ? '' : text.slice(slash + 1);
  if (LATER.has(kind)) throw new UsageError(`mirroring ${kind} is not supported yet (supported: tiles/ID, maps/ID, images/ID)`);
  if (kind !== 'tiles' && kind !== 'maps' && kind !== 'images') {
    throw new UsageError(`unknown resource "${text}": expected tiles/ID, maps/ID or images/ID`);
  }
  if (!ID.test(id)) throw new UsageError(`invalid resource id in "${text}"`);
  return { kind, id };
}

export function discover(ref: ResourceRef, ctx: DiscoverContext): Promise<Discovered> {
  switch (ref.kind) {
    case 'tiles':
      return discoverTiles(ref.id, ctx);
    case 'maps':
      return discoverMap(ref.id, ctx);
    case 'images':
      return discoverImage(ref.id, ctx);
  }
}
