// The WMTS layers of the weather variables (./weather-variables.ts): one layer per variable, named
// `weather/{name}` (`weather/temperature-2m.gfs` for the variable `temperature-2m:gfs`), with a sample dimension
// `Time` (07-057r7 Table 9): UOM ISO8601, one Value per keyframe (UTC, `Z`, earliest first), Default the latest.
// A tile of the layer at a time is the tile of that keyframe's tile set, the same bytes. Pure.

import { pyramidLayerFields, type WmtsDimension, type WmtsLayer } from './wmts';
import { latestKeyframe, type WeatherVariable } from './weather-variables';

/** The first segment of every weather layer identifier. */
export const WEATHER_LAYER_PREFIX = 'weather/';
/** The identifier of the time dimension: also the KVP parameter (any case) and the `{Time}` template variable. */
export const TIME_DIMENSION = 'Time';

/** A weather variable's WMTS layer; its `id` is the tile set of the latest keyframe, the Default time. */
export interface WeatherWmtsLayer extends WmtsLayer {
  variable: WeatherVariable;
}

export const weatherLayerId = (v: WeatherVariable): string => `${WEATHER_LAYER_PREFIX}${v.name}`;

/** The Time dimension of a variable: every keyframe's time, the latest the Default. */
export function timeDimension(v: WeatherVariable): WmtsDimension {
  return { identifier: TIME_DIMENSION, title: 'Time', uom: 'ISO8601', default: latestKeyframe(v).time, values: v.keyframes.map((k) => k.time) };
}

/** What a layer's abstract says of a variable: its description, unit and how values sit in the pixels. */
export function weatherAbstract(v: WeatherVariable): string {
  // Sentences: the description gets its full stop when it has none.
  const parts = [v.description && !/[.!?]$/.test(v.description) ? `${v.description}.` : v.description];
  const { decoding: d, unit } = v;
  if (d?.min !== undefined && d.max !== undefined) {
    const channels = d.channels ?? 'r';
    parts.push(`Pixel values 0 to 255 of channel${channels.length > 1 ? 's' : ''} ${channels} are ${d.min} to ${d.max}${unit ? ` ${unit}` : ''}, linearly.`);
  } else if (unit) {
    parts.push(`Unit: ${unit}.`);
  }
  parts.push(`Variable ${v.variableId} of the weather catalog; one tile set per time.`);
  return parts.filter((p) => p !== '').join(' ');
}

export function weatherWmtsLayer(v: WeatherVariable): WeatherWmtsLayer {
  return {
    kind: 'tiles',
    id: latestKeyframe(v).tilesetId,
    identifier: weatherLayerId(v),
    title: v.unit ? `${v.title} (${v.unit})` : v.title,
    abstract: weatherAbstract(v),
    ...pyramidLayerFields(v.pyramid),
    dimensions: [timeDimension(v)],
    variable: v,
  };
}
