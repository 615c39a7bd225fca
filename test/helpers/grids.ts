// Grids the tests configure besides the registered ones (the benches read the same files).
import lv95 from '../fixtures/grid-lv95.json';

/** Swiss LV95 as swisstopo's WMTS defines it (EPSG:2056, the origin and resolutions of its tile matrix set): an operator's grid. */
export const LV95 = lv95;
