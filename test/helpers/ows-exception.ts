// OWS 1.1 exception reports as the WMTS tests read them: parsed apart from the code under test (fast-xml-parser),
// and validated against owsExceptionReport.xsd with xmllint, offline (Debian's python3-mapproxy ships the schema).
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { XMLParser } from 'fast-xml-parser';
import type { ClientCheck } from './clients';
import { tempDirs } from './temp-dirs';

export const SCHEMA_DIR = process.env.WMTS_SCHEMA_DIR ?? '/usr/share/python3-mapproxy/test/schemas';
export const EXCEPTION_XSD = path.join(SCHEMA_DIR, 'ows/1.1.0/owsExceptionReport.xsd');

/** What validating exception reports needs (for gatedTest). */
export const EXCEPTION_SCHEMA_CHECK: ClientCheck = { bins: ['xmllint'], files: [[EXCEPTION_XSD]], packages: ['libxml2-utils', 'python3-mapproxy'] };

export interface ParsedException {
  code: string;
  locator?: string;
  text: string;
}

export interface ParsedReport {
  namespace: string;
  version: string;
  lang: string;
  exceptions: ParsedException[];
}

const parser = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '@_', parseTagValue: false, parseAttributeValue: false });

/** The report's root attributes and its exceptions; throws when the document is not an ows:ExceptionReport. */
export function parseExceptionReport(xml: string): ParsedReport {
  const doc = parser.parse(xml) as Record<string, Record<string, unknown>>;
  const root = doc['ows:ExceptionReport'];
  if (!root) throw new Error(`not an ows:ExceptionReport: ${xml.slice(0, 200)}`);
  const exceptions = [root['ows:Exception']].flat() as Record<string, string>[];
  return {
    namespace: String(root['@_xmlns:ows']),
    version: String(root['@_version']),
    lang: String(root['@_xml:lang']),
    exceptions: exceptions.map((e) => {
      const parsed: ParsedException = { code: e['@_exceptionCode'], text: String(e['ows:ExceptionText'] ?? '') };
      if (e['@_locator'] !== undefined) parsed.locator = e['@_locator'];
      return parsed;
    }),
  };
}

/** xmllint's verdict on a document against a schema: `ok` and its output. */
export function validateXml(xml: string, xsd: string): { ok: boolean; out: string } {
  const temp = tempDirs('tilemirror-xsd-');
  const dir = temp.tempDir();
  try {
    const file = path.join(dir, 'doc.xml');
    writeFileSync(file, xml);
    const r = spawnSync('xmllint', ['--noout', '--nonet', '--schema', xsd, file], { encoding: 'utf8' });
    const out = `${r.stdout}${r.stderr}`;
    // A schema that could not be loaded makes xmllint skip validation with a warning: that is no verdict.
    if (/failed to load|I\/O error|Skipping the import/.test(out)) throw new Error(`xmllint could not load ${xsd}:\n${out}`);
    return { ok: r.status === 0 && /validates/.test(out), out };
  } finally {
    temp.removeTempDirs();
  }
}
