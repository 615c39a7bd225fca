// The OGC WMTS 1.0 capabilities schema as Debian's python3-mapproxy ships it, with its one known erratum
// corrected (see test/interop/xmllint-wmts-schema.interop.test.ts): for tests that validate capabilities offline.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { run } from './run';

export const DEBIAN_XSD = '/usr/share/python3-mapproxy/test/schemas/wmts/1.0/wmtsGetCapabilities_response.xsd';

export async function findSchema(): Promise<string | undefined> {
  if (existsSync(DEBIAN_XSD)) return DEBIAN_XSD;
  const r = await run('dpkg', ['-L', 'python3-mapproxy'], { timeoutMs: 20_000 });
  return r.stdout.split('\n').find((l) => l.endsWith('/wmts/1.0/wmtsGetCapabilities_response.xsd'));
}

/** A copy of the shipped schema with the TileMatrixLimits erratum corrected, importing the shipped OWS/XLink. */
export function correctedSchema(shipped: string, dir: string): string {
  const root = path.resolve(path.dirname(shipped), '..', '..'); // .../schemas (holds ows/, xlink/, wmts/)
  let xsd = readFileSync(shipped, 'utf8');
  const limits = /<element name="(Min|Max)Tile(Row|Col)" type="positiveInteger">/g;
  const found = xsd.match(limits)?.length ?? 0;
  if (found !== 4) throw new Error(`expected the 4 TileMatrixLimits elements typed positiveInteger in ${shipped}, found ${found}`);
  xsd = xsd.replace(limits, '<element name="$1Tile$2" type="nonNegativeInteger">');
  xsd = xsd.replace(/schemaLocation="\.\.\/\.\.\/([^"]+)"/g, (_m, rel: string) => `schemaLocation="${pathToFileURL(path.join(root, rel)).href}"`);
  const out = path.join(dir, 'wmtsGetCapabilities_response.corrected.xsd');
  writeFileSync(out, xsd);
  return out;
}

