// Colours the console's map draws coverage in; its style sheet's legend swatches use the same. Shared by the
// server's style sheet (console-style.ts) and the browser's script (browser/), so it imports nothing.

export const COVERAGE_COLOURS = { background: '#f4f3ef', mirrored: '#f1a340', tile: '#2166ac' } as const;
