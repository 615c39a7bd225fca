import { withKey } from '../../ogc/urls';
import { documentReply, type Reply } from '../reply';
import type { RequestContext } from '../route-table';
import { escapeHtml as esc } from '../html';

/** `/`: what this server holds, with the viewer, TileJSON and WMTS links of each resource (for people, not clients). */
export function home(ctx: RequestContext): Reply {
  const url = (path: string): string => esc(withKey(ctx.baseUrl, path, ctx.key));
  const rows = ctx.catalog.list().map((info) => {
    const base = `/${info.kind}/${encodeURIComponent(info.id)}`;
    const links = [
      info.kind !== 'images' ? `<a href="${url(`${base}/`)}">viewer</a>` : '',
      info.kind === 'maps' ? `<a href="${url(`${base}/style.json`)}">style</a>` : '',
      info.kind !== 'images' ? `<a href="${url(`${base}/tiles.json`)}">TileJSON</a>` : `<a href="${url(`${base}/image.json`)}">image.json</a>`,
      `<a href="${url(`${base}/WMTSCapabilities.xml`)}">WMTS</a>`,
    ].filter(Boolean);
    return `<tr><td>${esc(info.kind)}</td><td>${esc(info.id)}</td><td>${esc(info.name)}</td><td>${esc(info.format)}</td><td>${info.minzoom}–${info.maxzoom}</td><td>${links.join(' · ')}</td></tr>`;
  });
  const html = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>tilemirror</title>
<style>body{font:15px system-ui,sans-serif;margin:2em}td,th{padding:.3em .8em;text-align:left}</style></head><body>
<h1>tilemirror</h1>
<p>Service-wide WMTS: <a href="${url('/wmts/1.0.0/WMTSCapabilities.xml')}">${url('/wmts/1.0.0/WMTSCapabilities.xml')}</a><br>
OGC API - Tiles: <a href="${url('/ogc')}">${url('/ogc')}</a></p>
<table><tr><th>kind</th><th>id</th><th>name</th><th>format</th><th>zooms</th><th></th></tr>
${rows.join('\n')}
</table></body></html>
`;
  return documentReply(html, 'text/html; charset=utf-8');
}

export const health = (): Reply => ({ status: 200, body: Buffer.from('ok\n'), type: 'text/plain; charset=utf-8', cache: 'none' });
