// `serve --workers N`: connections go to any worker, so a scrape answered by one worker alone would show that
// worker's counts, and counters would jump between scrapes. Instead the worker that gets the scrape asks the
// primary, which gathers every worker's registry (prom-client's AggregatorRegistry, over the cluster's IPC) and
// answers with their aggregate: counters and histograms summed, per-store and per-job gauges (the same in every
// worker) taken once, by each metric's `aggregator`.

import cluster from 'node:cluster';
import { AggregatorRegistry, type Registry } from 'prom-client';

const REQUEST = 'tilemirror:metrics-request';
const ANSWER = 'tilemirror:metrics-answer';
/** How long a worker waits for the primary's aggregate (prom-client's own wait for each worker is 5 s). */
const WAIT_MS = 8000;

interface Answer {
  type: typeof ANSWER;
  id: number;
  text?: string;
  error?: string;
}

/** In the primary: answers the workers' scrape requests with the aggregate of every worker. */
export function aggregateWorkerMetrics(): void {
  const aggregator = new AggregatorRegistry();
  cluster.on('message', (worker, message: { type?: unknown; id?: unknown }) => {
    if (message?.type !== REQUEST || typeof message.id !== 'number') return;
    const id = message.id;
    const reply = (answer: Omit<Answer, 'type' | 'id'>) => worker.isConnected() && worker.send({ type: ANSWER, id, ...answer });
    aggregator.clusterMetrics().then(
      (text) => reply({ text }),
      (err: unknown) => reply({ error: err instanceof Error ? err.message : String(err) }),
    );
  });
}

/**
 * In a worker: lets the primary read `registry`, and returns the scrape to use instead of the registry's own:
 * the aggregate of every worker, from the primary. Rejects when the primary does not answer in time.
 */
export function workerScrape(registry: Registry): () => Promise<string> {
  AggregatorRegistry.setRegistries([registry]);
  // Constructing one installs prom-client's answer to the primary's requests in this worker.
  new AggregatorRegistry();
  let next = 0;
  const pending = new Map<number, (answer: Answer) => void>();
  process.on('message', (message: Partial<Answer>) => {
    if (message?.type === ANSWER && typeof message.id === 'number') pending.get(message.id)?.(message as Answer);
  });
  return () =>
    new Promise((resolve, reject) => {
      const id = next++;
      const timer = setTimeout(() => {
        pending.delete(id);
        reject(new Error('the primary did not answer with the workers’ metrics'));
      }, WAIT_MS);
      pending.set(id, (answer) => {
        pending.delete(id);
        clearTimeout(timer);
        if (answer.text !== undefined) resolve(answer.text);
        else reject(new Error(answer.error ?? 'no metrics'));
      });
      process.send?.({ type: REQUEST, id });
    });
}
