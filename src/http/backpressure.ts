import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

// One 64 KB read can carry ~1,000 pipelined requests, and Node handles every one as it is parsed: each answer
// is built and held in memory until the answers before it are sent. A client that pipelines and never reads
// made the server hold thousands of answers per socket (issue 8: 200 sockets took RSS from 459 MB to 2,974 MB).
// Here at most MAX_IN_FLIGHT requests per connection are handled at once; the rest wait, as cheap request
// objects, and the connection is not read further until they are all answered.

export const MAX_IN_FLIGHT = 8;

interface SocketQueue {
  inFlight: number;
  waiting: (() => void)[];
  pausedByUs: boolean;
}

const queues = new WeakMap<Socket, SocketQueue>();

/** Runs `handle` now, or once fewer than MAX_IN_FLIGHT earlier answers on the same connection are unfinished. */
export function admit(req: IncomingMessage, res: ServerResponse, handle: () => void): void {
  const socket = req.socket;
  let q = queues.get(socket);
  if (!q) {
    const fresh: SocketQueue = { inFlight: 0, waiting: [], pausedByUs: false };
    queues.set(socket, fresh);
    socket.once('close', () => {
      fresh.waiting.length = 0;
    });
    q = fresh;
  }
  const queue = q;
  const run = (): void => {
    queue.inFlight += 1;
    res.once('close', () => {
      queue.inFlight -= 1;
      const next = queue.waiting.shift();
      if (next) {
        next();
      } else if (queue.pausedByUs && !socket.destroyed) {
        queue.pausedByUs = false;
        socket.resume();
      }
    });
    handle();
  };
  if (queue.inFlight < MAX_IN_FLIGHT) return run();
  queue.waiting.push(run);
  if (!queue.pausedByUs) {
    queue.pausedByUs = true;
    socket.pause();
  }
}
