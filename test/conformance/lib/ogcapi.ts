// OGC API - Tiles discovered the way a client (and the OGC test suite) finds it: from the landing page, its links to
// the conformance declaration, the collections, the dataset tilesets lists, and from those to each tileset, its tile
// matrix set and its tile templates. Nothing here knows the server's URL design.
import { essence, get, summary, type Answer } from './http';

export const REL = 'http://www.opengis.net/def/rel/ogc/1.0/';
export const TILESETS_RELS = [`${REL}tilesets-vector`, `${REL}tilesets-map`, `${REL}tilesets-coverage`];
export const TILING_SCHEME = `${REL}tiling-scheme`;
export const TILING_SCHEMES = `${REL}tiling-schemes`;
export const TILES_CONF = 'http://www.opengis.net/spec/ogcapi-tiles-1/1.0/conf/';

export interface Link {
  href: string;
  rel: string;
  type?: string;
  title?: string;
  templated?: boolean;
}

export interface Json {
  url: string;
  answer: Answer;
  /** The parsed body, undefined when it is not JSON. */
  doc?: Record<string, unknown>;
}

export async function getJson(url: string): Promise<Json> {
  const answer = await get(url, { Accept: 'application/json' });
  try {
    const doc = JSON.parse(answer.body.toString('utf8')) as unknown;
    return { url, answer, doc: doc && typeof doc === 'object' && !Array.isArray(doc) ? (doc as Record<string, unknown>) : undefined };
  } catch {
    return { url, answer };
  }
}

export function linksOf(doc: unknown, base: string): Link[] {
  const links = (doc as { links?: unknown } | undefined)?.links;
  if (!Array.isArray(links)) return [];
  return links
    .filter((l): l is Link => !!l && typeof l === 'object' && typeof (l as Link).href === 'string')
    .map((l) => ({ ...l, href: l.templated ? l.href : resolve(l.href, base) }));
}

/** An href resolved against the document it came from (links may be relative); left as it is when it cannot be. */
function resolve(href: string, base: string): string {
  try {
    return new URL(href, base || undefined).href;
  } catch {
    return href;
  }
}

export const byRel = (links: readonly Link[], ...rels: string[]): Link[] => links.filter((l) => rels.includes(l.rel));

/** What is wrong with a JSON answer of a resource: not 200, not application/json, not a JSON object. */
export function jsonProblems(j: Json, label: string): string[] {
  if (j.answer.status !== 200) return [`${label} ${j.url}: expected 200 with a JSON document; got ${summary(j.answer)}`];
  const p: string[] = [];
  if (j.answer.mediaType !== 'application/json') p.push(`${label} ${j.url}: Content-Type ${j.answer.contentType}, expected application/json`);
  if (!j.doc) p.push(`${label} ${j.url}: the body is not a JSON object`);
  return p;
}

export interface TilesetsList {
  /** Where the list was found: the landing page (dataset) or a collection (its id). */
  origin: 'dataset' | { collection: string; collectionUrl: string };
  link: Link;
  list: Json;
}

export interface Tileset {
  list: TilesetsList;
  /** The list entry that led here. */
  entry: Record<string, unknown>;
  self?: Link;
  tileset?: Json;
  tilingScheme?: Link;
  tms?: Json;
}

export interface Discovery {
  landingUrl: string;
  landing: Json;
  conformance?: Json;
  conformsTo: string[];
  collections?: Json;
  collectionDocs: Map<string, Json>;
  lists: TilesetsList[];
  tilesets: Tileset[];
}

/** Follows the links from the landing page to every tileset and its tile matrix set (each document fetched once). */
export async function discover(landingUrl: string): Promise<Discovery> {
  const cache = new Map<string, Promise<Json>>();
  const fetchOnce = (url: string): Promise<Json> => {
    if (!cache.has(url)) cache.set(url, getJson(url));
    return cache.get(url) as Promise<Json>;
  };
  const landing = await fetchOnce(landingUrl);
  const links = linksOf(landing.doc, landingUrl);
  const confLink = byRel(links, 'conformance', 'http://www.opengis.net/def/rel/ogc/1.0/conformance')[0];
  const conformance = confLink ? await fetchOnce(confLink.href) : undefined;
  const conformsTo = Array.isArray(conformance?.doc?.conformsTo) ? (conformance.doc.conformsTo as unknown[]).filter((c): c is string => typeof c === 'string') : [];
  const dataLink = byRel(links, 'data', 'http://www.opengis.net/def/rel/ogc/1.0/data')[0];
  const collections = dataLink ? await fetchOnce(dataLink.href) : undefined;
  const lists: TilesetsList[] = [];
  for (const l of byRel(links, ...TILESETS_RELS)) lists.push({ origin: 'dataset', link: l, list: await fetchOnce(l.href) });
  const collectionDocs = new Map<string, Json>();
  const entries = Array.isArray(collections?.doc?.collections) ? (collections.doc.collections as Record<string, unknown>[]) : [];
  for (const c of entries) {
    const id = String(c.id ?? '');
    const cLinks = linksOf(c, collections?.url ?? landingUrl);
    const self = byRel(cLinks, 'self')[0];
    if (self) collectionDocs.set(id, await fetchOnce(self.href));
    for (const l of byRel(cLinks, ...TILESETS_RELS)) lists.push({ origin: { collection: id, collectionUrl: self?.href ?? '' }, link: l, list: await fetchOnce(l.href) });
  }
  const tilesets: Tileset[] = [];
  for (const list of lists) {
    const items = Array.isArray(list.list.doc?.tilesets) ? (list.list.doc.tilesets as Record<string, unknown>[]) : [];
    for (const entry of items) {
      const eLinks = linksOf(entry, list.list.url);
      const self = byRel(eLinks, 'self')[0];
      const tileset = self ? await fetchOnce(self.href) : undefined;
      const tilingScheme = byRel(linksOf(tileset?.doc, self?.href ?? list.list.url), TILING_SCHEME)[0] ?? byRel(eLinks, TILING_SCHEME)[0];
      const tms = tilingScheme ? await fetchOnce(tilingScheme.href) : undefined;
      tilesets.push({ list, entry, self, tileset, tilingScheme, tms });
    }
  }
  return { landingUrl, landing, conformance, conformsTo, collections, collectionDocs, lists, tilesets };
}

export const tilesetLabel = (t: Tileset): string => t.self?.href ?? `(an entry of ${t.list.list.url} without a self link)`;

/** The templated tile links of a tileset (rel item, /req/tileset/description E). */
export const itemLinks = (t: Tileset): Link[] => byRel(linksOf(t.tileset?.doc, t.self?.href ?? ''), 'item');

/** A tile URL from a link template (RFC 6570 level 1, the variables of /req/tileset/description E). */
export function fillTileTemplate(href: string, tileMatrix: string, row: number | string, col: number | string): string {
  return href.replace(/\{tileMatrix\}/g, encodeURIComponent(tileMatrix)).replace(/\{tileRow\}/g, String(row)).replace(/\{tileCol\}/g, String(col));
}

/**
 * What is wrong with an error answer of the OGC API: its status (one of `statuses`), and the RFC 7807 problem details
 * the issue asks for (application/problem+json, a `status` member equal to the HTTP status, a title or detail).
 */
export function problemDetailsProblems(a: Answer, statuses: readonly number[], label: string): string[] {
  const want = `HTTP ${statuses.join(' or ')} as application/problem+json with status, title`;
  if (!statuses.includes(a.status) || a.mediaType !== 'application/problem+json') return [`${label}: expected ${want}; got ${summary(a)}`];
  let body: Record<string, unknown>;
  try {
    body = JSON.parse(a.body.toString('utf8')) as Record<string, unknown>;
  } catch {
    return [`${label}: the application/problem+json body is not JSON: ${summary(a)}`];
  }
  const p: string[] = [];
  if (body.status !== a.status) p.push(`${label}: problem details "status" is ${JSON.stringify(body.status)}, the HTTP status is ${a.status} (RFC 7807 §3.1)`);
  if (typeof body.title !== 'string' && typeof body.detail !== 'string') p.push(`${label}: problem details without a "title" or "detail" string`);
  if (body.type !== undefined && typeof body.type !== 'string') p.push(`${label}: problem details "type" is not a URI string`);
  return p;
}

export { essence };
