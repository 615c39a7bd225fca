// Where a bundle's bytes live. Two layouts of the same payload and manifest:
//  - one file:  payload | manifest JSON | signature JSON (or nothing) | u32 manifest length, u32 signature length,
//               8-byte magic "TMBUNDL1". Its parts (name '') are consecutive 64 MB segments of the payload, each
//               with its own SHA-256, so they are checked in parallel like the parts of a folder.
//  - a folder:  part-000001, part-000002 ... of `partSize` bytes (the last one shorter), manifest.json and, when
//               signed, manifest.sig. Fixed-size parts suit removable media and data diodes.
// Either way the writer writes under a temporary name and renames at the end: a killed export leaves no bundle.

import { createHash, type Hash } from 'node:crypto';
import { closeSync, existsSync, fstatSync, mkdirSync, openSync, readSync, renameSync, rmSync, statSync, writeFileSync, writevSync } from 'node:fs';
import { join } from 'node:path';
import { BundleError, parseManifest, type Manifest } from './manifest';

const MAGIC = Buffer.from('TMBUNDL1');
const TRAILER = 16;
const FLUSH_BYTES = 4 * 1024 * 1024;
const SEGMENT = 64 * 1024 * 1024;
export const MANIFEST_FILE = 'manifest.json';
export const SIGNATURE_FILE = 'manifest.sig';

export const partName = (i: number): string => `part-${String(i + 1).padStart(6, '0')}`;

/** `100M`, `4G`, `512K`, `1000000` (bytes; binary multiples) → bytes. */
export function parseSize(text: string): number {
  const m = /^(\d+(?:\.\d+)?)\s*([KMGT]?)i?B?$/i.exec(text.trim());
  if (!m) throw new Error(`not a size: ${text} (e.g. 100M, 4G)`);
  const n = Math.floor(Number(m[1]) * 1024 ** ' KMGT'.indexOf(m[2].toUpperCase() || ' '));
  if (!Number.isSafeInteger(n) || n < 1024) throw new Error(`a part size of at least 1K, not ${text}`);
  return n;
}

export interface PartInfo {
  name: string;
  size: number;
  sha256: string;
}

/** Writes the payload into one file or into fixed-size parts, hashing each part as it goes. */
export class PayloadWriter {
  readonly tmp: string;
  private fd: number;
  private part = 0;
  private partBytes = 0;
  private hash: Hash = createHash('sha256');
  private queue: Buffer[] = [];
  private queued = 0;
  readonly parts: PartInfo[] = [];
  offset = 0;
  /** Bytes hashed per part: the part size, or SEGMENT within one file. */
  private readonly segment: number;

  constructor(readonly out: string, readonly partSize: number | null) {
    if (existsSync(out)) throw new BundleError(`${out} exists: choose a new name for the bundle`);
    this.tmp = `${out}.partial`;
    this.segment = partSize ?? SEGMENT;
    rmSync(this.tmp, { recursive: true, force: true });
    if (partSize !== null) mkdirSync(this.tmp);
    this.fd = openSync(partSize === null ? this.tmp : join(this.tmp, partName(0)), 'w');
  }

  write(chunks: Buffer[]): void {
    for (let c of chunks) {
      while (c.length > 0) {
        const room = this.segment - this.partBytes;
        const piece = c.length > room ? c.subarray(0, room) : c;
        this.queue.push(piece);
        this.queued += piece.length;
        this.hash.update(piece);
        this.partBytes += piece.length;
        this.offset += piece.length;
        c = c.subarray(piece.length);
        if (this.partBytes === this.segment) this.nextPart();
        else if (this.queued >= FLUSH_BYTES) this.flush();
      }
    }
  }

  /** Writes `bytes` and everything queued before it to the file now: the caller may reuse the buffer. */
  writeNow(bytes: Buffer): void {
    this.write([bytes]);
    this.flush();
  }

  private flush(): void {
    let bufs = this.queue;
    while (bufs.length > 0) {
      // writev takes at most IOV_MAX (1024) buffers; a short write resumes where it stopped.
      const batch = bufs.slice(0, 1024);
      let written = writevSync(this.fd, batch);
      let i = 0;
      while (i < batch.length && written >= batch[i].length) written -= batch[i++].length;
      if (i < batch.length) bufs = [batch[i].subarray(written), ...batch.slice(i + 1), ...bufs.slice(1024)];
      else bufs = bufs.slice(1024);
    }
    this.queue = [];
    this.queued = 0;
  }

  private closePart(): void {
    this.flush();
    closeSync(this.fd);
    this.parts.push({ name: this.partSize === null ? '' : partName(this.part), size: this.partBytes, sha256: this.hash.digest('hex') });
  }

  private nextPart(): void {
    if (this.partSize === null) {
      // One file: only the hash starts over.
      this.parts.push({ name: '', size: this.partBytes, sha256: this.hash.digest('hex') });
    } else {
      this.closePart();
      this.fd = openSync(join(this.tmp, partName(this.part + 1)), 'w');
    }
    this.part++;
    this.partBytes = 0;
    this.hash = createHash('sha256');
  }

  /** Closes the last part (an empty trailing part is dropped) and returns the parts. */
  endPayload(): PartInfo[] {
    this.closePart();
    const last = this.parts[this.parts.length - 1];
    if (last.size === 0 && this.parts.length > 1) {
      this.parts.pop();
      if (last.name) rmSync(join(this.tmp, last.name));
    }
    return this.parts;
  }

  /** Writes the manifest (and signature) and renames the bundle into place. */
  finish(manifest: Buffer, signature: Buffer | undefined): void {
    if (this.partSize === null) {
      const fd = openSync(this.tmp, 'a');
      const trailer = Buffer.alloc(TRAILER);
      trailer.writeUInt32BE(manifest.length, 0);
      trailer.writeUInt32BE(signature?.length ?? 0, 4);
      MAGIC.copy(trailer, 8);
      writevSync(fd, [manifest, ...(signature ? [signature] : []), trailer]);
      closeSync(fd);
    } else {
      writeFileSync(join(this.tmp, MANIFEST_FILE), manifest);
      if (signature) writeFileSync(join(this.tmp, SIGNATURE_FILE), signature);
    }
    renameSync(this.tmp, this.out);
  }

  abandon(): void {
    try {
      closeSync(this.fd);
    } catch {
      // already closed
    }
    rmSync(this.tmp, { recursive: true, force: true });
  }
}

/** A bundle as found on disk: its manifest bytes, signature bytes, and where each part's bytes are. */
export interface OpenedBundle {
  path: string;
  manifestBytes: Buffer;
  manifest: Manifest;
  signature?: Buffer;
  /** File and offset of each part, in manifest order. */
  locations: { file: string; offset: number }[];
}

function readAt(file: string, offset: number, length: number): Buffer {
  const fd = openSync(file, 'r');
  try {
    const b = Buffer.alloc(length);
    const n = readSync(fd, b, 0, length, offset);
    if (n !== length) throw new BundleError(`${file}: short read`);
    return b;
  } finally {
    closeSync(fd);
  }
}

export function openBundle(path: string): OpenedBundle {
  if (!existsSync(path)) throw new BundleError(`${path}: no such bundle`);
  if (statSync(path).isDirectory()) {
    const mfile = join(path, MANIFEST_FILE);
    if (!existsSync(mfile)) throw new BundleError(`${path}: no ${MANIFEST_FILE}: not a bundle folder, or an incomplete copy`);
    const manifestBytes = readFileBytes(mfile);
    const manifest = parseManifest(manifestBytes, mfile);
    const sfile = join(path, SIGNATURE_FILE);
    return {
      path,
      manifestBytes,
      manifest,
      signature: existsSync(sfile) ? readFileBytes(sfile) : undefined,
      locations: manifest.parts.map((p) => ({ file: join(path, p.name), offset: 0 })),
    };
  }
  const fd = openSync(path, 'r');
  let size: number;
  try {
    size = fstatSync(fd).size;
  } finally {
    closeSync(fd);
  }
  const trailer = size >= TRAILER ? readAt(path, size - TRAILER, TRAILER) : Buffer.alloc(0);
  if (trailer.length < TRAILER || !trailer.subarray(8).equals(MAGIC)) {
    throw new BundleError(`${path}: not a complete tilemirror bundle (no trailer at its end: truncated, or not a bundle)`);
  }
  const mlen = trailer.readUInt32BE(0);
  const slen = trailer.readUInt32BE(4);
  if (mlen + slen + TRAILER > size) throw new BundleError(`${path}: damaged trailer`);
  const manifestBytes = readAt(path, size - TRAILER - slen - mlen, mlen);
  const manifest = parseManifest(manifestBytes, path);
  if (manifest.payloadBytes + mlen + slen + TRAILER !== size) {
    throw new BundleError(`${path}: ${size} bytes, the manifest says ${manifest.payloadBytes + mlen + slen + TRAILER}: truncated or damaged`);
  }
  if (manifest.parts.some((p) => p.name !== '')) throw new BundleError(`${path}: a single-file bundle names no part files`);
  let offset = 0;
  return {
    path,
    manifestBytes,
    manifest,
    signature: slen > 0 ? readAt(path, size - TRAILER - slen, slen) : undefined,
    locations: manifest.parts.map((p) => ({ file: path, offset: (offset += p.size) - p.size })),
  };
}

function readFileBytes(file: string): Buffer {
  const size = statSync(file).size;
  return size === 0 ? Buffer.alloc(0) : readAt(file, 0, size);
}

const CHUNK = 4 * 1024 * 1024;

/** A buffer whose memory can be shared with a worker thread (a hashing thread reads the bytes read into it). */
export function sharedBuffer(size: number): Buffer {
  return Buffer.from(new SharedArrayBuffer(size));
}

/**
 * What a reader hands every byte it reads to: a hashing thread sharing the reader's buffers (StreamHashing in
 * verify.ts). A buffer is refilled only once the range last read into it is hashed.
 */
export interface ReadHashing {
  /** The sequence number of the last range handed over. */
  readonly posted: number;
  /** Blocks until the range handed over as `seq` (and every one before it) is hashed. */
  wait(seq: number): void;
  /** `bytes` (in a sharedBuffer) were read at payload position `pos`. */
  feed(pos: number, bytes: Buffer): void;
}

/**
 * Reads a byte range of the payload across parts, sequentially, through two buffers in turn. With `hashing`, every
 * byte read is also handed to its hashing thread (the buffers are shared with it, and one is refilled only once
 * the hashing thread is done with it).
 */
export class PayloadReader {
  private buf: Buffer;
  private spare: Buffer;
  /** The hashing sequence number of the last range read into buf / spare. */
  private bufSeq = 0;
  private spareSeq = 0;
  private start = 0;
  private end = 0;
  private pos: number;
  private readonly stop: number;
  private readonly fds = new Map<number, number>();

  constructor(private readonly b: OpenedBundle, offset: number, length: number, private readonly hashing?: ReadHashing) {
    this.pos = offset;
    this.stop = offset + length;
    this.buf = this.alloc(CHUNK);
    this.spare = this.alloc(CHUNK);
  }

  private alloc(n: number): Buffer {
    return this.hashing ? sharedBuffer(n) : Buffer.allocUnsafe(n);
  }

  get done(): boolean {
    return this.pos >= this.stop && this.start === this.end;
  }

  /**
   * Exactly n bytes. The slice is valid until the next record is decoded: callers use a record (SQLite copies
   * the bound data) before reading the next one.
   */
  readonly read = (n: number): Buffer => {
    if (this.end - this.start >= n) {
      const out = this.buf.subarray(this.start, this.start + n);
      this.start += n;
      return out;
    }
    if (n - (this.end - this.start) > this.stop - this.pos) throw new BundleError('damaged bundle payload: a record runs past the end of its store');
    if (n > this.buf.length / 2) {
      // A big tile: its own buffer.
      const out = this.alloc(n);
      const have = this.end - this.start;
      this.buf.copy(out, 0, this.start, this.end);
      this.start = this.end;
      this.fill(out, have, n - have);
      return out;
    }
    const have = this.end - this.start;
    // Two buffers in turn: the slice returned before this refill (the previous record's data) stays valid until
    // the refill after it, and no fresh memory is faulted in per chunk.
    const next = this.spare;
    this.hashing?.wait(this.spareSeq);
    this.spare = this.buf;
    this.spareSeq = this.bufSeq;
    this.buf.copy(next, 0, this.start, this.end);
    this.buf = next;
    this.start = 0;
    this.end = have;
    const want = Math.min(CHUNK - have, this.stop - this.pos);
    if (want < n - have) throw new BundleError('damaged bundle payload: a record runs past the end of its store');
    this.fill(this.buf, have, want);
    this.bufSeq = this.hashing?.posted ?? 0;
    this.end = have + want;
    const out = this.buf.subarray(0, n);
    this.start = n;
    return out;
  };

  /** Reads `length` payload bytes at this.pos into target[at..], across parts. */
  private fill(target: Buffer, at: number, length: number): void {
    if (this.pos + length > this.stop) throw new BundleError('damaged bundle payload: a record runs past the end of its store');
    let part = 0;
    let base = 0;
    const parts = this.b.manifest.parts;
    while (length > 0) {
      while (part < parts.length && this.pos >= base + parts[part].size) base += parts[part++].size;
      if (part >= parts.length) throw new BundleError('damaged bundle payload: past the last part');
      const within = this.pos - base;
      const n = Math.min(length, parts[part].size - within);
      let fd = this.fds.get(part);
      if (fd === undefined) {
        fd = openSync(this.b.locations[part].file, 'r');
        this.fds.set(part, fd);
      }
      const got = readSync(fd, target, at, n, this.b.locations[part].offset + within);
      if (got !== n) throw new BundleError(`${parts[part].name || this.b.path}: short read (changed since it was verified?)`);
      this.hashing?.feed(this.pos, target.subarray(at, at + n));
      at += n;
      length -= n;
      this.pos += n;
    }
  }

  close(): void {
    for (const fd of this.fds.values()) closeSync(fd);
    this.fds.clear();
  }
}
