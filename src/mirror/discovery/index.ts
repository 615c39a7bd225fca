// Discovery: one resource read into a plain description (Discovered) of what to fetch, what to store as it is and
// what it depends on. Kind discovery (kinds/) reads the cloud API's own resources by kind; source discovery
// (sources/) reads a generic source (TileJSON, WMTS, XYZ, WMS) by protocol. Both fetch the upstream's
// descriptions only and write nothing: the engine runs what they describe.

import type { ResourceRef } from '../resource';
import { discoverKind } from './kinds';
import { discoverSource, type GenericSource } from './sources';
import type { DiscoverContext, Discovered } from './types';

/** The description of a resource: from a generic source when the run has one, else from the upstream's own API. */
export function discover(ref: ResourceRef, ctx: DiscoverContext, source?: GenericSource): Promise<Discovered> {
  return source ? discoverSource(ref.kind, ref.id, source, ctx) : discoverKind(ref, ctx);
}
