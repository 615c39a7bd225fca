import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { buildOpenApi, OPENAPI_MEDIA_TYPE } from '../../ogc/openapi';
import { withKey } from '../../ogc/urls';
import { escapeHtml as esc } from '../html';
import { documentReply, type Reply } from '../reply';
import type { RequestContext } from '../route-table';
import { scriptJson } from '../viewer';

// `/openapi.json` and `/docs`: the API describes itself, from the route table the request was matched in.

// package.json sits three levels up from src/http/routes and dist/http/routes alike.
const { version } = JSON.parse(readFileSync(join(__dirname, '../../../package.json'), 'utf8')) as { version: string };
const INFO = { title: 'tilemirror', version, description: 'A cloud map API served offline from MBTiles stores, with WMTS 1.0 and OGC API - Tiles.' };

/** `/openapi.json`: the OpenAPI 3.1.0 definition of every route, for this request's base URL. */
export function openApiDocument(ctx: RequestContext): Reply {
  return documentReply(JSON.stringify(buildOpenApi(ctx.routes, ctx.baseUrl, INFO)), OPENAPI_MEDIA_TYPE);
}

/**
 * `/docs`: Swagger UI (swagger-ui-dist, served from node_modules under /assets/swagger-ui, no CDN) rendering
 * /openapi.json; the requester's key goes into the document URL and is pre-filled for "Try it out".
 */
export function apiDocs(ctx: RequestContext): Reply {
  const assets = `${ctx.baseUrl}/assets/swagger-ui`;
  const config = { url: withKey(ctx.baseUrl, '/openapi.json', ctx.key), key: ctx.key };
  const html = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>tilemirror API</title>
<link rel="stylesheet" href="${esc(assets)}/swagger-ui.css"></head><body><div id="ui"></div>
<script src="${esc(assets)}/swagger-ui-bundle.js"></script>
<script>
const config = ${scriptJson(config)};
window.ui = SwaggerUIBundle({
  url: config.url, dom_id: '#ui', deepLinking: true,
  onComplete: () => { if (config.key) window.ui.preauthorizeApiKey('key', config.key); },
});
</script>
</body></html>
`;
  return documentReply(html, 'text/html; charset=utf-8');
}
