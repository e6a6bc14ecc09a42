import { existsSync, readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openTestSession } from '../controller/harness.js';
import { providerFor } from '../e2e/harness.js';
import { script, scriptedServer } from '../support/llm-server.js';
import { type RedisServer, startRedis } from '../support/redis.js';
import { queueConfig, SECRET, sharedRepository, startWorker } from './harness.js';

const WRITER = '---\nsubagent_tools: readwrite\n---\nYou are the remote writer.\n';

let redis: RedisServer;
beforeAll(async () => {
  redis = await startRedis();
  process.env.CADRE_WORKER_SECRET = SECRET;
});
afterAll(async () => {
  delete process.env.CADRE_WORKER_SECRET;
  await redis.stop();
});

describe('asks of a remote child travel home', () => {
  it('reaches the root controller labeled main › writer@worker; the answer goes back and the child goes on', async () => {
    const server = await scriptedServer(
      script()
        .rule({ system: 'You are the remote writer.' })
        .turn((t) => t.tool('write', { path: 'asked.txt', content: 'approved remotely\n' }))
        .text('wrote asked.txt'),
    );
    const repository = sharedRepository();
    await startWorker('worker-2', redis.url, server, repository, {
      config: { providers: { main: providerFor(server, 'openai') }, provider: 'main' },
    });
    const s = await openTestSession(
      (call) =>
        call.messages.length === 1
          ? { tools: [['task', { agent: 'writer', prompt: 'write asked.txt' }]] }
          : { text: 'the writer is done' },
      {
        files: { '.cadre/agents/writer.md': WRITER, 'README.md': 'hi\n' },
        git: true,
        config: queueConfig(redis.url, repository),
        trustProject: true,
      },
    );
    const outcome = s.controller.submit('go').outcome;
    const opened = await s.next('ask_opened');
    expect(opened.ask).toMatchObject({
      kind: 'permission',
      chain: ['main', 'writer@worker-2'],
      label: 'main › writer@worker-2',
    });
    expect(s.controller.answer(opened.ask.id, { kind: 'allow_once' })).toEqual({ ok: true });
    const done = await outcome;
    expect(done.text).toBe('the writer is done');
    const task = s.controller.runtime.subagents.list()[0];
    expect(task).toMatchObject({ state: 'completed', worker: 'worker-2', result: 'wrote asked.txt' });
    expect(
      readFileSync(`${task.writer && 'path' in task.writer ? task.writer.path : ''}/asked.txt`, 'utf8'),
    ).toBe('approved remotely\n');
  }, 60_000);

  it('an ask nobody answers is denied with the reason after workers.ask_timeout_ms; the root withdraws it and the child goes on', async () => {
    const server = await scriptedServer(
      script()
        .rule({ system: 'You are the remote writer.' })
        .turn((t) => t.tool('write', { path: 'unanswered.txt', content: 'never written\n' }))
        .text('the write was denied'),
    );
    const repository = sharedRepository();
    await startWorker('worker-3', redis.url, server, repository, {
      config: { providers: { main: providerFor(server, 'openai') }, provider: 'main' },
    });
    const s = await openTestSession(
      (call) =>
        call.messages.length === 1
          ? { tools: [['task', { agent: 'writer', prompt: 'write unanswered.txt' }]] }
          : { text: 'the writer is done' },
      {
        files: { '.cadre/agents/writer.md': WRITER, 'README.md': 'hi\n' },
        git: true,
        config: queueConfig(redis.url, repository, { ask_timeout_ms: 1500 }),
        trustProject: true,
      },
    );
    const outcome = s.controller.submit('go').outcome;
    const opened = await s.next('ask_opened');
    expect(opened.ask.label).toBe('main › writer@worker-3');
    // Nobody answers: the worker's timeout denies it, and the question here is withdrawn.
    const closed = await s.next('ask_closed', (e) => e.askId === opened.ask.id);
    expect(closed.by).toBe('cancelled');
    await outcome;
    const task = s.controller.runtime.subagents.list()[0];
    expect(task).toMatchObject({ state: 'completed', result: 'the write was denied' });
    const denied = server.requests
      .filter((r) => r.view.system.includes('You are the remote writer.'))
      .flatMap((r) => r.view.messages.filter((m) => m.role === 'tool'))
      .map((m) => m.text);
    expect(denied.join('\n')).toContain(
      'the root did not answer within 1.5 s (workers.ask_timeout_ms), so it is denied',
    );
    expect(existsSync(`${task.writer && 'path' in task.writer ? task.writer.path : ''}/unanswered.txt`)).toBe(
      false,
    );
  }, 60_000);
});
