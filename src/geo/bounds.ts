/** West, south, east, north in WGS 84 degrees. */
export type Bounds = [number, number, number, number];
