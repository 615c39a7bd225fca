// A WMTS 1.0 ServiceMetadata (capabilities) document read into what the conformance tests need: the operations and
// their DCP bindings, every layer with its styles, formats, tile matrix set links and limits, RESTful ResourceURL
// templates and sample dimensions, and the tile matrix sets (07-057r7 §7.1, Tables 4-14, 32).
// Namespace prefixes are dropped: the XSD validation checks the namespaces, this reader only the content.
import { XMLParser } from 'fast-xml-parser';

export interface GetBinding {
  href: string;
  /** The GetEncoding constraint's allowed values (KVP, RESTful); empty when the Get has none. */
  encodings: string[];
}

export interface TileMatrix {
  id: string;
  scaleDenominator: number;
  tileWidth: number;
  tileHeight: number;
  matrixWidth: number;
  matrixHeight: number;
}

export interface TileMatrixSet {
  id: string;
  supportedCrs: string;
  wellKnownScaleSet?: string;
  matrices: TileMatrix[];
}

export interface TileMatrixLimits {
  matrix: string;
  minRow: number;
  maxRow: number;
  minCol: number;
  maxCol: number;
}

export interface TileMatrixSetLink {
  tms: string;
  /** Absent when the link has no TileMatrixSetLimits (every matrix of the set, whole). */
  limits?: TileMatrixLimits[];
}

export interface ResourceUrl {
  format: string;
  resourceType: string;
  template: string;
}

export interface Dimension {
  id: string;
  default?: string;
  current: boolean;
  values: string[];
}

export interface Layer {
  id: string;
  title: string;
  styles: { id: string; isDefault: boolean }[];
  formats: string[];
  links: TileMatrixSetLink[];
  resourceUrls: ResourceUrl[];
  dimensions: Dimension[];
}

export interface Capabilities {
  /** The root element's local name and namespace-free attributes. */
  root: string;
  version?: string;
  updateSequence?: string;
  /** Local names of the root's children, in document order: the sections (and ServiceMetadataURL). */
  sections: string[];
  schemaLocation?: string;
  serviceIdentification?: Record<string, unknown>;
  serviceProvider?: Record<string, unknown>;
  operations: Map<string, { gets: GetBinding[]; parameters: Map<string, string[]> }>;
  layers: Layer[];
  tileMatrixSets: TileMatrixSet[];
  serviceMetadataUrls: string[];
  themeLayerRefs: string[];
}

type Node = Record<string, unknown>;

// Elements that may repeat, by their path of local names (TileMatrixSet and TileMatrix are also text children of
// TileMatrixSetLink and TileMatrixLimits, hence paths, not names).
const REPEATED = new Set([
  'Capabilities.OperationsMetadata.Operation',
  'Capabilities.OperationsMetadata.Operation.DCP',
  'Capabilities.OperationsMetadata.Operation.DCP.HTTP.Get',
  'Capabilities.OperationsMetadata.Operation.DCP.HTTP.Get.Constraint',
  'Capabilities.OperationsMetadata.Operation.DCP.HTTP.Get.Constraint.AllowedValues.Value',
  'Capabilities.OperationsMetadata.Operation.Parameter',
  'Capabilities.OperationsMetadata.Operation.Parameter.AllowedValues.Value',
  'Capabilities.Contents.Layer',
  'Capabilities.Contents.Layer.Style',
  'Capabilities.Contents.Layer.Format',
  'Capabilities.Contents.Layer.TileMatrixSetLink',
  'Capabilities.Contents.Layer.TileMatrixSetLink.TileMatrixSetLimits.TileMatrixLimits',
  'Capabilities.Contents.Layer.ResourceURL',
  'Capabilities.Contents.Layer.Dimension',
  'Capabilities.Contents.Layer.Dimension.Value',
  'Capabilities.Contents.TileMatrixSet',
  'Capabilities.Contents.TileMatrixSet.TileMatrix',
  'Capabilities.ServiceMetadataURL',
  'Capabilities.Themes.Theme',
  'Capabilities.Themes.Theme.Theme',
  'Capabilities.Themes.Theme.LayerRef',
]);

const parser = new XMLParser({
  ignoreAttributes: false,
  removeNSPrefix: true,
  attributeNamePrefix: '@',
  parseTagValue: false,
  parseAttributeValue: false,
  trimValues: true,
  isArray: (_name, jpath) => REPEATED.has(String(jpath)),
});

const list = (v: unknown): Node[] => (Array.isArray(v) ? v : v === undefined ? [] : [v]) as Node[];
/** The text of an element that may carry attributes (then fast-xml-parser puts the text under #text). */
export const text = (v: unknown): string => (typeof v === 'string' ? v : v && typeof v === 'object' ? String((v as Node)['#text'] ?? '') : '');
const num = (v: unknown): number => Number(text(v));

/** Parses the ServiceMetadata document; throws when it is not XML with a root element. */
export function parseCapabilities(xml: string): Capabilities {
  const doc = parser.parse(xml) as Node;
  const root = Object.keys(doc).find((k) => !k.startsWith('?'));
  if (!root) throw new Error('not an XML document');
  const caps = (doc[root] ?? {}) as Node;
  const sections = Object.keys(caps).filter((k) => !k.startsWith('@') && k !== '#text');
  const contents = (caps.Contents ?? {}) as Node;
  return {
    root,
    version: caps['@version'] as string | undefined,
    updateSequence: caps['@updateSequence'] as string | undefined,
    sections,
    schemaLocation: caps['@schemaLocation'] as string | undefined,
    serviceIdentification: caps.ServiceIdentification as Node | undefined,
    serviceProvider: caps.ServiceProvider as Node | undefined,
    operations: readOperations(caps.OperationsMetadata as Node | undefined),
    layers: list(contents.Layer).map(readLayer),
    tileMatrixSets: list(contents.TileMatrixSet).map(readTileMatrixSet),
    serviceMetadataUrls: list(caps.ServiceMetadataURL).map((u) => String(u['@href'] ?? '')),
    themeLayerRefs: themeRefs(list((caps.Themes as Node | undefined)?.Theme)),
  };
}

function readOperations(om: Node | undefined): Capabilities['operations'] {
  const ops: Capabilities['operations'] = new Map();
  for (const op of list(om?.Operation)) {
    const gets = list(op.DCP).flatMap((dcp) =>
      list((dcp.HTTP as Node | undefined)?.Get).map((g) => ({
        href: String(g['@href'] ?? ''),
        encodings: list(g.Constraint)
          .filter((c) => c['@name'] === 'GetEncoding')
          .flatMap((c) => list((c.AllowedValues as Node | undefined)?.Value).map(text)),
      })),
    );
    const parameters = new Map(list(op.Parameter).map((p) => [String(p['@name']), list((p.AllowedValues as Node | undefined)?.Value).map(text)] as const));
    ops.set(String(op['@name']), { gets, parameters });
  }
  return ops;
}

function readLayer(l: Node): Layer {
  return {
    id: text(l.Identifier),
    title: text(l.Title),
    styles: list(l.Style).map((s) => ({ id: text(s.Identifier), isDefault: s['@isDefault'] === 'true' })),
    formats: list(l.Format).map(text),
    links: list(l.TileMatrixSetLink).map((k) => {
      const limits = k.TileMatrixSetLimits as Node | undefined;
      return {
        tms: text(k.TileMatrixSet),
        limits: limits
          ? list(limits.TileMatrixLimits).map((m) => ({
              matrix: text(m.TileMatrix),
              minRow: num(m.MinTileRow),
              maxRow: num(m.MaxTileRow),
              minCol: num(m.MinTileCol),
              maxCol: num(m.MaxTileCol),
            }))
          : undefined,
      };
    }),
    resourceUrls: list(l.ResourceURL).map((r) => ({ format: String(r['@format'] ?? ''), resourceType: String(r['@resourceType'] ?? ''), template: String(r['@template'] ?? '') })),
    dimensions: list(l.Dimension).map((d) => ({
      id: text(d.Identifier),
      default: d.Default === undefined ? undefined : text(d.Default),
      current: text(d.Current) === 'true' || text(d.Current) === '1',
      values: list(d.Value).map(text),
    })),
  };
}

function readTileMatrixSet(t: Node): TileMatrixSet {
  return {
    id: text(t.Identifier),
    supportedCrs: text(t.SupportedCRS),
    wellKnownScaleSet: t.WellKnownScaleSet === undefined ? undefined : text(t.WellKnownScaleSet),
    matrices: list(t.TileMatrix).map((m) => ({
      id: text(m.Identifier),
      scaleDenominator: num(m.ScaleDenominator),
      tileWidth: num(m.TileWidth),
      tileHeight: num(m.TileHeight),
      matrixWidth: num(m.MatrixWidth),
      matrixHeight: num(m.MatrixHeight),
    })),
  };
}

function themeRefs(themes: Node[]): string[] {
  return themes.flatMap((t) => [...list(t.LayerRef).map(text), ...themeRefs(list(t.Theme))]);
}

/** The Get bindings of an operation that accept an encoding (a Get without a GetEncoding constraint counts as KVP). */
export function getBindings(caps: Capabilities, operation: string, encoding: 'KVP' | 'RESTful'): GetBinding[] {
  return (caps.operations.get(operation)?.gets ?? []).filter((g) => (g.encodings.length ? g.encodings.includes(encoding) : encoding === 'KVP'));
}
