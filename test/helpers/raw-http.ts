// A raw HTTP/1.1 client for hostile input: requests go out as the exact bytes given (bad UTF-8, NUL, huge
// headers), many at once on one socket (pipelining), and the answers are parsed off the wire one by one
// (Content-Length, chunked, or until close). No decoding, no retries, no agent.

import { connect } from 'node:net';

export interface RawAnswer {
  status: number;
  /** Header names lower-cased; the last value wins. */
  headers: Record<string, string>;
  bodyLength: number;
}

export interface PipelineResult {
  /** The answers, in request order; fewer than sent when the server closed the connection early. */
  answers: RawAnswer[];
  /** Set when the socket failed (reset, timeout) rather than closing cleanly. */
  error?: string;
}

/** One request as bytes: `GET target HTTP/1.1`, Host, the extra header lines, blank line. */
export function requestBytes(target: Buffer | string, headers: readonly (Buffer | string)[] = []): Buffer {
  const lines: Buffer[] = [Buffer.from('GET '), Buffer.from(target as string), Buffer.from(' HTTP/1.1\r\nHost: 127.0.0.1\r\n')];
  for (const h of headers) lines.push(Buffer.from(h as string), Buffer.from('\r\n'));
  lines.push(Buffer.from('\r\n'));
  return Buffer.concat(lines);
}

/** Parses as many complete answers as `buf` holds from `offset`; `closed`: the rest of the stream is all there is. */
function parseAnswers(buf: Buffer, closed: boolean, out: RawAnswer[], want: number): number {
  let offset = 0;
  while (out.length < want) {
    const end = buf.indexOf('\r\n\r\n', offset);
    if (end < 0) return offset;
    const lines = buf.subarray(offset, end).toString('latin1').split('\r\n');
    const status = Number(lines[0].split(' ')[1]);
    const headers: Record<string, string> = {};
    for (const line of lines.slice(1)) {
      const i = line.indexOf(':');
      if (i > 0) headers[line.slice(0, i).trim().toLowerCase()] = line.slice(i + 1).trim();
    }
    let pos = end + 4;
    if (status === 204 || status === 304 || (status >= 100 && status < 200)) {
      // No body.
    } else if (/chunked/i.test(headers['transfer-encoding'] ?? '')) {
      let length = 0;
      for (;;) {
        const lineEnd = buf.indexOf('\r\n', pos);
        if (lineEnd < 0) return offset;
        const size = parseInt(buf.subarray(pos, lineEnd).toString('latin1'), 16);
        if (Number.isNaN(size)) throw new Error(`bad chunk size after status ${status}`);
        if (buf.length < lineEnd + 2 + size + 2) return offset;
        pos = lineEnd + 2 + size + 2;
        length += size;
        if (size === 0) break;
      }
      headers['x-raw-body-length'] = String(length);
    } else if (headers['content-length'] !== undefined) {
      const length = Number(headers['content-length']);
      if (buf.length < pos + length) return offset;
      pos += length;
    } else {
      // Body until close.
      if (!closed) return offset;
      pos = buf.length;
    }
    const bodyLength = headers['x-raw-body-length'] !== undefined ? Number(headers['x-raw-body-length']) : pos - end - 4;
    out.push({ status, headers, bodyLength });
    if (status === 101) return pos;
    offset = pos;
  }
  return offset;
}

/**
 * Opens a loopback connection, writes every request at once (pipelined) and reads the answers until all came or
 * the server closed. `limitMs` is a safety net against a hang (then `error` says so), not a performance bound.
 */
export function pipeline(port: number, requests: readonly Buffer[], limitMs: number): Promise<PipelineResult> {
  return new Promise((resolve) => {
    const answers: RawAnswer[] = [];
    let buf: Buffer = Buffer.alloc(0);
    let done = false;
    const socket = connect(port, '127.0.0.1');
    const finish = (error?: string) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      socket.destroy();
      resolve({ answers, ...(error !== undefined && { error }) });
    };
    const timer = setTimeout(() => finish(`no complete answer after ${limitMs} ms (${answers.length}/${requests.length} answered)`), limitMs);
    const consume = (closed: boolean) => {
      try {
        const used = parseAnswers(buf, closed, answers, requests.length);
        buf = buf.subarray(used);
      } catch (err) {
        finish((err as Error).message);
        return;
      }
      if (answers.length === requests.length || closed) finish();
    };
    socket.on('connect', () => socket.write(Buffer.concat(requests as Buffer[])));
    socket.on('data', (chunk: Buffer) => {
      buf = buf.length ? Buffer.concat([buf, chunk]) : chunk;
      consume(false);
    });
    socket.on('end', () => consume(true));
    socket.on('close', () => consume(true));
    // A reset after the server answered and closed (it stops reading a request it refused) is not a failure:
    // what counts is the answers that came.
    socket.on('error', (err) => {
      if (answers.length === 0 && buf.length === 0) finish(`socket error before any answer: ${err.message}`);
      else consume(true);
    });
  });
}
