import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { methods } from '@agentclientprotocol/sdk';
import { describe, expect, it } from 'vitest';
import { openSessionStore } from '../../src/session/store.js';
import { reviewedWriteProject, servedProject } from '../e2e/harness.js';
import { script, scriptedServer } from '../support/llm-server.js';
import { messageText, spawnAcp } from './harness.js';

const TIMEOUT = 90_000;

describe('how an ACP session ends', () => {
  it(
    'a client gone mid-turn: the turn is cancelled with its finished steps kept, a background writer’s worktree is retained, and session/load replays the work',
    async () => {
      const server = await scriptedServer(
        script()
          .rule({ system: 'You are the writer.' })
          .turn((t) => t.tool('write', { path: 'w.txt', content: 'from the writer\n' }))
          .turn((t) => t.delay(30_000).text('never seen'))
          .rule()
          .turn((t) => t.tool('task', { agent: 'writer', prompt: 'write w.txt', background: true }))
          .turn((t) => t.delay(30_000).text('never seen')),
      );
      const project = servedProject(server, {
        git: true,
        files: {
          '.cadre/agents/writer.md': '---\nsubagent_tools: readwrite\n---\nYou are the writer.\n',
        },
        config: { permission: { allow: ['write'] } },
      });
      const acp = spawnAcp(project, ['--trust-project']);
      const sessionId = await acp.open();
      acp.prompt(sessionId, 'go').catch(() => {});
      // Both agents are in their second, delayed model call: the writer has written w.txt.
      await server.waitForRequests(4);
      await acp.close();
      expect(acp.child.exitCode).toBe(0);

      const store = openSessionStore(project.configDir);
      let writerPath: string | null;
      try {
        expect(store.getSession(sessionId)?.status).toBe('cancelled');
        // The finished step of the cancelled turn is on record: the prompt, the calls and their results.
        const messages = JSON.stringify(store.loadMessages(sessionId));
        expect(messages).toContain('"content":"go"');
        expect(messages).toContain('Started background task');
        const [task] = store.listTasks({ parentSessionId: sessionId });
        expect(task).toMatchObject({ profile: 'writer', status: 'cancelled', worktreeState: 'retained' });
        writerPath = task.worktreePath;
      } finally {
        store.close();
      }
      // The cancelled writer's dirty worktree is kept for salvage (SPEC 9), its file in it.
      expect(writerPath).not.toBeNull();
      expect(readFileSync(join(writerPath as string, 'w.txt'), 'utf8')).toBe('from the writer\n');
      expect(existsSync(join(project.dir, 'w.txt'))).toBe(false);

      const again = spawnAcp(project, ['--trust-project']);
      await again.initialize();
      await again.connection.agent.request(methods.agent.session.load, {
        sessionId,
        cwd: project.dir,
        mcpServers: [],
      });
      const replayed = again.updates(sessionId);
      expect(messageText(replayed, 'user_message_chunk')).toBe('go');
      expect(
        replayed.filter((u) => u.sessionUpdate === 'tool_call').map((u) => ('title' in u ? u.title : '')),
      ).toEqual(['task write w.txt']);
      await again.close();
    },
    TIMEOUT,
  );

  it(
    '/quit ends the session with the session review as an agent message (session_review on)',
    async () => {
      const project = await reviewedWriteProject();
      const acp = spawnAcp(project, ['--trust-project']);
      const sessionId = await acp.open();
      const prompt = (text: string) => acp.prompt(sessionId, text);
      expect((await prompt('add a greeting')).stopReason).toBe('end_turn');
      expect((await prompt('/quit')).stopReason).toBe('end_turn');
      const text = messageText(acp.updates(sessionId));
      expect(text).toContain(
        'session review by fake (1 file(s) changed):\n1. new.txt:1 (low) the greeting is untested',
      );
      // The review came before the response to `/quit`, and after the answer of the turn.
      expect(text.indexOf('wrote it')).toBeLessThan(text.indexOf('session review'));
      await acp.close();
      expect(acp.stderr()).toContain('session review by fake (1 file(s) changed)');
    },
    TIMEOUT,
  );
});
