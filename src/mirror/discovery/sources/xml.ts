// Capabilities XML (WMTS, WMS) as plain objects, and the two readers every use of them needs. Pure.

import { XMLParser } from 'fast-xml-parser';

export type XmlNode = Record<string, unknown>;

/**
 * The document as plain objects: namespaces dropped, attributes as `@_name`, every value a string, the elements
 * named in `arrays` always arrays (an element that occurs once or many times reads the same).
 */
export function parseXml(xml: string, arrays: ReadonlySet<string>): XmlNode {
  const parser = new XMLParser({
    ignoreAttributes: false,
    attributeNamePrefix: '@_',
    removeNSPrefix: true,
    parseTagValue: false,
    parseAttributeValue: false,
    trimValues: true,
    isArray: (name) => arrays.has(name),
  });
  return parser.parse(xml) as XmlNode;
}

/** A value as a list: absent is empty, one is a list of one. */
export const arr = (v: unknown): unknown[] => (v === undefined || v === null ? [] : Array.isArray(v) ? v : [v]);

/** Text of an element: a string, or the #text of an element with attributes (the first of a list). */
export function txt(v: unknown): string | undefined {
  if (Array.isArray(v)) return txt(v[0]);
  if (typeof v === 'string') return v.trim();
  if (typeof v === 'number') return String(v);
  if (v && typeof v === 'object' && '#text' in v) return txt((v as XmlNode)['#text']);
  return undefined;
}
