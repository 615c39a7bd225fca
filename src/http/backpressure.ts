import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

// One 64 KB read can carry ~1,000 pipelined requests, and Node handles every one as it is parsed: each answer
// is built and held in memory until the answers before it are sent. A client that pipelines and never reads
// would make the server hold thousands of answers per socket (measured without this bound: 200 such sockets took
// RSS from 459 MB to 2,974 MB).
// Here at most MAX_IN_FLIGHT requests per connection are handled at once; the rest wait, as cheap request
// objects, and the connection is not read further until they are all answered.

export const MAX_IN_FLIGHT = 8;

interface SocketQueue {
  inFlight: number;
  waiting: (() => void)[];
  pausedByUs: boolean;
}

const queues = new WeakMap<Socket, SocketQueue & { socket: Socket }>();

const QUEUE = Symbol('connection queue');
type QueuedResponse = ServerResponse & { [QUEUE]?: SocketQueue & { socket: Socket } };

/** Runs `handle` now, or once fewer than MAX_IN_FLIGHT earlier answers on the same connection are unfinished. */
export function admit(req: IncomingMessage, res: ServerResponse, handle: () => void): void {
  const socket = req.socket;
  let queue = queues.get(socket);
  if (!queue) {
    const fresh = { inFlight: 0, waiting: [], pausedByUs: false, socket };
    queues.set(socket, fresh);
    socket.once('close', () => {
      fresh.waiting.length = 0;
    });
    queue = fresh;
  }
  if (queue.inFlight < MAX_IN_FLIGHT) {
    start(res, queue);
    handle();
    return;
  }
  const waiting = queue;
  waiting.waiting.push(() => {
    start(res, waiting);
    handle();
  });
  if (!waiting.pausedByUs) {
    waiting.pausedByUs = true;
    socket.pause();
  }
}

// One shared listener (not a closure per request: this runs for every tile), the queue kept on the response.
function start(res: ServerResponse, queue: SocketQueue & { socket: Socket }): void {
  queue.inFlight += 1;
  (res as QueuedResponse)[QUEUE] = queue;
  res.on('close', finished);
}

function finished(this: QueuedResponse): void {
  const queue = this[QUEUE];
  if (!queue) return;
  queue.inFlight -= 1;
  const next = queue.waiting.shift();
  if (next) {
    next();
  } else if (queue.pausedByUs && !queue.socket.destroyed) {
    queue.pausedByUs = false;
    queue.socket.resume();
  }
}
