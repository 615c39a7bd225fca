// The console's style sheet, served as /admin/console.css (the page's CSP allows no inline style).

import { COVERAGE_COLOURS } from './coverage-colours';

export const CONSOLE_CSS = `
:root { color-scheme: light; --tile: ${COVERAGE_COLOURS.tile}; --mirrored: ${COVERAGE_COLOURS.mirrored}; }
* { box-sizing: border-box; }
[hidden] { display: none !important; }
body { font: 14px/1.4 system-ui, sans-serif; margin: 0; color: #222; background: #fff; }
header { display: flex; align-items: baseline; gap: 1em; padding: .6em 1.2em; background: #263238; color: #fff; }
header h1 { font-size: 1.2em; margin: 0; }
header #instance { opacity: .8; font-size: .9em; flex: 1; }
main { padding: 0 1.2em 2em; display: grid; grid-template-columns: minmax(0, 1fr) minmax(0, 1fr); gap: 0 2em; }
#stores-panel { grid-column: 1 / -1; overflow-x: auto; }
h2 { font-size: 1.05em; margin: 1.2em 0 .5em; }
table { border-collapse: collapse; width: 100%; }
th, td { padding: .3em .6em; text-align: left; vertical-align: top; border-bottom: 1px solid #ddd; }
th { font-weight: 600; background: #f5f5f5; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
#stores tbody tr { cursor: pointer; }
#stores tbody tr.selected { background: #e3eefa; }
#stores tbody tr:hover { background: #f0f6fc; }
form#sign-in { margin: 2em 1.2em; display: flex; flex-direction: column; gap: .8em; max-width: 26em; }
form#sign-in label { display: flex; flex-direction: column; gap: .2em; }
input, select, button { font: inherit; }
button { padding: .25em .9em; border-radius: 3px; border: 1px solid #888; background: #fafafa; cursor: pointer; }
button:disabled { opacity: .45; cursor: default; }
button.run { border-color: #2e7d32; color: #1b5e20; }
button.cancel { border-color: #c62828; color: #b71c1c; }
#message { margin: .8em 1.2em; padding: .5em .8em; background: #fdecea; border: 1px solid #f5c2c0; color: #8a1f11; }
#message.info { background: #eef6ee; border-color: #b9dcb9; color: #1b5e20; }
.controls { display: flex; flex-wrap: wrap; gap: 1em; align-items: center; margin-bottom: .5em; }
.legend { font-size: .9em; color: #555; }
.swatch { display: inline-block; width: .9em; height: .9em; vertical-align: middle; border: 1px solid #0003; }
.swatch.mirrored { background: var(--mirrored); opacity: .5; }
.swatch.tile { background: var(--tile); }
/* Square: the whole Web Mercator world fits, so every gap of a world-wide store is on screen at once. */
#map { aspect-ratio: 1 / 1; max-height: 80vh; border: 1px solid #ccc; background: ${COVERAGE_COLOURS.background}; }
.job { border: 1px solid #ddd; border-radius: 4px; padding: .6em .8em; margin-bottom: .8em; }
.job-head { display: flex; gap: .8em; align-items: baseline; flex-wrap: wrap; }
.job-head .name { font-weight: 600; }
.job-head .actions { margin-left: auto; display: flex; gap: .5em; }
.job .resources, .job .schedule, .job .where { color: #555; font-size: .9em; }
.job .kind { font-size: .8em; border: 1px solid #999; border-radius: 3px; padding: 0 .3em; margin: 0 .5em; }
.job[data-kind="render"] .kind { border-color: #6a4; color: #362; }
.job progress { width: 100%; height: 1.1em; }
.job .state { margin: .4em 0; }
#request-budget { margin: 0 0 .6em; }
#request-budget .spent { color: #b71c1c; font-weight: 600; }
.job .history { font-size: .9em; margin-top: .4em; }
.job .history td { padding: .15em .5em; }
.published { color: #1b5e20; }
.failed { color: #b71c1c; }
.interrupted { color: #a15c00; }
code { font-size: 12px; }
@media (max-width: 900px) { main { grid-template-columns: minmax(0, 1fr); } }
`;
