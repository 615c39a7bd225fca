// Encoded polylines (Google's "Encoded Polyline Algorithm Format", precision 5): latitude first in the
// encoding, [lon, lat] positions here. Decoding is @mapbox/polyline's; this wrapper checks the text first,
// because the library decodes any string into numbers without complaint (a truncated value included).

import polyline from '@mapbox/polyline';

/** Every character of an encoded polyline lies in '?' (63) .. '~' (126). */
const ALPHABET = /^[\x3f-\x7e]*$/;

export class PolylineError extends Error {}

/**
 * Decodes an encoded polyline into [lon, lat] positions. Throws PolylineError when the text is not a
 * complete polyline: a character outside the alphabet, a value cut short, or an odd number of values.
 */
export function decodePolyline(encoded: string, precision = 5): Array<[number, number]> {
  if (!ALPHABET.test(encoded)) throw new PolylineError('a character outside the polyline alphabet');
  // A value ends with a chunk below 0x20 (no continuation bit); positions are pairs of values.
  let values = 0;
  for (let i = 0; i < encoded.length; i++) if (encoded.charCodeAt(i) - 63 < 0x20) values++;
  if (encoded.length > 0 && encoded.charCodeAt(encoded.length - 1) - 63 >= 0x20) throw new PolylineError('the last value is cut short');
  if (values % 2 !== 0) throw new PolylineError('an odd number of values (a latitude without its longitude)');
  return polyline.decode(encoded, precision).map(([lat, lon]) => [lon, lat]);
}

/** Encodes [lon, lat] positions (the inverse of decodePolyline). */
export function encodePolyline(positions: ReadonlyArray<readonly [number, number]>, precision = 5): string {
  return polyline.encode(positions.map(([lon, lat]) => [lat, lon]), precision);
}
