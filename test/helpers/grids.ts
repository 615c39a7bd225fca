// Grids the tests configure besides the registered ones.

/** Swiss LV95 as swisstopo's WMTS defines it (EPSG:2056, the origin and resolutions of its tile matrix set): an operator's grid. */
export const LV95 = {
  id: 'LV95',
  title: 'CH1903+ / LV95 (swisstopo)',
  crs: 2056,
  origin: [2420000, 1350000],
  extent: [2420000, 1030000, 2900000, 1350000],
  resolutions: [4000, 3750, 3500, 3250, 3000, 2750, 2500, 2250, 2000, 1750, 1500, 1250, 1000, 750, 650, 500, 250, 100, 50, 20, 10, 5, 2.5, 2, 1.5, 1, 0.5, 0.25, 0.1],
};
