// Static map images (spec: "Static maps"): parse the request, plan the view, render from the mirrored pyramid.
export { parseColor, type Rgba } from './color';
export { mapSprites, resolveIcon, type Icon } from './icons';
export { attributionText, overlaySvg, PIN } from './overlay';
export { RenderAbandoned, RenderQueueFull, type RenderCounts } from './queue';
export { overlaySegments, planStaticMap, placeView, renderCounts, renderStaticMap, type StaticMapPlan } from './render';
export { DEFAULTS, LIMITS, parseMarkers, parsePath, parseStaticMapRequest, StaticMapError, type StaticMapRequest } from './request';
export { chooseLevel, fitBox, OVERZOOM, UNDERZOOM, zoomRange } from './view';
