/// <reference lib="dom" />
// Building the console's elements, and the figures as it writes them. Every element is built with textContent:
// nothing the API answers is ever parsed as markup. The byte and duration formats are the CLI's own (store/units).

import { formatBytes, formatDuration } from '../../../store/units';

/** An attribute or property value; null, undefined and false leave it unset. */
type AttrValue = string | number | boolean | null | undefined;
type Child = Node | string | number | null | undefined;

/** The element of the page (or of `root`) a selector names; the page's shell holds every one the script asks for. */
export function $<T extends HTMLElement = HTMLElement>(selector: string, root: ParentNode = document): T {
  const found = root.querySelector<T>(selector);
  if (!found) throw new Error(`the console page has no ${selector}`);
  return found;
}

/** An element with attributes and children; strings become text nodes, never markup. */
export function el<K extends keyof HTMLElementTagNameMap>(tag: K, attrs: Record<string, AttrValue> = {}, ...children: Child[]): HTMLElementTagNameMap[K] {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === undefined || v === null || v === false) continue;
    if (k === 'class') e.className = String(v);
    else if (k.startsWith('data-')) e.setAttribute(k, String(v));
    // A DOM property of this element (type, value, max, hidden, colSpan, selected …), set as the property.
    else (e as unknown as Record<string, AttrValue>)[k] = v;
  }
  for (const c of children) if (c !== undefined && c !== null) e.append(c instanceof Node ? c : String(c));
  return e;
}

export const count = (n: number | null | undefined): string => (typeof n === 'number' ? n.toLocaleString('en') : '–');
export const when = (iso: string | null | undefined): string => (iso ? String(iso).replace('T', ' ').replace(/\.\d+Z$/, 'Z') : '–');
export const seconds = (s: number | null | undefined): string => (typeof s === 'number' ? formatDuration(s) : '–');
export const bytes = (n: number | null | undefined): string => (typeof n === 'number' ? formatBytes(n) : '–');
