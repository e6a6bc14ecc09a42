import { describe, expect, it } from 'vitest';
import type { ViewMessage } from '../../src/provider/scripted/request-view.js';
import { script, scriptedServer } from '../support/llm-server.js';
import { cadreIn, servedProject, startCadre } from './harness.js';

/** First task: read a file, then answer; the follow-up task answers at once. */
const twoTasks = () =>
  script()
    .rule({ last_user: 'first task' })
    .turn((t) => t.text('Reading.').tool('read', { path: 'a.txt' }))
    .text('First done.')
    .rule({ last_user: 'follow-up' })
    .text('Follow-up done.');

/** The earlier conversation as the model sees it again: user, tool call, tool result, answer. */
function expectEarlierConversation(messages: ViewMessage[]): void {
  expect(messages.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'assistant', 'user']);
  expect(messages[0].text).toBe('first task');
  expect(messages[1].toolCalls?.map((c) => c.name)).toEqual(['read']);
  expect(messages[2].text).toContain('alpha-content');
  expect(messages[2].toolCallId).toBe(messages[1].toolCalls?.[0].id);
  expect(messages[3].text).toBe('First done.');
  expect(messages[4].text).toBe('follow-up');
}

describe('sessions', () => {
  it('--resume <session_id> sends the earlier conversation with the new task', async () => {
    const server = await scriptedServer(twoTasks());
    const project = servedProject(server, { files: { 'a.txt': 'alpha-content\n' } });
    const first = await cadreIn(project, ['-p', 'first task', '--output-format', 'json']);
    expect(first.code).toBe(0);
    const { session_id: sessionId } = JSON.parse(first.stdout);
    // An unrelated session in between, so --resume must pick by id, not recency.
    const other = await cadreIn(project, ['-p', 'follow-up']);
    expect(other.code).toBe(0);

    const resumed = await cadreIn(project, [
      '-p',
      'follow-up',
      '--resume',
      sessionId,
      '--output-format',
      'json',
    ]);
    expect(resumed.code).toBe(0);
    expect(JSON.parse(resumed.stdout)).toMatchObject({ session_id: sessionId, result: 'Follow-up done.' });
    const last = server.requests.at(-1);
    expectEarlierConversation(last?.view.messages ?? []);
  });

  it('--continue picks up the most recent session of the project', async () => {
    const server = await scriptedServer(twoTasks());
    const project = servedProject(server, { files: { 'a.txt': 'alpha-content\n' } });
    const first = await cadreIn(project, ['-p', 'first task', '--output-format', 'json']);
    expect(first.code).toBe(0);
    const continued = await cadreIn(project, ['-p', 'follow-up', '--continue', '--output-format', 'json']);
    expect(continued.code).toBe(0);
    expect(JSON.parse(continued.stdout).session_id).toBe(JSON.parse(first.stdout).session_id);
    expectEarlierConversation(server.requests.at(-1)?.view.messages ?? []);
  });

  it('--resume of an unknown session is bad usage (exit 2)', async () => {
    const server = await scriptedServer(twoTasks());
    const project = servedProject(server);
    const run = await cadreIn(project, ['-p', 'follow-up', '--resume', 'no-such-session']);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('no-such-session');
    expect(server.requests).toHaveLength(0);
  });

  it('a run killed with SIGKILL during turn 2 resumes with turn 1 intact', async () => {
    const server = await scriptedServer(
      script()
        .rule({ last_user: 'first task' })
        .turn((t) => t.text('Reading.').tool('read', { path: 'a.txt' }))
        .turn((t) => t.delay(60_000).text('never sent'))
        .rule({ last_user: 'follow-up' })
        .text('Follow-up done.'),
    );
    const project = servedProject(server, { files: { 'a.txt': 'alpha-content\n' } });
    const live = startCadre(project, ['-p', 'first task', '--output-format', 'stream-json']);
    const [, sessionId] = await live.waitForStdout(/"type":"session_start"[^\n]*"sessionId":"([^"]+)"/);
    // The second request arrives only after turn 1 (call and result) was committed.
    await server.waitForRequests(2, 15_000);
    live.child.kill('SIGKILL');
    expect(await live.exited).toMatchObject({ signal: 'SIGKILL' });

    const resumed = await cadreIn(project, ['-p', 'follow-up', '--resume', sessionId]);
    expect(resumed.code).toBe(0);
    expect(resumed.stdout).toBe('Follow-up done.\n');
    const messages = server.requests.at(-1)?.view.messages ?? [];
    expect(messages.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'user']);
    expect(messages[0].text).toBe('first task');
    expect(messages[2].text).toContain('alpha-content');
    expect(messages[3].text).toBe('follow-up');
  });
});
