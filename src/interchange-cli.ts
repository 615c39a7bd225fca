// The command-line side of moving tile sets in and out of the data directory in other tools' formats: PMTiles
// export (`export --format pmtiles`: the store's main pyramid as an archive whose metadata is the store's TileJSON)
// and MBTiles import (`import --mbtiles`: a file made elsewhere, checked and published as a store, under the
// store's lock). Resolves the resource, reports in lines to print; src/cli.ts calls these.

import { mkdirSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { acquireLock, LockError } from './store/data-dir/lock';
import { buildTileJson } from './ogc/tilejson';
import { MbtilesStore } from './store/mbtiles/reader';
import { importMbtiles, MbtilesImportError } from './store/mbtiles/import';
import { exportPmtiles } from './store/pmtiles/export';
import { TILE_SIZE_KEY } from './store/pmtiles/store';
import { storePaths } from './store/mbtiles/staging';
import { isStoreId, type ResourceKind } from './store/types';

/** A refusal worth one line on stderr and exit status 1 (no stack: the message says it all). */
export class InterchangeError extends Error {}

const KINDS: readonly ResourceKind[] = ['tiles', 'maps', 'images'];

/** `tiles/ID`, `maps/ID` or `images/ID` (the kinds allowed may be narrowed). */
export function parseResource(value: string, kinds: readonly ResourceKind[] = KINDS): { kind: ResourceKind; id: string } {
  const slash = value.indexOf('/');
  const kind = value.slice(0, slash) as ResourceKind;
  const id = value.slice(slash + 1);
  if (slash < 0 || !kinds.includes(kind) || !isStoreId(id)) {
    throw new InterchangeError(`"${value}" is not a resource: expected ${kinds.map((k) => `${k}/ID`).join(' or ')}`);
  }
  return { kind, id };
}

/** The archive's JSON metadata: the store's TileJSON without tile URLs (they belong to whoever hosts it). */
export function pmtilesMetadata(store: MbtilesStore): Record<string, unknown> {
  const main = store.info.pyramids[0];
  const { tiles: _urls, ...doc } = buildTileJson(store.info, main, { tilesUrl: '' });
  return { ...doc, type: store.info.type, [TILE_SIZE_KEY]: main.tileSize };
}

export interface ExportPmtilesOptions {
  data: string;
  resource: string;
  out: string;
}

/** `tilemirror export --format pmtiles RESOURCE --out FILE`: returns the lines to print. */
export function exportPmtilesCommand(opts: ExportPmtilesOptions): string[] {
  const { kind, id } = parseResource(opts.resource);
  const file = storePaths(resolve(opts.data), kind, id).published;
  let store: MbtilesStore;
  try {
    store = new MbtilesStore(file, kind, id, 'export');
  } catch (err) {
    throw new InterchangeError(`cannot read ${kind}/${id} (${file}): ${(err as Error).message}`);
  }
  try {
    const started = process.hrtime.bigint();
    const out = resolve(opts.out);
    let stats;
    try {
      stats = exportPmtiles(store, out, pmtilesMetadata(store));
    } catch (err) {
      throw new InterchangeError(`cannot export ${kind}/${id}: ${(err as Error).message}`);
    }
    const seconds = Number(process.hrtime.bigint() - started) / 1e9;
    const mbtilesBytes = statSync(file).size;
    const lines = [
      `${kind}/${id} -> ${out}: ${stats.addressed} tiles, ${stats.contents} distinct, ${stats.entries} directory entries` +
        `${stats.leaves ? ` in ${stats.leaves} leaf directories` : ''}`,
      `${stats.bytes} bytes (the MBTiles store: ${mbtilesBytes} bytes), written in ${seconds.toFixed(2)} s ` +
        `(${Math.round(stats.addressed / Math.max(seconds, 1e-6))} tiles/s)`,
    ];
    if (store.info.pyramids.length > 1) lines.push(`only the main pyramid (${store.info.pyramids[0].name}) is written; PMTiles holds one`);
    return lines;
  } finally {
    store.close();
  }
}

export interface ImportMbtilesOptions {
  data: string;
  file: string;
  as: string;
}

/** `tilemirror import --mbtiles FILE --as tiles/ID|maps/ID`: returns the lines to print. */
export function importMbtilesCommand(opts: ImportMbtilesOptions): string[] {
  const { kind, id } = parseResource(opts.as, ['tiles', 'maps']);
  const data = resolve(opts.data);
  const paths = storePaths(data, kind, id);
  mkdirSync(paths.dir, { recursive: true });
  let lock;
  try {
    lock = acquireLock(paths.lock, 'import');
  } catch (err) {
    if (err instanceof LockError) throw new InterchangeError(`${kind}/${id} is busy: ${err.message}`);
    throw err;
  }
  try {
    const done = importMbtiles(resolve(opts.file), data, kind, id);
    const p = done.header.pyramids[0];
    return [
      `${opts.file} -> ${join(kind, `${id}.mbtiles`)}: ${done.tiles} ${p.format} tiles, zooms ${p.minzoom}-${p.maxzoom}, ` +
        `bounds ${p.bounds.join(',')}, published`,
    ];
  } catch (err) {
    if (err instanceof MbtilesImportError) throw new InterchangeError(`${opts.file} refused, nothing imported: ${err.message}`);
    throw err;
  } finally {
    lock.release();
  }
}
