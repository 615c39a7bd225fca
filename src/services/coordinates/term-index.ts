// The coordinates search's words in memory, read once from the index (search-tables.ts wrote it): every object's
// name and alias words, the words of the areas of use, country fits and country words. Answers, for a query's terms,
// which objects match and how well (match quality × usage weight); search.ts filters, ranks and pages. Built in
// memory on the first search (19,334 objects: 0.6 s, 12 MB of heap here) because the rank needs, per term, which
// field matched and whether a word matched whole or as a prefix, which SQLite's FTS5 does not tell cheaply.

import type Database from 'better-sqlite3';
import { words } from './place-words';
import { searchTables } from './registry-sql';

/** Field weights: a term found in the name counts fully, in an alias a little less, in the area of use less again. */
const NAME = 1;
const ALIAS = 0.9;
const AREA = 0.8;
/** A country word found only in a name or alias whose area does not fit that country (the "Australian Antarctic"). */
const NAME_WITHOUT_COUNTRY = 0.3;
/**
 * A country term: a CRS that is not projected counts this much of its fit, so that a country's projected CRS come
 * before the geographic and geocentric ones its area also fits (and the continental ones whose weight is larger).
 */
const COUNTRY_NOT_PROJECTED = 0.3;
/** A term matched through its letters and digits split ("wgs84" as "wgs 84"). */
const SPLIT = 0.9;
/** The query is an object's whole name or alias; its words follow each other in one. */
const EXACT_NAME = 3;
const PHRASE = 1.5;

/** A query term: its words (all to be found in one field), its letters/digits split, the countries it names. */
interface Term {
  words: string[];
  split?: string[];
  isos: string[];
}

/** Tokens of one field: token → positions (objects, or extents for the area field), and the tokens sorted. */
class Postings {
  readonly map = new Map<string, number[]>();
  sorted: string[] = [];

  add(token: string, pos: number): void {
    const list = this.map.get(token);
    if (!list) this.map.set(token, [pos]);
    else if (list[list.length - 1] !== pos) list.push(pos);
  }

  seal(): void {
    this.sorted = [...this.map.keys()].sort();
  }

  /**
   * Positions holding a token that is `word` (quality 1) or starts with it (0.5 + 0.5 × the share of the token the
   * word is); a word of digits does not match a longer number ("4" is not "45"), a one-letter word only whole.
   */
  match(word: string, into: Map<number, number>): void {
    const exact = this.map.get(word);
    if (exact) for (const p of exact) into.set(p, 1);
    if (word.length < 2) return;
    const digits = /^\d+$/.test(word);
    let lo = 0;
    let hi = this.sorted.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.sorted[mid] <= word) lo = mid + 1;
      else hi = mid;
    }
    for (let i = lo; i < this.sorted.length && this.sorted[i].startsWith(word); i++) {
      const token = this.sorted[i];
      if (digits && /\d/.test(token[word.length])) continue;
      const q = 0.5 + (0.5 * word.length) / token.length;
      for (const p of this.map.get(token) as number[]) if ((into.get(p) ?? 0) < q) into.set(p, q);
    }
  }
}

export class TermIndex {
  /** Per object, by position: the database id, code, kind, deprecated, base CRS, source CRS (operations), weight. */
  readonly id: Int32Array;
  readonly code: Int32Array;
  readonly kind: string[];
  readonly deprecated: Uint8Array;
  readonly base: Int32Array;
  readonly src: Int32Array;
  readonly weight: Float64Array;
  /** Positions in decreasing weight (then deprecated last, then code): the order of a query without terms. */
  readonly byWeight: Int32Array;
  readonly byCode = new Map<number, number[]>();
  private readonly spread: Float64Array;
  /** Name words, then each alias's words, separated by " | " (search-tables.ts). */
  private readonly nameAndAliases: string[];
  private readonly names = new Postings();
  private readonly aliases = new Postings();
  private readonly areas = new Postings();
  private readonly objectsOfExtent = new Map<number, number[]>();
  private readonly fits = new Map<string, Map<number, number>>();
  private readonly countryWords = new Map<string, string[]>();

  constructor(db: Database.Database) {
    const tables = searchTables(db);
    const rows = tables.objects;
    const n = rows.length;
    this.id = new Int32Array(n);
    this.code = new Int32Array(n);
    this.kind = new Array<string>(n);
    this.deprecated = new Uint8Array(n);
    this.base = new Int32Array(n);
    this.src = new Int32Array(n);
    this.weight = new Float64Array(n);
    this.spread = new Float64Array(n);
    this.nameAndAliases = new Array<string>(n);
    const posOfId = new Map<number, number>();
    for (let i = 0; i < n; i++) {
      const [id, code, kind, deprecated, base, src, weight, ws, extents, spread] = rows[i];
      posOfId.set(id, i);
      this.id[i] = id;
      this.code[i] = code;
      this.kind[i] = kind;
      this.deprecated[i] = deprecated;
      this.base[i] = base ?? -1;
      this.src[i] = src ?? -1;
      this.weight[i] = weight;
      this.spread[i] = spread;
      this.nameAndAliases[i] = ws;
      const codes = this.byCode.get(code);
      if (codes) codes.push(i);
      else this.byCode.set(code, [i]);
      const bar = ws.indexOf(' | ');
      for (const w of (bar < 0 ? ws : ws.slice(0, bar)).split(' ')) if (w) this.names.add(w, i);
      if (bar >= 0) for (const w of ws.slice(bar + 3).split(' ')) if (w && w !== '|') this.aliases.add(w, i);
      if (extents) {
        for (const e of extents.split(' ')) {
          const list = this.objectsOfExtent.get(+e);
          if (list) list.push(i);
          else this.objectsOfExtent.set(+e, [i]);
        }
      }
    }
    for (const [code, ws] of tables.areaWords) {
      for (const w of ws.split(' ')) if (w) this.areas.add(w, code);
    }
    for (const [id, iso, fit] of tables.countryFits) {
      let m = this.fits.get(iso);
      if (!m) this.fits.set(iso, (m = new Map()));
      m.set(posOfId.get(id) as number, fit);
    }
    for (const [word, isos] of tables.countryWords) this.countryWords.set(word, isos.split(' '));
    this.names.seal();
    this.aliases.seal();
    this.areas.seal();
    const order = Array.from({ length: n }, (_, i) => i);
    order.sort((a, b) => this.weight[b] - this.weight[a] || this.deprecated[a] - this.deprecated[b] || this.code[a] - this.code[b]);
    this.byWeight = Int32Array.from(order);
  }

  /** The terms of a query: consecutive terms that together name a country become one ("great britain"). */
  private terms(raw: string[]): Term[] {
    const out: Term[] = [];
    for (let i = 0; i < raw.length; i++) {
      let joined: Term | undefined;
      for (let k = Math.min(3, raw.length - i); k >= 2 && !joined; k--) {
        const ws = words(raw.slice(i, i + k).join(' '));
        const isos = this.countryWords.get(ws.join(' '));
        if (isos) {
          joined = { words: ws, isos };
          i += k - 1;
        }
      }
      if (joined) {
        out.push(joined);
        continue;
      }
      const ws = words(raw[i]);
      if (!ws.length) continue;
      const one = ws.join(' ');
      const split = ws.length === 1 && /\p{L}\p{N}|\p{N}\p{L}/u.test(one) ? one.replace(/(\p{L})(\p{N})/gu, '$1 $2').replace(/(\p{N})(\p{L})/gu, '$1 $2').split(' ') : undefined;
      out.push({ words: ws, split, isos: this.countryWords.get(one) ?? [] });
    }
    return out;
  }

  /** Objects whose field holds every word of `ws` (the lowest quality of the words), `into` keeping the best. */
  private field(postings: Postings, ws: string[], factor: number, into: Map<number, number>, viaExtents = false): void {
    let acc: Map<number, number> | undefined;
    for (const w of ws) {
      const m = new Map<number, number>();
      postings.match(w, m);
      let hits = m;
      if (viaExtents) {
        hits = new Map();
        for (const [extent, q] of m) for (const p of this.objectsOfExtent.get(extent) ?? []) if ((hits.get(p) ?? 0) < q) hits.set(p, q);
      }
      if (!acc) acc = hits;
      else for (const [p, q] of acc) {
        const other = hits.get(p);
        if (other === undefined) acc.delete(p);
        else if (other < q) acc.set(p, other);
      }
      if (!acc.size) return;
    }
    for (const [p, q] of acc ?? []) {
      const v = q * factor * (viaExtents ? this.spread[p] : 1);
      if ((into.get(p) ?? 0) < v) into.set(p, v);
    }
  }

  /** How well each object matches one term (0 < score ≤ 1), see the constants above. */
  private termScores(t: Term): Map<number, number> {
    const text = new Map<number, number>();
    for (const [ws, f] of [[t.words, 1], ...(t.split ? [[t.split, SPLIT]] : [])] as [string[], number][]) {
      this.field(this.names, ws, NAME * f, text);
      this.field(this.aliases, ws, ALIAS * f, text);
      // A country word is matched by the country fit, not by the words of area texts ("Switzerland County, Indiana").
      if (!t.isos.length) this.field(this.areas, ws, AREA * f, text, true);
    }
    if (!t.isos.length) return text;
    const fit = new Map<number, number>();
    for (const iso of t.isos) {
      for (const [p, f] of this.fits.get(iso) ?? []) {
        const v = this.kind[p] === 'CRS-PROJCRS' || !this.kind[p].startsWith('CRS-') ? f : f * COUNTRY_NOT_PROJECTED;
        if ((fit.get(p) ?? 0) < v) fit.set(p, v);
      }
    }
    const out = new Map<number, number>(fit);
    for (const [p, v] of text) {
      const f = fit.get(p) ?? 0;
      out.set(p, Math.max(f, v * Math.max(f, NAME_WITHOUT_COUNTRY)));
    }
    return out;
  }

  /** 2 when `ws` are the whole name or an alias of `p`, 1 when they appear one after another, whole, in one. */
  private phrase(p: number, ws: string[]): number {
    const asked = ws.join(' ');
    let found = 0;
    for (const seq of this.nameAndAliases[p].split(' | ')) {
      if (seq === asked) return 2;
      if (found || ws.length < 2) continue;
      if (` ${seq} `.includes(` ${asked} `)) found = 1;
    }
    return found;
  }

  /** Objects matching every term, with their score (match quality × usage weight); `keep` filters positions. */
  match(raw: string[], keep: (p: number) => boolean): Map<number, number> {
    const terms = this.terms(raw);
    if (!terms.length) return new Map();
    // The term with the fewest matches first: the others only score what it found.
    const scored = terms.map((t) => this.termScores(t)).sort((a, b) => a.size - b.size);
    const out = new Map<number, number>();
    for (const [p, s] of scored[0]) {
      if (!keep(p)) continue;
      let rel = s;
      for (let i = 1; i < scored.length && rel > 0; i++) rel *= scored[i].get(p) ?? 0;
      if (rel > 0) out.set(p, rel);
    }
    const all = terms.flatMap((t) => t.words);
    for (const [p, rel] of out) {
      const found = this.phrase(p, all);
      out.set(p, rel * (found === 2 ? EXACT_NAME : found === 1 ? PHRASE : 1) * this.weight[p]);
    }
    return out;
  }
}
