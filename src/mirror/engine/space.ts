// How large a planned tile store will be, and whether the data volume has room for it: the estimate rests on the
// tiles already stored (the staging file a previous run left, else the published store: their size over their
// tiles) or, for a store never mirrored, on a few tiles probed from the upstream, evenly spread through each
// zoom. `plan`, the admin plan and the start of every run use it; a run that cannot fit is refused before its
// staging file is opened.

import { tileAt, type TileTask } from '../../geo/tile-bands';
import { bytesPerStoredTile, checkSpace, fileBytes, storeBytesFor, type SpaceCheck } from '../../store/data-dir/disk-space';
import type { StorePaths } from '../../store/mbtiles/staging';
import { upstreamTileUrl } from '../discovery/tile-url';
import type { Planned } from '../plan';
import { judgeTile } from '../refresh';
import type { UpstreamClient } from '../upstream/client';

export type EstimateBasis = 'stored' | 'probed' | 'none';

export interface SizeEstimate {
  bytes: number;
  basis: EstimateBasis;
  /** Bytes of the staging file a previous run left (already on the volume). */
  stagedBytes: number;
}

/** One zoom's probed tiles: how many answered and the estimate of the zoom they stand for. */
export interface ZoomSample {
  pyramid: string;
  z: number;
  tiles: number;
  sampled: number;
  estimatedBytes?: number;
}

/** The golden ratio's fraction: successive multiples of it spread over [0, 1) without lining up. */
const GOLDEN = 0.6180339887498949;

/**
 * Fetches about `sample` tiles of the plan, shared among its zooms by their tile counts (at least one a zoom: the
 * deepest zooms hold most of the bytes), spread through each zoom's tiles by the golden ratio so that they fall on
 * different rows and columns (evenly spaced picks of a zoom of 2^z columns land on a few rows: at the poles or the
 * open sea of a world map, which drew a 25.7 MB store as 12 MB). Each zoom is estimated as their mean size times its
 * tiles. A tile that fails is left out; an empty answer counts as 0 bytes. `keep` receives each probed tile's bytes.
 */
export async function sampleZooms(client: UpstreamClient, p: Planned, sample: number, signal?: AbortSignal, keep?: (task: TileTask, data: Buffer) => void): Promise<ZoomSample[]> {
  const out: ZoomSample[] = [];
  for (const plan of p.plans) {
    const upstream = p.discovered.pyramids.find((u) => u.pyramid.name === plan.pyramid)!;
    for (const zp of plan.zooms) {
      const row: ZoomSample = { pyramid: plan.pyramid, z: zp.z, tiles: zp.count, sampled: 0 };
      const k = sample > 0 ? Math.min(zp.count, Math.max(1, Math.round((sample * zp.count) / Math.max(1, p.total)))) : 0;
      if (k > 0) {
        const picks = Array.from({ length: k }, (_, i) => tileAt(zp, Math.floor((((i + 0.5) * GOLDEN) % 1) * zp.count))!);
        const sizes = await Promise.all(
          picks.map((t) =>
            client
              .request(upstreamTileUrl(upstream, zp.z, t.x, t.y), judgeTile(upstream.pyramid.format), signal)
              .then(({ verdict: v }) => {
                if (v.kind !== 'tile') return 0;
                keep?.({ pyramid: plan.pyramid, z: zp.z, x: t.x, y: t.y }, v.data);
                return v.data.length;
              })
              .catch(() => undefined),
          ),
        );
        const ok = sizes.filter((s): s is number => s !== undefined);
        row.sampled = ok.length;
        if (ok.length) row.estimatedBytes = Math.round((ok.reduce((a, b) => a + b, 0) / ok.length) * zp.count);
      }
      out.push(row);
    }
  }
  return out;
}

/** The estimate from the tiles already stored: the staging file's rate, else the published store's; undefined when neither holds tiles. */
export function storedEstimate(planned: Planned, paths: StorePaths): SizeEstimate | undefined {
  const stagedBytes = fileBytes(paths.staging);
  const rate = bytesPerStoredTile(paths.staging) ?? bytesPerStoredTile(paths.published);
  return rate === undefined ? undefined : { bytes: Math.round(rate * planned.total), basis: 'stored', stagedBytes };
}

/** The estimate of the store file from about `sample` probed tiles, or none when no probe answered. */
export async function probedEstimate(client: UpstreamClient, planned: Planned, paths: StorePaths, sample: number, signal?: AbortSignal, keep?: (task: TileTask, data: Buffer) => void): Promise<SizeEstimate> {
  const zooms = await sampleZooms(client, planned, sample, signal, keep);
  const stagedBytes = fileBytes(paths.staging);
  if (!zooms.some((z) => z.sampled > 0)) return { bytes: 0, basis: 'none', stagedBytes };
  // A zoom no probe answered counts at the mean of the others' tiles.
  const known = zooms.filter((z) => z.estimatedBytes !== undefined);
  const perTile = known.reduce((n, z) => n + z.estimatedBytes!, 0) / Math.max(1, known.reduce((n, z) => n + z.tiles, 0));
  const tileBytes = zooms.reduce((n, z) => n + (z.estimatedBytes ?? Math.round(perTile * z.tiles)), 0);
  return { bytes: storeBytesFor(tileBytes), basis: 'probed', stagedBytes };
}

/**
 * A tile this large or larger is rare (a 512 px PNG of dense imagery is ~300 KB): a plan whose every tile could
 * be this large and still fit is not probed at the start of a run.
 */
export const LARGE_TILE_BYTES = 512 * 1024;

/** Tiles probed at the start of a run that needs an estimate (stored by the run, never fetched twice). */
export const RUN_SAMPLE = 20;

/**
 * The check at the start of a run: from the stored tiles when there are some; else, when even tiles of
 * LARGE_TILE_BYTES would fit, nothing is probed; else about RUN_SAMPLE tiles are (their bytes handed to `keep`, so
 * the run stores them without fetching them again).
 */
export async function spaceForRun(client: UpstreamClient, planned: Planned, paths: StorePaths, dataDir: string, signal?: AbortSignal, keep?: (task: TileTask, data: Buffer) => void): Promise<SpaceCheck & { basis: EstimateBasis }> {
  const what = `${planned.ref.kind}/${planned.ref.id} (${planned.total} tiles)`;
  const stored = storedEstimate(planned, paths);
  if (stored) return { ...checkSpace(dataDir, stored.bytes, stored.stagedBytes, what), basis: stored.basis };
  const roomy = checkSpace(dataDir, planned.total * LARGE_TILE_BYTES, fileBytes(paths.staging), what);
  if (roomy.fits) return { ...roomy, basis: 'none' };
  const probed = await probedEstimate(client, planned, paths, RUN_SAMPLE, signal, keep);
  return { ...checkSpace(dataDir, probed.bytes, probed.stagedBytes, what), basis: probed.basis };
}
