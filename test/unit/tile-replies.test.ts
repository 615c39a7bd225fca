// TileReplies: the reply of a tile buffer is built once (its ETag hashed once) and is the same object for every
// request of that buffer; headers given with it (a kept grid tile's X-Tilemirror-Source) are part of that one reply.
import { createHash } from 'node:crypto';
import { EMPTY_TILE_ETAG, TileReplies } from '../../src/http/tile-replies';

const png = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 1, 2, 3]);

describe('TileReplies', () => {
  test('one reply per buffer: the same object each time, with the media type and an ETag of the bytes', () => {
    const replies = new TileReplies();
    const a = replies.of(png, 'png');
    expect(replies.of(png, 'png')).toBe(a);
    expect(a).toMatchObject({ status: 200, body: png, type: 'image/png', cache: 'tile' });
    // The ETag names the bytes: another buffer of the same bytes has the same one.
    expect(replies.of(Buffer.from(png), 'png').etag).toBe(a.etag);
    expect(replies.of(Buffer.from([...png, 4]), 'png').etag).not.toBe(a.etag);
    expect(a.etag).toContain(createHash('sha1').update(png).digest('base64url').slice(0, 8));
  });

  test('headers given with the buffer are in its reply, built once for that headers object', () => {
    const replies = new TileReplies();
    const kept = Object.freeze({ 'X-Tilemirror-Source': 'kept' });
    const a = replies.of(png, 'png', kept);
    expect(a.headers).toEqual({ 'X-Tilemirror-Source': 'kept' });
    expect(replies.of(png, 'png', kept)).toBe(a);
    // Without them (or with another object) it is another reply, without the header.
    expect(replies.of(png, 'png').headers).toBeUndefined();
  });

  test('no bytes: no content, the one empty ETag', () => {
    expect(new TileReplies().of(undefined, 'png')).toMatchObject({ status: 204, etag: EMPTY_TILE_ETAG });
  });
});
