// OGC API conformance declaration (/ogc/conformance). Only classes the server implements. Common: core, the landing
// page (links to the API definition `service-desc` /openapi.json and `service-doc` /docs, conformance, data) and
// JSON. Not oas30: that class asks for an OpenAPI 3.0 definition (media type ...;version=3.0); ours is 3.1.0.

export const CONFORMANCE_CLASSES: readonly string[] = [
  'http://www.opengis.net/spec/ogcapi-common-1/1.0/conf/core',
  'http://www.opengis.net/spec/ogcapi-common-1/1.0/conf/landing-page',
  'http://www.opengis.net/spec/ogcapi-common-1/1.0/conf/json',
  'http://www.opengis.net/spec/ogcapi-tiles-1/1.0/conf/core',
  'http://www.opengis.net/spec/ogcapi-tiles-1/1.0/conf/tileset',
  'http://www.opengis.net/spec/ogcapi-tiles-1/1.0/conf/tilesets-list',
  'http://www.opengis.net/spec/ogcapi-tiles-1/1.0/conf/dataset-tilesets',
  'http://www.opengis.net/spec/ogcapi-tiles-1/1.0/conf/geodata-tilesets',
  'http://www.opengis.net/spec/tms/2.0/conf/tilematrixset',
  'http://www.opengis.net/spec/tms/2.0/conf/json-tilematrixset',
];

export function conformance(): { conformsTo: string[] } {
  return { conformsTo: [...CONFORMANCE_CLASSES] };
}
