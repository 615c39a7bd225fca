// XML Schema validation with xmllint, offline (--nonet), against the OGC schemas Debian's python3-mapproxy ships:
// WMTS 1.0 capabilities (wmtsGetCapabilities_response.xsd with OWS 1.1 and XLink beside it) and the OWS 1.1
// ExceptionReport (owsExceptionReport.xsd). Many documents are validated by one xmllint process.
import { execFile } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { ClientCheck } from '../../helpers/clients';

const SCHEMAS = '/usr/share/python3-mapproxy/test/schemas';
export const WMTS_CAPABILITIES_XSD = `${SCHEMAS}/wmts/1.0/wmtsGetCapabilities_response.xsd`;
export const OWS_EXCEPTION_XSD = `${SCHEMAS}/ows/1.1.0/owsExceptionReport.xsd`;

/** What the XSD checks need, for gatedTest: skipped and named when missing, failing when clients are required (CI). */
export const XMLLINT_CHECK: ClientCheck = {
  bins: ['xmllint'],
  files: [[WMTS_CAPABILITIES_XSD], [OWS_EXCEPTION_XSD]],
  packages: ['libxml2-utils', 'python3-mapproxy'],
};

export interface SchemaVerdict {
  valid: boolean;
  /** xmllint's messages about this document, empty when valid. */
  errors: string;
}

/**
 * The WMTS capabilities schema with its one known erratum corrected, as the OGC's own test suite corrects it in its
 * local copy (ets-wmts10 src/main/resources/xsd/ogc/wmts/1.0/readme.txt): the 2009 schema types MinTileRow,
 * MaxTileRow, MinTileCol and MaxTileCol as xs:positiveInteger although 07-057r7 Table 14 counts rows and columns from
 * 0. The copy is written to `dir` and imports the shipped OWS 1.1 and XLink schemas by absolute file URL.
 */
export function correctedCapabilitiesSchema(dir: string): string {
  const root = path.resolve(path.dirname(WMTS_CAPABILITIES_XSD), '..', '..');
  const shipped = readFileSync(WMTS_CAPABILITIES_XSD, 'utf8');
  const limits = /<element name="(Min|Max)Tile(Row|Col)" type="positiveInteger">/g;
  const count = shipped.match(limits)?.length ?? 0;
  if (count !== 4) throw new Error(`expected 4 TileMatrixLimits bounds typed positiveInteger in ${WMTS_CAPABILITIES_XSD}, found ${count}`);
  const corrected = shipped
    .replace(limits, '<element name="$1Tile$2" type="nonNegativeInteger">')
    .replace(/schemaLocation="\.\.\/\.\.\/([^"]+)"/g, (_m, rel: string) => `schemaLocation="${pathToFileURL(path.join(root, rel)).href}"`);
  const file = path.join(dir, 'wmtsGetCapabilities_response.nonNegativeLimits.xsd');
  writeFileSync(file, corrected);
  return file;
}

let batch = 0;

/** Validates every document against `xsd` in one xmllint run; verdicts in the order of `docs`. */
export async function validateAll(docs: readonly string[], xsd: string, dir: string): Promise<SchemaVerdict[]> {
  if (!docs.length) return [];
  const n = ++batch;
  const files = docs.map((xml, i) => {
    const file = path.join(dir, `doc-${n}-${i}.xml`);
    writeFileSync(file, xml);
    return file;
  });
  const stderr = await new Promise<string>((resolve) => {
    execFile('xmllint', ['--noout', '--nonet', '--schema', xsd, ...files], { maxBuffer: 64 * 1024 * 1024, timeout: 60_000 }, (_err, _out, err) =>
      resolve(String(err)),
    );
  });
  // A schema that cannot be loaded makes xmllint skip validation with a warning: that is no verdict at all.
  if (/failed to load|I\/O error|Skipping the import|WXS schema .* failed to compile/.test(stderr)) {
    throw new Error(`xmllint could not load ${xsd}:\n${stderr.slice(0, 2000)}`);
  }
  const lines = stderr.split('\n');
  return files.map((file) => {
    const valid = lines.includes(`${file} validates`);
    const errors = valid ? '' : lines.filter((l) => l.startsWith(file) || l.includes(`${file}:`)).map((l) => l.replace(file, path.basename(file))).join('\n');
    return { valid, errors: errors || '(no message from xmllint: not well-formed XML?)' };
  });
}
