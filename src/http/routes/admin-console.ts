// `/admin/`: the operator's console, a page whose script reads the admin API (/admin/api/*) with the admin key the
// operator types in. The page, its script and its style sheet hold no data, so they answer without a key; with no
// admin key configured they are not found, like every /admin path. Never stored by a cache, never indexed.

import { CONSOLE_CSP, consolePage } from '../admin-console/page';
import { consoleScript } from '../admin-console/console-script';
import { CONSOLE_CSS } from '../admin-console/console-style';
import { ServiceError } from '../../errors';
import { answer, type Reply } from '../reply';
import type { RequestContext } from '../route-table';
import { PRIVATE } from './admin-auth';

const HEADERS = { ...PRIVATE, 'X-Robots-Tag': 'noindex, nofollow' };

function file(ctx: RequestContext, body: string, type: string, headers: Record<string, string> = {}): Reply {
  if (ctx.config.admin.keys.length === 0) throw new ServiceError('not-found', 'Not found');
  return answer({ body: Buffer.from(body), type, compressible: true, cache: 'none', headers: { ...HEADERS, ...headers } });
}

export function adminConsole(ctx: RequestContext): Reply {
  // The path the server is published under (a reverse proxy's prefix), so the page's links stay on this server.
  const prefix = new URL(ctx.baseUrl).pathname.replace(/\/+$/, '');
  return file(ctx, consolePage(prefix), 'text/html; charset=utf-8', { 'Content-Security-Policy': CONSOLE_CSP });
}

/** The script `npm run build` makes from admin-console/browser/ (read once, its tag with it). */
export function adminConsoleScript(ctx: RequestContext): Reply {
  const reply = file(ctx, '', 'text/javascript; charset=utf-8');
  const { body, etag } = consoleScript();
  return { ...reply, body, etag };
}

export function adminConsoleStyle(ctx: RequestContext): Reply {
  return file(ctx, CONSOLE_CSS, 'text/css; charset=utf-8');
}
