// The fetch step of a document store's run: the documents discovery described to fetch, group after group, a
// group's documents at once (up to the run's concurrency), each judged and checked as it arrives, until the
// kind's rules say the answers settle the store; the kind's rules then make the store's documents of them.
// Nothing is written here: documents are few and small (a font is 256 glyph ranges), so a document store is
// written whole when it is published, and a run always starts over instead of resuming.

import type { Discovered, DocumentAnswer, DocumentFetches, DocumentToStore } from '../discovery/types';
import { assertNoSecret } from '../rewrite';
import { judgeDocument } from '../upstream/documents';
import { RequestBudgetReached } from '../upstream/request-budget';
import { progressOf, stopOnBudget, type Run } from './begin-end';
import { DEFAULT_CONCURRENCY } from './options';
import { interrupted } from './result';

/** Runs `fn` over items with at most `n` in flight; stops taking new items once `stop()` says so. */
async function pool<T>(items: readonly T[], n: number, fn: (item: T) => Promise<void>, stop: () => boolean): Promise<void> {
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length && !stop()) await fn(items[next++]);
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(n, items.length)) }, worker));
}

/** Every answer the fetching got, by store path, in the order they arrived; and the request budget, if it stopped it. */
async function fetchAnswers(run: Run, fetches: DocumentFetches): Promise<{ answers: Map<string, DocumentAnswer>; spent?: RequestBudgetReached }> {
  const { client, opts, result } = run;
  const answers = new Map<string, DocumentAnswer>();
  let spent: RequestBudgetReached | undefined;
  const settled = (): boolean => fetches.settled(answers) || !!opts.signal?.aborted || !!spent;
  for (const group of fetches.groups) {
    if (settled()) break;
    await pool(
      group,
      Math.max(1, opts.concurrency ?? DEFAULT_CONCURRENCY),
      async (doc) => {
        try {
          answers.set(doc.path, await client.request(client.resolve(doc.url), judgeDocument(doc.check), opts.signal));
          result.fetched++;
          if (result.fetched % 32 === 0) opts.onProgress?.(progressOf(run));
        } catch (err) {
          // Not the document's failure: it was never asked for.
          if (err instanceof RequestBudgetReached) spent ??= err;
          else answers.set(doc.path, err instanceof Error ? err : new Error(String(err)));
        }
      },
      settled,
    );
  }
  return { answers, spent };
}

/**
 * Fetches a document store's documents and adds them to those discovery brought. Returns the documents to
 * publish; or undefined, the result saying why (interrupted, the upstream has no such resource, failures).
 */
export async function fetchDocuments(run: Run, discovered: Discovered): Promise<DocumentToStore[] | undefined> {
  const { opts, result, redact, resource } = run;
  const fetches = discovered.fetches;
  const fetched = fetches ? await fetchAnswers(run, fetches) : undefined;
  if (fetched?.spent) {
    stopOnBudget(run, fetched.spent);
    return undefined;
  }
  const assembled = fetches && fetched ? fetches.assemble(fetched.answers) : undefined;
  const documents = [...discovered.documents, ...(assembled?.documents ?? [])];
  const absent = (discovered.absent ?? 0) + (assembled?.absent ?? 0);
  const failures = assembled?.failures ?? [];
  const missing = discovered.missing ?? assembled?.missing;

  result.planned = discovered.documents.length + (discovered.absent ?? 0) + (fetches?.groups.flat().length ?? 0);
  result.stored = documents.length;
  result.empty = absent;
  result.failed = failures.length;
  result.fetched = Math.max(result.fetched - result.failed, result.stored + result.empty);
  result.failures.push(...failures.slice(0, 20).map(redact));
  result.notes.push(...[...discovered.notes, ...(assembled?.notes ?? [])].map(redact));
  for (const n of result.notes) run.log(`${resource}: ${n}`);

  if (opts.signal?.aborted) {
    interrupted(result);
    return undefined;
  }
  if (missing) {
    result.problems.push(redact(missing));
    return undefined;
  }
  if (failures.length) {
    result.problems.push(`${failures.length} documents failed; the published store is untouched, run again to retry`);
    return undefined;
  }
  // The key must not reach the store, whatever the upstream echoed.
  for (const d of documents) assertNoSecret(d.data, opts.key, `${resource} ${d.path}`);
  assertNoSecret(JSON.stringify(discovered.header), opts.key, `${resource} metadata`);
  return documents;
}
