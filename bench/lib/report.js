'use strict';
// Printing and storing results: a plain text table, a markdown table, JSON under .bench/results/ (gitignored).

const fs = require('node:fs');
const path = require('node:path');
const { ROOT } = require('./store');

const RESULTS_DIR = path.join(ROOT, '.bench', 'results');

function fmt(value, digits) {
  if (value === undefined || value === null || Number.isNaN(value)) return '';
  return Number(value).toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
}

const isNumeric = (s) => /^[\d,.]+( %|x)?$/.test(s);

function table(head, rows) {
  const cells = [head, ...rows].map((r) => r.map((c) => (c === undefined || c === null ? '' : String(c))));
  const widths = head.map((_, i) => Math.max(...cells.map((r) => r[i].length)));
  const line = (r) => r.map((c, i) => (i > 0 && (isNumeric(c) || c === '') ? c.padStart(widths[i]) : c.padEnd(widths[i]))).join('  ');
  return [line(cells[0]), widths.map((w) => '-'.repeat(w)).join('  '), ...cells.slice(1).map(line)].join('\n');
}

function markdownTable(head, rows) {
  const esc = (c) => (c === undefined || c === null ? '' : String(c).replace(/\|/g, '\\|'));
  const align = head.map((_, i) => (i === 0 ? ':---' : '---:'));
  return [head, align, ...rows].map((r) => `| ${r.map(esc).join(' | ')} |`).join('\n');
}

/** Writes .bench/results/<name>-<date>.json and returns its path. */
function writeResults(name, data) {
  fs.mkdirSync(RESULTS_DIR, { recursive: true });
  const stamp = new Date().toISOString().replace(/:/g, '-').replace(/\..*$/, '');
  const file = path.join(RESULTS_DIR, `${name}-${stamp}.json`);
  fs.writeFileSync(file, JSON.stringify(data, null, 2) + '\n');
  return file;
}

module.exports = { fmt, table, markdownTable, writeResults, RESULTS_DIR };
