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

interface Seen {
  /** bytesRead + bytesWritten at the last look (-1: not looked at since it was handed to the keep-alive timer). */
  moved: number;
  /** When `moved` last changed (performance.now()). */
  since: number;
}

/** Closes the server's connections that stay stalled for `ms` (see above). Stops when the server closes. */
export function closeStalledSockets(server: Server, ms: number): void {
  const watched = new Map<Socket, Seen>();
  server.on('connection', (socket: Socket) => {
    watched.set(socket, { moved: -1, since: performance.now() });
    socket.once('close', () => watched.delete(socket));
  });
  const timer = setInterval(
    () => {
      const now = performance.now();
      for (const [socket, seen] of watched) {
        // Idle between requests: Node's keep-alive timer (socket.setTimeout) decides.
        if (socket.timeout) {
          seen.moved = -1;
          continue;
        }
        const moved = socket.bytesRead + socket.bytesWritten;
        if (moved !== seen.moved) {
          seen.moved = moved;
          seen.since = now;
        } else if (now - seen.since >= ms) {
          watched.delete(socket);
          socket.destroy();
        }
      }
    },
    Math.min(1000, ms / 4),
  ).unref();
  server.once('close', () => clearInterval(timer));
}
