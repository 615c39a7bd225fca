// Plain HTTP GETs with fetch that fail with the URL, status and start of the body when the answer is not 200.
import { KEY } from './server';

/** Appends the API key (and other parameters) to a path or URL. */
export function withKey(url: string, params: Record<string, string> = {}): string {
  const u = new URL(url);
  if (!u.searchParams.has('key')) u.searchParams.set('key', KEY);
  for (const [k, v] of Object.entries(params)) u.searchParams.set(k, v);
  return u.toString();
}

export async function fetchOk(url: string): Promise<{ body: Buffer; contentType: string }> {
  const res = await fetch(url);
  const body = Buffer.from(await res.arrayBuffer());
  if (res.status !== 200) {
    throw new Error(`GET ${url} -> ${res.status} ${res.headers.get('content-type') ?? ''}: ${body.toString('utf8', 0, 500)}`);
  }
  return { body, contentType: res.headers.get('content-type') ?? '' };
}

export async function fetchText(url: string): Promise<string> {
  return (await fetchOk(url)).body.toString('utf8');
}

export async function fetchJson<T = unknown>(url: string): Promise<T> {
  const { body, contentType } = await fetchOk(url);
  if (!/json/.test(contentType)) throw new Error(`GET ${url}: expected a JSON media type, got '${contentType}'`);
  return JSON.parse(body.toString('utf8')) as T;
}
