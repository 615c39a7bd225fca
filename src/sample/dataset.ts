// The sample dataset: one point per large country (its label point, inside its largest polygon) as a GeoJSON
// FeatureCollection, served at /data/{id}/features.json from `data/{id}.mbtiles` (document features.json), the
// shape a mirror run of a dataset writes.

import type { Feature, FeatureCollection, Point } from 'geojson';
import { countryLabelPoints } from './labels';
import { naturalEarth } from './natural-earth';

export const DATASET_ID = 'sample-countries';

/** Countries whose label shows from this zoom or below are in the dataset (the 63 largest). */
export const DATASET_MAX_LABEL_ZOOM = 2;

export interface CountryPointProperties {
  name: string;
  /** ISO 3166-1 numeric code ('004'), when the country has one. */
  iso?: string;
  /** Area of the country's largest polygon on the Web Mercator plane, in square degrees of longitude. */
  area: number;
}

/** The dataset's features, in world-atlas' order of countries; ids are the ISO codes as numbers where they exist. */
export function sampleDataset(): FeatureCollection<Point, CountryPointProperties> {
  const points = countryLabelPoints(naturalEarth('50m').countries).filter((p) => p.minzoom <= DATASET_MAX_LABEL_ZOOM);
  const features = points.map((p): Feature<Point, CountryPointProperties> => {
    const properties: CountryPointProperties = p.iso === undefined ? { name: p.name, area: p.area } : { name: p.name, iso: p.iso, area: p.area };
    const f: Feature<Point, CountryPointProperties> = { type: 'Feature', geometry: { type: 'Point', coordinates: [p.lon, p.lat] }, properties };
    if (p.iso !== undefined) f.id = Number(p.iso);
    return f;
  });
  return { type: 'FeatureCollection', features };
}
