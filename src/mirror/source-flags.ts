// The `--source-*` flags of `mirror` and `plan` as one GenericSource, each misuse a UsageError naming the flag:
// exactly one source, and each source's own options only with it.

import type { Flags } from './cli-options';
import { UsageError } from './errors';
import type { GenericSource } from './discovery/sources';

const OWN: Record<GenericSource['type'], (keyof Flags)[]> = {
  tilejson: [],
  wmts: ['layer', 'matrixSet'],
  xyz: ['subdomains', 'scheme'],
  wms: ['layers', 'styles', 'tileSize'],
};
const FLAG: Partial<Record<keyof Flags, string>> = {
  layer: '--layer',
  matrixSet: '--matrix-set',
  subdomains: '--subdomains',
  scheme: '--scheme',
  layers: '--layers',
  styles: '--styles',
  tileSize: '--tile-size',
};
const SOURCE_FLAG: Record<GenericSource['type'], string> = { tilejson: '--source-tilejson', wmts: '--source-wmts', xyz: '--source-xyz', wms: '--source-wms' };

/**
 * The source the flags name, or undefined without a --source-* flag. `explicit(name)` says whether an option was
 * given on the command line (defaults such as --wms-version are not a misuse).
 */
export function sourceFromFlags(flags: Flags, explicit: (name: keyof Flags) => boolean): GenericSource | undefined {
  const given = (Object.keys(SOURCE_FLAG) as GenericSource['type'][]).filter((t) => flagUrl(flags, t) !== undefined);
  const extras = (t?: GenericSource['type']): string[] =>
    (Object.entries(OWN) as [GenericSource['type'], (keyof Flags)[]][]).flatMap(([k, names]) => (k === t ? [] : names.filter((n) => explicit(n)).map((n) => `${FLAG[n]} goes with ${SOURCE_FLAG[k]}`)));
  if (given.length === 0) {
    const stray = [...extras(), ...(explicit('wmsVersion') ? ['--wms-version goes with --source-wms'] : [])];
    if (explicit('id')) stray.push('--id goes with a --source-* option');
    if (flags.format && !Array.isArray(flags.format)) stray.push(`--format ${flags.format.mime} (a MIME type) goes with --source-wms; for maps give formats, e.g. png,webp`);
    if (stray.length) throw new UsageError(stray.join('; '));
    return undefined;
  }
  if (given.length > 1) throw new UsageError(`give one source, not ${given.map((t) => SOURCE_FLAG[t]).join(' and ')}`);
  const type = given[0];
  const stray = extras(type);
  if (type !== 'wms' && explicit('wmsVersion')) stray.push('--wms-version goes with --source-wms');
  if (type !== 'wms' && flags.format && !Array.isArray(flags.format)) stray.push(`--format ${flags.format.mime} (a MIME type) goes with --source-wms`);
  if (type === 'wms' && Array.isArray(flags.format)) stray.push('with --source-wms, --format is the GetMap MIME type, e.g. image/png or image/jpeg');
  if (stray.length) throw new UsageError(stray.join('; '));
  const url = flagUrl(flags, type)!;
  switch (type) {
    case 'tilejson':
      return { type, url };
    case 'wmts':
      if (!flags.layer) throw new UsageError('--source-wmts needs --layer ID');
      return { type, url, layer: flags.layer, ...(flags.matrixSet && { matrixSet: flags.matrixSet }) };
    case 'xyz':
      return { type, url, ...(flags.subdomains && { subdomains: flags.subdomains }), ...(flags.scheme && { scheme: flags.scheme }) };
    case 'wms':
      if (!flags.layers) throw new UsageError('--source-wms needs --layers NAME[,NAME...]');
      return {
        type,
        url,
        layers: flags.layers,
        ...(flags.styles !== undefined && { styles: flags.styles }),
        ...(flags.format && !Array.isArray(flags.format) && { format: flags.format.mime }),
        ...(flags.wmsVersion && { version: flags.wmsVersion }),
        ...(flags.tileSize && { tileSize: flags.tileSize }),
      };
  }
}

function flagUrl(flags: Flags, type: GenericSource['type']): string | undefined {
  return { tilejson: flags.sourceTilejson, wmts: flags.sourceWmts, xyz: flags.sourceXyz, wms: flags.sourceWms }[type];
}
