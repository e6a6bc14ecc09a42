import { describe, expect, it } from 'vitest';
import { script, scriptedServer } from '../support/llm-server.js';
import { cadreIn, servedProject } from './harness.js';
import { http, readEvents, type SseMessage, signIn, startWeb } from './web-harness.js';

const JSON_TYPE = { 'content-type': 'application/json' };

/** The open session's key, from the list the page reads first. */
async function sessionKey(port: number, cookie: string): Promise<string> {
  const reply = await http(port, { path: '/api/sessions', headers: { cookie } });
  return JSON.parse(reply.body).open[0].key;
}

const seqOf = (message: SseMessage) => Number(message.id);
const typeOf = (message: SseMessage) => (JSON.parse(message.data) as { event: { type: string } }).event.type;

describe('cadre web: who may use it', () => {
  it('the printed token signs in once, for an HttpOnly SameSite=Strict cookie; no, wrong or reused tokens get 401', async () => {
    const server = await scriptedServer(script().text('unused'));
    const web = await startWeb(servedProject(server));

    expect((await http(web.port, { path: '/' })).status).toBe(401);
    expect((await http(web.port, { path: '/?token=wrong' })).status).toBe(401);
    expect((await http(web.port, { path: '/api/sessions' })).status).toBe(401);

    const first = await http(web.port, { path: `/?token=${web.token}` });
    expect(first.status).toBe(303);
    expect(first.headers.location).toBe('/');
    const setCookie = first.headers['set-cookie']?.[0] ?? '';
    expect(setCookie).toMatch(/HttpOnly/);
    expect(setCookie).toMatch(/SameSite=Strict/);
    const cookie = setCookie.split(';')[0];

    const reused = await http(web.port, { path: `/?token=${web.token}` });
    expect(reused.status).toBe(401);
    expect(reused.headers['set-cookie']).toBeUndefined();
    expect((await http(web.port, { path: '/', headers: { cookie: `${cookie}x` } })).status).toBe(401);

    const page = await http(web.port, { path: '/', headers: { cookie } });
    expect(page.status).toBe(200);
    expect(page.headers['content-security-policy']).toContain("script-src 'self'");
    expect(page.body).toContain('<div id="app">');

    expect(await web.stop()).toEqual({ code: 0, signal: null });
    expect(web.stdout()).toContain('cadre web: stopping');
  });

  it('refuses a foreign Host header (DNS rebinding) even with the cookie; localhost:<port> is fine', async () => {
    const server = await scriptedServer(script().text('unused'));
    const web = await startWeb(servedProject(server));
    const cookie = await signIn(web);
    for (const host of [
      'evil.example',
      `evil.example:${web.port}`,
      `127.0.0.1:${web.port + 1}`,
      '127.0.0.1',
    ]) {
      const reply = await http(web.port, { path: '/api/sessions', headers: { cookie, host } });
      expect(reply.status, host).toBe(403);
    }
    const local = await http(web.port, {
      path: '/api/sessions',
      headers: { cookie, host: `localhost:${web.port}` },
    });
    expect(local.status).toBe(200);
  });

  it('refuses a foreign Origin, and a state-changing request or stream without Origin unless Sec-Fetch-Site is same-origin', async () => {
    const server = await scriptedServer(script().text('Hello from the model.'));
    const web = await startWeb(servedProject(server));
    const cookie = await signIn(web);
    const key = await sessionKey(web.port, cookie);
    const submit = (headers: Record<string, string>) =>
      http(web.port, {
        method: 'POST',
        path: `/api/s/${key}/submit`,
        headers: { cookie, ...JSON_TYPE, ...headers },
        body: JSON.stringify({ text: 'hello' }),
      });

    expect((await submit({ origin: 'http://evil.example' })).status).toBe(403);
    expect((await submit({ origin: `http://127.0.0.1:${web.port + 1}` })).status).toBe(403);
    expect((await submit({})).status).toBe(403);
    expect((await submit({ 'sec-fetch-site': 'cross-site' })).status).toBe(403);
    expect((await submit({ 'sec-fetch-site': 'same-site', origin: web.origin })).status).toBe(403);
    const stream = await readEvents(web.port, `/api/s/${key}/events`, { cookie }, () => true);
    expect(stream.status).toBe(403);
    const foreignStream = await readEvents(
      web.port,
      `/api/s/${key}/events`,
      { cookie, origin: 'http://evil.example' },
      () => true,
    );
    expect(foreignStream.status).toBe(403);
    expect(server.requests).toHaveLength(0);

    expect((await submit({ 'sec-fetch-site': 'same-origin' })).status).toBe(200);
    await server.waitForRequests(1, 15_000);
    expect((await submit({ origin: web.origin })).status).toBe(200);
    await server.waitForRequests(2, 15_000);
  });

  it('answers malformed bodies with 400 and the session carries on', async () => {
    const server = await scriptedServer(script().text('Still here.'));
    const web = await startWeb(servedProject(server));
    const cookie = await signIn(web);
    const key = await sessionKey(web.port, cookie);
    const post = (path: string, body: string, type = 'application/json') =>
      http(web.port, {
        method: 'POST',
        path: `/api/s/${key}/${path}`,
        headers: { cookie, origin: web.origin, 'content-type': type },
        body,
      });
    const bad: [string, string, string?][] = [
      ['submit', '{"text": '],
      ['submit', 'text=hello', 'application/x-www-form-urlencoded'],
      ['submit', '{"text": ""}'],
      ['submit', '{"text": 42}'],
      ['submit', '{"text": "hi", "extra": true}'],
      ['submit', '[]'],
      ['answer', '{"askId": "a1", "answer": {"kind": "maybe"}}'],
      ['answer', '{"askId": "a1", "answer": {"kind": "deny_feedback", "feedback": "  "}}'],
      ['profile', '{"name": 7}'],
      ['kill', '{"taskId": "../../etc"}'],
    ];
    for (const [path, body, type] of bad) {
      const reply = await post(path, body, type);
      expect(reply.status, `${path} ${body}`).toBe(400);
      expect(JSON.parse(reply.body).error).toBeTruthy();
    }
    expect((await post('answer', '{"askId": "no-such-ask", "answer": {"kind": "deny"}}')).status).toBe(409);
    const reopen = await http(web.port, {
      method: 'POST',
      path: '/api/sessions',
      headers: { cookie, origin: web.origin, ...JSON_TYPE },
      body: JSON.stringify({ sessionId: 'no-such-session' }),
    });
    expect(reopen.status).toBe(404);
    expect(JSON.parse(reopen.body).error).toContain('no-such-session');
    const unknownKey = await http(web.port, { path: '/api/s/no-such-key/catalog', headers: { cookie } });
    expect(unknownKey.status).toBe(404);
    expect(server.requests).toHaveLength(0);

    const ok = await post('submit', '{"text": "are you there?"}');
    expect(ok.status).toBe(200);
    // From the first event on, so the turn's end is there however fast it came.
    const stream = await readEvents(
      web.port,
      `/api/s/${key}/events`,
      { cookie, origin: web.origin, 'last-event-id': '0' },
      (messages) => messages.some((m) => m.event === 'message' && typeOf(m) === 'turn_ended'),
    );
    const ended = stream.messages.find((m) => m.event === 'message' && typeOf(m) === 'turn_ended');
    expect(JSON.parse(ended?.data ?? '{}').event.outcome).toMatchObject({
      stopReason: 'completed',
      text: 'Still here.',
    });
  });

  it('a reconnecting stream resumes after Last-Event-ID without losing or repeating events', async () => {
    const server = await scriptedServer(script().text('One answer, streamed.'));
    const web = await startWeb(servedProject(server));
    const cookie = await signIn(web);
    const key = await sessionKey(web.port, cookie);
    const headers = { cookie, origin: web.origin };
    await http(web.port, {
      method: 'POST',
      path: `/api/s/${key}/submit`,
      headers: { ...headers, ...JSON_TYPE },
      body: JSON.stringify({ text: 'go' }),
    });
    const first = await readEvents(
      web.port,
      `/api/s/${key}/events`,
      { ...headers, 'last-event-id': '0' },
      (messages) => messages.some((m) => typeOf(m) === 'turn_ended'),
    );
    const live = first.messages;
    expect(live.every((m) => m.event === 'message')).toBe(true);
    const seqs = live.map(seqOf);
    expect(seqs).toEqual([...seqs].sort((a, b) => a - b));
    const last = seqs.at(-1) ?? 0;
    const cut = seqs[Math.floor(seqs.length / 2)];

    // A fresh connection (no id to resume after) starts with the whole view as of the latest event.
    const fresh = await readEvents(
      web.port,
      `/api/s/${key}/events`,
      headers,
      (messages) => messages.length > 0,
    );
    expect(fresh.messages[0].event).toBe('view');
    const view = JSON.parse(fresh.messages[0].data);
    expect(Number(fresh.messages[0].id)).toBe(view.seq);
    expect(view.seq).toBeGreaterThanOrEqual(last);
    expect(view.entries.map((e: { kind: string }) => e.kind)).toEqual(['user', 'assistant']);

    const resumed = await readEvents(
      web.port,
      `/api/s/${key}/events`,
      { ...headers, 'last-event-id': String(cut) },
      (messages) => messages.some((m) => seqOf(m) >= last),
    );
    expect(resumed.messages.every((m) => m.event === 'message')).toBe(true);
    const replayed = resumed.messages.map(seqOf);
    // Exactly the events after the cut: none lost, none repeated, in order.
    expect(replayed[0]).toBe(cut + 1);
    expect(replayed).toEqual(Array.from({ length: replayed.length }, (_, i) => cut + 1 + i));
    const before = new Map(live.map((m) => [seqOf(m), m.data]));
    for (const message of resumed.messages) {
      if (before.has(seqOf(message))) expect(message.data).toBe(before.get(seqOf(message)));
    }
  });
});

describe('cadre web: starting and stopping', () => {
  it('a second server on the same port fails with a clear message', async () => {
    const server = await scriptedServer(script().text('unused'));
    const project = servedProject(server);
    const web = await startWeb(project);
    const second = await cadreIn(project, ['web', '--port', String(web.port)]);
    expect(second.code).toBe(1);
    expect(second.stderr).toContain(`port ${web.port}`);
    expect(second.stderr).toContain('already in use');
    expect(second.stderr).not.toMatch(/\n\s+at /);
  });

  it('an unknown --agent (or --mode) exits 2 naming the known profiles', async () => {
    const server = await scriptedServer(script().text('unused'));
    const project = servedProject(server, {
      files: { '.cadre/agents/reviewer.md': '---\ndescription: reviews\n---\nYou review.\n' },
    });
    for (const flag of ['--agent', '--mode']) {
      const run = await cadreIn(project, ['web', flag, 'nope']);
      expect(run.code).toBe(2);
      expect(run.stderr).toContain('unknown profile "nope"');
      expect(run.stderr).toContain('reviewer');
      expect(run.stdout).not.toContain('token=');
    }
  });
});
