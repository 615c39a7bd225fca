import type { Server, ServerResponse } from 'node:http';

// A graceful stop (SIGTERM, SIGINT): no new connections, idle keep-alive connections closed at once, busy ones
// as soon as their response is out, and whatever is still running after the grace period cut.

/** How often a draining server looks for connections whose response just finished. */
const IDLE_POLL_MS = 50;

export class Drain {
  private draining?: Promise<boolean>;

  constructor(private readonly server: Server) {}

  /** Called for every request before it is answered: while draining, the answer closes its connection. */
  mark(res: ServerResponse): void {
    if (this.draining) res.shouldKeepAlive = false;
  }

  /**
   * Stops accepting and waits for in-flight responses, at most `graceMs` (0: cut everything at once). Resolves
   * true when every response finished, false when some were cut at the end of the grace period.
   */
  close(graceMs: number): Promise<boolean> {
    this.draining ??= new Promise((resolve) => {
      const { server } = this;
      let cut = false;
      // A response that started before the drain went out with keep-alive: its connection turns idle when it
      // finishes, and is closed then (Node's close() only closes the connections idle at the call).
      const poll = setInterval(() => server.closeIdleConnections(), IDLE_POLL_MS);
      const timer = setTimeout(() => {
        cut = true;
        server.closeAllConnections();
      }, graceMs);
      server.close(() => {
        clearInterval(poll);
        clearTimeout(timer);
        resolve(!cut);
      });
      if (graceMs <= 0) {
        cut = true;
        server.closeAllConnections();
      } else {
        server.closeIdleConnections();
      }
    });
    return this.draining;
  }
}
