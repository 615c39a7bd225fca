import { route, type Route } from '../route-table';
import { mapTile } from './maps';
import { storedTile } from './tiles';

// Every path of the API, in the order of the spec's endpoint tables. `hot` routes are also matched by the
// precompiled fast dispatcher in front of Express (same handlers). Later parts add their rows here.
const Z = ':z(\\d+|[^/]+?)';
export const routes: Route[] = [
  // Maps
  route(`/maps/:mapId/[:size(256)/]${Z}/:x/:y([^/.@]+)[:scale(@2x)].:format`, mapTile, { hot: true }),
  // Tiles
  route(`/tiles/:tilesId/${Z}/:x/:y([^/.]+)[.:ext]`, storedTile('tiles'), { hot: true }),
  // Images
  route(`/images/:imageId/${Z}/:x/:y([^/.]+)[.:ext]`, storedTile('images'), { hot: true }),
];
