import type { MiddlewareHandler } from 'hono';
import type { WebAuth } from './auth.js';

/** The stream counts as state-changing: what it reveals is as sensitive as what a POST can do. */
const EVENTS_PATH = /^\/api\/s\/[^/]+\/events$/;

export interface GuardOptions {
  port: number;
  auth: WebAuth;
}

/** The one page that needs no cookie: where the printed URL's token is exchanged for it. */
const ENTRY_PATH = '/';

/**
 * Who may use the server, checked before any route: the Host header names this server (a DNS-rebinding
 * page cannot), a browser's Origin is this server's, and the caller holds the cookie that the printed
 * URL's one-time token bought. A state-changing request or the event stream without an Origin must also
 * say it comes from this origin (`Sec-Fetch-Site: same-origin`), which a browser does for its own requests.
 */
export function guard({ port, auth }: GuardOptions): MiddlewareHandler {
  const hosts = new Set([`127.0.0.1:${port}`, `localhost:${port}`]);
  const origins = new Set([`http://127.0.0.1:${port}`, `http://localhost:${port}`]);
  return async (c, next) => {
    const host = c.req.header('host')?.toLowerCase();
    if (host === undefined || !hosts.has(host)) return c.json({ error: 'unknown Host header' }, 403);
    const origin = c.req.header('origin');
    if (origin !== undefined && !origins.has(origin.toLowerCase()))
      return c.json({ error: 'cross-origin request refused' }, 403);

    const method = c.req.method;
    const reading = method === 'GET' || method === 'HEAD';
    const token = c.req.query('token');
    if (reading && c.req.path === ENTRY_PATH && token !== undefined) {
      if (!auth.redeem(token)) return c.text(NO_ENTRY, 401);
      c.header('Set-Cookie', auth.sessionCookie());
      return c.redirect('/', 303);
    }
    if (!auth.admits(c.req.header('cookie'))) {
      return c.req.path.startsWith('/api/') ? c.json({ error: 'not signed in' }, 401) : c.text(NO_ENTRY, 401);
    }
    if (!reading || EVENTS_PATH.test(c.req.path)) {
      const site = c.req.header('sec-fetch-site');
      if (site !== undefined && site !== 'same-origin')
        return c.json({ error: `cross-site request refused (${site})` }, 403);
      if (origin === undefined && site !== 'same-origin')
        return c.json({ error: 'request without Origin or Sec-Fetch-Site: same-origin refused' }, 403);
    }
    await next();
  };
}

const NO_ENTRY =
  'cadre web: not signed in. Open the URL that `cadre web` printed (its token works once); ' +
  'start `cadre web` again for a new one.\n';
