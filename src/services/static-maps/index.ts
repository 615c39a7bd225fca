// Static map images (spec: "Static maps"): parse the request, lay it out over the map, render it from the mirrored pyramid.
export { parseColor, type Rgba } from './color';
export { MarkerIcons, type Icon } from './icons';
export { layoutStaticMap, placeView, storedBase, type BaseTiles, type StaticMapLayout } from './layout';
export { attributionText, overlaySvg, PIN } from './overlay';
export { RenderAbandoned, RenderQueue, RenderQueueFull, type RenderCounts } from './queue';
export { overlaySegments, sourceRegion, type Raw } from './render';
export { DEFAULTS, LIMITS, parseMarkers, parsePath, parseStaticMapRequest, StaticMapError, type StaticMapRequest, type StaticMapView } from './request';
export { pixelBudget, StaticMaps, type StaticMapsOptions } from './service';
export { chooseLevel, fitBox, OVERZOOM, UNDERZOOM, zoomRange } from './view';
