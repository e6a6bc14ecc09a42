import { type Context, Hono } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import type { SSEStreamingApi } from 'hono/streaming';
import type { z } from 'zod';
import { ConfigError } from '../../config/load.js';
import type { PageAssets } from './assets.js';
import type { WebAuth } from './auth.js';
import { AnswerBody, CancelQueuedBody, KillBody, ProfileBody, ReopenBody, SubmitBody } from './bodies.js';
import { eventStream } from './events.js';
import { guard } from './guard.js';
import type { OpenSession, SessionHub } from './hub.js';
import { catalogOf } from './view.js';

export interface WebAppOptions {
  port: number;
  auth: WebAuth;
  hub: SessionHub;
  assets: PageAssets;
  /** Open event streams, ended when the server shuts down. */
  streams: Set<SSEStreamingApi>;
}

/** No inline script or style, nothing from elsewhere: markdown a model wrote cannot run code here. */
const PAGE_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

type Parsed<T> = { ok: true; value: T } | { ok: false; response: Response };

/** A JSON body that fits `schema`, else a 400 naming what is wrong. */
async function parseBody<S extends z.ZodType>(c: Context, schema: S): Promise<Parsed<z.output<S>>> {
  if (!c.req.header('content-type')?.toLowerCase().startsWith('application/json'))
    return {
      ok: false,
      response: c.json({ error: 'expected a JSON body (Content-Type: application/json)' }, 400),
    };
  let raw: unknown;
  try {
    raw = JSON.parse(await c.req.text());
  } catch (error) {
    return { ok: false, response: c.json({ error: `malformed JSON: ${(error as Error).message}` }, 400) };
  }
  const result = schema.safeParse(raw);
  if (!result.success) {
    const issue = result.error.issues[0];
    const where = issue.path.length > 0 ? `${issue.path.join('.')}: ` : '';
    return { ok: false, response: c.json({ error: `invalid request: ${where}${issue.message}` }, 400) };
  }
  return { ok: true, value: result.data };
}

/**
 * The HTTP face of the open sessions: the page, its files, one event stream per session and one route per
 * thing a person does. Every route hands straight to the session controller.
 */
export function createWebApp({ port, auth, hub, assets, streams }: WebAppOptions): Hono {
  const app = new Hono();
  app.use('*', async (c, next) => {
    await next();
    c.header('X-Content-Type-Options', 'nosniff');
    c.header('Referrer-Policy', 'no-referrer');
    c.header('X-Frame-Options', 'DENY');
    c.header('Cross-Origin-Opener-Policy', 'same-origin');
    c.header('Cross-Origin-Resource-Policy', 'same-origin');
  });
  app.use('*', guard({ port, auth }));
  app.use(
    '/api/*',
    bodyLimit({
      maxSize: 1024 * 1024,
      onError: (c) => c.json({ error: 'request body over 1 MiB' }, 413),
    }),
  );

  app.get('/', (c) => {
    c.header('Content-Security-Policy', PAGE_POLICY);
    c.header('Cache-Control', 'no-store');
    return c.html(assets.html);
  });
  app.get('/assets/:name', (c) => {
    const file = assets.files.get(c.req.param('name'));
    if (!file) return c.json({ error: 'no such file' }, 404);
    c.header('Content-Type', file.type);
    c.header('Cache-Control', 'private, max-age=31536000, immutable');
    return c.body(file.body as Uint8Array<ArrayBuffer>);
  });

  app.get('/api/sessions', (c) =>
    c.json({
      open: hub.list().map((s) => ({ key: s.key, sessionId: s.controller.sessionId })),
      past: hub.past(),
    }),
  );
  app.post('/api/sessions', async (c) => {
    const body = await parseBody(c, ReopenBody);
    if (!body.ok) return body.response;
    try {
      const session = await hub.reopen(body.value.sessionId);
      return c.json({ key: session.key });
    } catch (error) {
      if (error instanceof ConfigError) return c.json({ error: error.message }, 404);
      throw error;
    }
  });

  const api = new Hono<{ Variables: { session: OpenSession } }>();
  api.use('*', async (c, next) => {
    const session = hub.get(c.req.param('key') ?? '');
    if (!session) return c.json({ error: 'no such open session' }, 404);
    c.set('session', session);
    await next();
  });
  api.get('/events', (c) => eventStream(c, c.get('session'), streams));
  api.get('/catalog', (c) => c.json(catalogOf(c.get('session'))));
  api.get('/complete', (c) =>
    c.json({ completions: c.get('session').controller.complete(c.req.query('line') ?? '') }),
  );
  api.post('/submit', async (c) => {
    const body = await parseBody(c, SubmitBody);
    if (!body.ok) return body.response;
    const handle = hub.submit(c.get('session'), body.value.text);
    return c.json({ id: handle.id, queued: handle.queued });
  });
  api.post('/interrupt', (c) => c.json({ interrupted: c.get('session').controller.interrupt() }));
  api.post('/answer', async (c) => {
    const body = await parseBody(c, AnswerBody);
    if (!body.ok) return body.response;
    const result = c.get('session').controller.answer(body.value.askId, body.value.answer);
    return result.ok ? c.json({ ok: true }) : c.json({ error: result.message }, 409);
  });
  api.post('/profile', async (c) => {
    const body = await parseBody(c, ProfileBody);
    if (!body.ok) return body.response;
    const name = body.value.name === 'default' ? null : body.value.name;
    const result = c.get('session').controller.setProfile(name);
    return result.ok ? c.json({ message: result.message }) : c.json({ error: result.message }, 409);
  });
  api.post('/kill', async (c) => {
    const body = await parseBody(c, KillBody);
    if (!body.ok) return body.response;
    const outcome = await c.get('session').controller.submit(`/kill ${body.value.taskId}`).outcome;
    return outcome.isError
      ? c.json({ error: outcome.error ?? outcome.text }, 409)
      : c.json({ message: outcome.text });
  });
  api.post('/queue/cancel', async (c) => {
    const body = await parseBody(c, CancelQueuedBody);
    if (!body.ok) return body.response;
    return c.get('session').controller.cancelQueued(body.value.promptId)
      ? c.json({ ok: true })
      : c.json({ error: 'that prompt is no longer queued' }, 409);
  });
  app.route('/api/s/:key', api);

  app.notFound((c) => c.json({ error: 'not found' }, 404));
  app.onError((error, c) => {
    process.stderr.write(`cadre web: ${error.stack ?? error.message}\n`);
    return c.json({ error: 'internal error' }, 500);
  });
  return app;
}
