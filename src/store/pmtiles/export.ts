// A tile store's main pyramid as a PMTiles archive: the store's tile addresses (read without the tiles) are
// turned into PMTiles tile ids and sorted, then each tile is read in that (Hilbert) order and handed to the
// writer, so memory holds the ids (8 bytes a tile) and the distinct-content index, never the tiles.

import { isGzip } from '../bytes/formats';
import type { MbtilesStore } from '../mbtiles/reader';
import { Compression, tileIdToZxy, tileTypeOf, zxyToTileId } from './format';
import { writePmtiles, type IdTile, type WriteStats } from './write';

/** The tile ids of the main pyramid, ascending (rows whose tile_data is empty count as absent). */
function sortedTileIds(store: MbtilesStore): Float64Array {
  const addresses = store.addresses(store.info.pyramids[0].name);
  const ids = new Float64Array(addresses.length);
  addresses.forEach(([z, x, y], i) => {
    ids[i] = zxyToTileId(z, x, y);
  });
  return ids.sort();
}

/** True when the store's vector tiles are gzipped (as MBTiles vector tiles usually are): decided by the first. */
function firstTileGzipped(store: MbtilesStore, ids: Float64Array): boolean {
  const [z, x, y] = tileIdToZxy(ids[0]);
  const data = store.tile(store.info.pyramids[0].name, z, x, y);
  return data !== undefined && isGzip(data);
}

/**
 * Writes the main pyramid of `store` as the PMTiles archive `out`, with `metadata` (the store's TileJSON, say)
 * as its JSON metadata. Throws when the store has no tiles or tiles PMTiles has no type for.
 */
export function exportPmtiles(store: MbtilesStore, out: string, metadata: object): WriteStats {
  const main = store.info.pyramids[0];
  const tileType = tileTypeOf(main.format);
  if (tileType === undefined) throw new Error(`${store.info.kind}/${store.info.id} holds ${main.format} tiles: PMTiles has no tile type for them`);
  const ids = sortedTileIds(store);
  if (ids.length === 0) throw new Error(`${store.info.kind}/${store.info.id} holds no tiles`);
  for (let i = 1; i < ids.length; i++) {
    if (ids[i] === ids[i - 1]) throw new Error(`${store.file}: tile ${tileIdToZxy(ids[i]).join('/')} is stored twice`);
  }
  const gzip = main.format === 'pbf' && firstTileGzipped(store, ids);
  function* tiles(): Generator<IdTile> {
    for (const tileId of ids) {
      const [z, x, y] = tileIdToZxy(tileId);
      const data = store.tile(main.name, z, x, y);
      if (data) yield { tileId, data };
    }
  }
  return writePmtiles(
    out,
    tiles(),
    {
      tileType,
      tileCompression: gzip ? Compression.Gzip : Compression.None,
      minZoom: main.minzoom,
      maxZoom: main.maxzoom,
      bounds: main.bounds,
      center: [store.info.center[0], store.info.center[1], Math.min(main.maxzoom, Math.max(main.minzoom, store.info.center[2]))],
    },
    metadata,
  );
}
