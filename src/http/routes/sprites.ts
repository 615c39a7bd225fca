import { withKey } from '../../ogc/urls';
import { z } from 'zod';
import { id } from '../params';
import { documentReply, notFound, type Reply } from '../reply';
import type { RequestContext } from '../route-table';
import { requireStore } from './stores';

// Sprite sheets: one store per sprite (`sprites/{id}.mbtiles`) holding sprite.json, sprite.png, sprite@2x.json,
// sprite@2x.png. The deprecated map-scoped path serves the sprite of the map's style, byte for byte.

const TYPES = { png: 'image/png', json: 'application/json; charset=utf-8' } as const;
type SpriteFormat = keyof typeof TYPES;

interface SpriteFile {
  /** `sprite.png`, `sprite@2x.json`, ... */
  name: string;
  format: SpriteFormat;
}

// The scale (none or `@2x`) and format (`png` or `json`) of a sprite path.
const spriteFileShape = {
  scale: z.literal('@2x', { error: 'Invalid scale: only @2x is supported' }).optional().describe('`@2x`: the HiDPI sheet'),
  format: z.enum(['png', 'json'], { error: 'Invalid format: png or json' }).describe('`png` the sheet, `json` its index'),
};
export const spriteParams = z.object({ spriteId: id('sprite id'), ...spriteFileShape });
export const mapSpriteParams = z.object({ mapId: id('map id'), ...spriteFileShape });

function spriteFile(p: { scale?: '@2x'; format: SpriteFormat }): SpriteFile {
  return { name: `sprite${p.scale ?? ''}.${p.format}`, format: p.format };
}

function spriteReply(ctx: RequestContext, id: string, file: SpriteFile): Reply {
  const store = ctx.catalog.documents('sprites', id);
  if (!store) throw notFound(`Unknown sprite: ${id}`);
  const doc = store.document(file.name);
  if (!doc) throw notFound(`This sprite has no ${file.name}`);
  return documentReply(doc.data, TYPES[file.format], `${store.version}-${file.name}`);
}

/** `/sprites/{spriteId}/sprite[@2x].{png,json}` */
export function sprite(ctx: RequestContext, p: z.output<typeof spriteParams>): Reply {
  return spriteReply(ctx, p.spriteId, spriteFile(p));
}

/**
 * `/maps/{mapId}/sprite[@2x].{png,json}` (deprecated: the dispatcher adds `Deprecation: true`): the same bytes as
 * the sprites endpoint for the sprite of the map's style, with a `Link` to that successor.
 */
export function mapSprite(ctx: RequestContext, p: z.output<typeof mapSpriteParams>): Reply {
  const file = spriteFile(p);
  const store = requireStore(ctx, 'maps', p.mapId);
  const id = ctx.services.mapSprites.of(store);
  if (id === undefined) throw notFound('This map has no sprite');
  const reply = spriteReply(ctx, id, file);
  const successor = withKey(ctx.baseUrl, `/sprites/${encodeURIComponent(id)}/${file.name}`, ctx.key);
  return { ...reply, headers: { ...reply.headers, Link: `<${successor}>; rel="successor-version"` } };
}
