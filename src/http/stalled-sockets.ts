import type { Server } from 'node:http';
import type { Socket } from 'node:net';

// A connection on which no byte moves either way for `socketTimeoutSeconds` while a request is read or answered
// is closed: above all a client that stopped reading its answers (its writes make no progress), which would
// otherwise hold them, and its socket, for good. Node's `server.timeout` does this with a timer per socket that
// the server re-arms on every request (a new Timeout and a bound function) and refreshes on every read and write:
// ~0.6 µs of every tile request in the serve profile, about 1.5 % of its CPU. Here one interval looks at every
// connection's byte counts a few times per timeout instead, so a stalled connection closes between 1 and 1.25
// timeouts (at most a second more) after its last byte. Between requests a keep-alive connection is left to
// Node's own keep-alive timer: Node arms it with socket.setTimeout, so `socket.timeout` is then non-zero.
//
// A client that reads, but slower than `minSendRate` bytes per second over `minSendRateSeconds`, while the server
// has bytes waiting for it, is closed by the same sweep: each such reader keeps its whole answer in the process's
// memory (a rendered 4096 px static map is over a megabyte), and one that takes a few bytes a second never stalls
// (measured: 500 connections of slowhttptest's slow-read mode, a 16-byte window, took the server's RSS from 100 to
// 653 MB). A connection whose bytes are all with the kernel holds no memory of ours and is not measured.
//
// What moved is what the kernel took: `socket.bytesWritten` counts bytes as soon as they are written to the socket,
// before the kernel takes them (a whole answer at once), so the bytes still queued in libuv for the socket
// (`writeQueueSize` of its handle) are taken off.

/** The socket's handle as libuv exposes it to Node: the bytes of its writes not yet taken by the kernel. */
interface SocketHandle {
  writeQueueSize?: number;
}
type SocketInternals = Socket & { _handle?: SocketHandle | null };

/** Bytes written to the socket and not yet taken by the kernel. */
function queued(socket: Socket): number {
  return (socket as SocketInternals)._handle?.writeQueueSize ?? 0;
}

export interface MinSendRate {
  /** Bytes per second; 0: no minimum. */
  bytesPerSecond: number;
  /** The window the rate is measured over. */
  windowMs: number;
  /** Called for each connection closed for reading too slowly (for a log line). */
  onClosed?: () => void;
}

interface Seen {
  /** bytesRead + bytes sent at the last look (-1: not looked at since it was handed to the keep-alive timer). */
  moved: number;
  /** When `moved` last changed (performance.now()). */
  since: number;
  /** Bytes sent when the rate window began (-1: nothing waits for the client, not measured). */
  rateFrom: number;
  /** When the rate window began. */
  rateSince: number;
}

/** Closes the server's connections that stay stalled for `ms`, or read slower than `minRate` (see above). Stops when the server closes. */
export function closeStalledSockets(server: Server, ms: number, minRate?: MinSendRate): void {
  const watched = new Map<Socket, Seen>();
  server.on('connection', (socket: Socket) => {
    watched.set(socket, { moved: -1, since: performance.now(), rateFrom: -1, rateSince: 0 });
    socket.once('close', () => watched.delete(socket));
  });
  const rate = minRate && minRate.bytesPerSecond > 0 ? minRate : undefined;
  const close = (socket: Socket): void => {
    watched.delete(socket);
    socket.destroy();
  };
  const timer = setInterval(
    () => {
      const now = performance.now();
      for (const [socket, seen] of watched) {
        // Idle between requests: Node's keep-alive timer (socket.setTimeout) decides.
        if (socket.timeout) {
          seen.moved = -1;
          seen.rateFrom = -1;
          continue;
        }
        const waiting = queued(socket);
        const sent = socket.bytesWritten - waiting;
        const moved = socket.bytesRead + sent;
        if (moved !== seen.moved) {
          seen.moved = moved;
          seen.since = now;
        } else if (now - seen.since >= ms) {
          close(socket);
          continue;
        }
        if (!rate) continue;
        if (waiting === 0) {
          seen.rateFrom = -1;
        } else if (seen.rateFrom < 0) {
          seen.rateFrom = sent;
          seen.rateSince = now;
        } else if (now - seen.rateSince >= rate.windowMs) {
          if (sent - seen.rateFrom < (rate.bytesPerSecond * (now - seen.rateSince)) / 1000) {
            close(socket);
            rate.onClosed?.();
            continue;
          }
          seen.rateFrom = sent;
          seen.rateSince = now;
        }
      }
    },
    Math.min(1000, ms / 4, rate ? rate.windowMs / 4 : Infinity),
  ).unref();
  server.once('close', () => clearInterval(timer));
}
