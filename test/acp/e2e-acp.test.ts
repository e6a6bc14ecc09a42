import { existsSync, readFileSync, realpathSync } from 'node:fs';
import { join } from 'node:path';
import { methods, RequestError } from '@agentclientprotocol/sdk';
import { describe, expect, it } from 'vitest';
import { openSessionStore } from '../../src/session/store.js';
import { providerFor, servedProject } from '../e2e/harness.js';
import { script, scriptedServer } from '../support/llm-server.js';
import { messageText, spawnAcp } from './harness.js';

const TIMEOUT = 60_000;

describe('cadre acp, driven by the SDK client as an editor drives it', () => {
  it(
    'a prompt that edits a file and runs bash streams chunks, tool calls with a diff, one permission request, end_turn',
    async () => {
      const server = await scriptedServer(
        script()
          .turn((t) =>
            t
              .reasoning('thinking it over')
              .text('Editing a.txt.')
              .tool('edit', { path: 'a.txt', old_string: 'alpha', new_string: 'beta' }),
          )
          .turn((t) => t.tool('bash', { command: 'cat a.txt' }))
          .turn((t) => t.text('Done: a.txt now says beta.')),
      );
      // bash asks by default; a rule lets `cat` run, so the edit is the one call that asks.
      const project = servedProject(server, {
        files: { 'a.txt': 'alpha\n' },
        config: { permission: { allow: ['bash(cat *)'] } },
      });
      const acp = spawnAcp(project);
      expect(await acp.initialize()).toMatchObject({
        protocolVersion: 1,
        agentCapabilities: { loadSession: true },
      });
      const created = await acp.connection.agent.request(methods.agent.session.new, {
        cwd: project.dir,
        mcpServers: [],
      });
      expect(created.modes?.currentModeId).toBe('default');
      const response = await acp.prompt(created.sessionId, 'change alpha to beta');
      expect(response.stopReason).toBe('end_turn');
      const updates = acp.updates(created.sessionId);
      expect(messageText(updates)).toBe('Editing a.txt.Done: a.txt now says beta.');
      expect(messageText(updates, 'agent_thought_chunk')).toBe('thinking it over');
      const permissions = acp.seen.filter((s) => s.kind === 'permission');
      expect(permissions.map((p) => (p.kind === 'permission' ? p.request.toolCall.title : ''))).toEqual([
        'main: edit a.txt',
      ]);
      const file = join(realpathSync(project.dir), 'a.txt');
      const edit = updates.find((u) => u.sessionUpdate === 'tool_call' && u.kind === 'edit');
      expect(edit).toMatchObject({ title: 'edit a.txt', status: 'pending', locations: [{ path: file }] });
      const request = permissions[0].kind === 'permission' ? permissions[0].request : undefined;
      expect(request?.toolCall.toolCallId).toBe(edit && 'toolCallId' in edit ? edit.toolCallId : '');
      expect(request?.toolCall.title).toBe('main: edit a.txt');
      const done = updates.find(
        (u) =>
          u.sessionUpdate === 'tool_call_update' &&
          u.status === 'completed' &&
          u.content?.some((c) => c.type === 'diff'),
      );
      expect(done && 'content' in done ? done.content : []).toContainEqual({
        type: 'diff',
        path: file,
        oldText: 'alpha\n',
        newText: 'beta\n',
      });
      const bash = updates.find((u) => u.sessionUpdate === 'tool_call' && u.kind === 'execute');
      expect(bash).toMatchObject({ title: 'bash cat a.txt', status: 'in_progress' });
      expect(readFileSync(project.path('a.txt'), 'utf8')).toBe('beta\n');
      expect(updates.some((u) => u.sessionUpdate === 'available_commands_update')).toBe(true);

      // The stored session replays in a new server as the same conversation.
      await acp.close();
      const again = spawnAcp(project);
      await again.initialize();
      await again.connection.agent.request(methods.agent.session.load, {
        sessionId: created.sessionId,
        cwd: project.dir,
        mcpServers: [],
      });
      // The SDK client may still be dispatching the last replayed notifications when the response resolves.
      await again.until(() => messageText(again.updates(created.sessionId)).endsWith('now says beta.'));
      const replayed = again.updates(created.sessionId);
      expect(messageText(replayed, 'user_message_chunk')).toBe('change alpha to beta');
      expect(messageText(replayed)).toBe('Editing a.txt.Done: a.txt now says beta.');
      expect(
        replayed.filter((u) => u.sessionUpdate === 'tool_call').map((u) => ('title' in u ? u.title : '')),
      ).toEqual(['edit a.txt', 'bash cat a.txt']);
      await again.close();
    },
    TIMEOUT,
  );

  it(
    '/agent reviewer then a prompt: the next model request carries the reviewer prompt and model',
    async () => {
      const server = await scriptedServer(script().text('reviewed'));
      const project = servedProject(server, {
        files: {
          '.cadre/agents/reviewer.md':
            '---\nmodel: cheap\ndescription: Reviews\n---\nYou are the reviewer.\n',
        },
        config: {
          providers: {
            fake: providerFor(server, 'openai'),
            cheap: { ...providerFor(server, 'openai'), model: 'cheap-model' },
          },
        },
      });
      const acp = spawnAcp(project);
      await acp.initialize();
      const { sessionId, modes } = await acp.connection.agent.request(methods.agent.session.new, {
        cwd: project.dir,
        mcpServers: [],
      });
      expect(modes?.availableModes.map((m) => m.id)).toContain('reviewer');
      await acp.until(() =>
        acp.updates(sessionId).some((u) => u.sessionUpdate === 'available_commands_update'),
      );
      const commands = acp.updates(sessionId).find((u) => u.sessionUpdate === 'available_commands_update');
      const names =
        commands && 'availableCommands' in commands ? commands.availableCommands.map((c) => c.name) : [];
      expect(names).toEqual(expect.arrayContaining(['agent', 'agents', 'why', 'help', 'reviewer']));

      const switched = await acp.prompt(sessionId, '/agent reviewer');
      expect(switched.stopReason).toBe('end_turn');
      expect(server.requests).toHaveLength(0);
      expect(acp.updates(sessionId)).toContainEqual({
        sessionUpdate: 'current_mode_update',
        currentModeId: 'reviewer',
      });
      await acp.prompt(sessionId, 'look at it');
      expect(server.requests).toHaveLength(1);
      expect(server.requests[0].view.system?.startsWith('You are the reviewer.')).toBe(true);
      expect(server.requests[0].view.model).toBe('cheap-model');

      const quit = await acp.prompt(sessionId, '/quit');
      expect(quit.stopReason).toBe('end_turn');
      const after = await acp.prompt(sessionId, 'still there?').catch((e: unknown) => e);
      expect((after as RequestError).message).toContain('closed');
      await acp.close();
    },
    TIMEOUT,
  );

  it(
    'session/cancel during a 2 s model delay ends the turn cancelled before the delay would have ended',
    async () => {
      const server = await scriptedServer(script().turn((t) => t.delay(2000).text('too late')));
      const project = servedProject(server);
      const acp = spawnAcp(project);
      const sessionId = await acp.open();
      const prompt = acp.prompt(sessionId, 'take your time');
      const [request] = await server.waitForRequests(1);
      await acp.connection.agent.notify(methods.agent.session.cancel, { sessionId });
      const response = await prompt;
      expect(response.stopReason).toBe('cancelled');
      // The server's log: cadre hung up on the request during the delay, before any reply was sent.
      await expect.poll(() => request.endedAt, { timeout: 5000, interval: 20 }).toBeDefined();
      expect((request.endedAt ?? Number.POSITIVE_INFINITY) - request.startedAt).toBeLessThan(2000);
      expect(messageText(acp.updates(sessionId))).not.toContain('too late');
      await acp.close();
    },
    TIMEOUT,
  );

  it(
    'a session/cancel sent while idle does nothing: the prompt sent after it runs to end_turn',
    async () => {
      const rounds = 5;
      const server = await scriptedServer(script().text('answered'));
      const project = servedProject(server);
      const acp = spawnAcp(project);
      const sessionId = await acp.open();
      // Cancel and prompt written back to back, as an editor may: the cancel is older, so it finds no turn.
      for (let round = 1; round <= rounds; round++) {
        void acp.connection.agent.notify(methods.agent.session.cancel, { sessionId });
        const response = await acp.prompt(sessionId, `prompt ${round}`);
        expect(response.stopReason).toBe('end_turn');
      }
      expect(server.requests).toHaveLength(rounds);
      await acp.close();
    },
    TIMEOUT,
  );

  it(
    'a session/cancel written right behind its prompt cancels that prompt, never the next one',
    async () => {
      const rounds = 3;
      const server = await scriptedServer(
        script()
          .rule({ last_user: 'slow' })
          .turn((t) => t.delay(3000).text('too late'))
          .rule()
          .text('answered'),
      );
      const project = servedProject(server);
      const acp = spawnAcp(project);
      const sessionId = await acp.open();
      const ask = (text: string) => acp.prompt(sessionId, text);
      for (let round = 1; round <= rounds; round++) {
        const slow = ask('slow');
        void acp.connection.agent.notify(methods.agent.session.cancel, { sessionId });
        expect((await slow).stopReason).toBe('cancelled');
        expect((await ask('next')).stopReason).toBe('end_turn');
      }
      expect(messageText(acp.updates(sessionId))).not.toContain('too late');
      await acp.close();
    },
    TIMEOUT,
  );

  it(
    'session/set_mode and session/set_config_option written right before a prompt apply before it starts',
    async () => {
      const rounds = 3;
      const server = await scriptedServer(script().text('answered'));
      const project = servedProject(server, {
        files: {
          '.cadre/agents/reviewer.md': '---\ndescription: Reviews\n---\nYou are the reviewer.\n',
          '.cadre/agents/writer.md': '---\ndescription: Writes\n---\nYou are the writer.\n',
        },
      });
      const acp = spawnAcp(project);
      const sessionId = await acp.open();
      const ask = (text: string) => acp.prompt(sessionId, text);
      // Each switch is written back to back with its prompt, without waiting for the switch's response.
      for (let round = 0; round < rounds; round++) {
        const mode = acp.connection.agent.request(methods.agent.session.setMode, {
          sessionId,
          modeId: 'reviewer',
        });
        const first = ask(`as reviewer ${round}`);
        await mode;
        expect((await first).stopReason).toBe('end_turn');
        const option = acp.connection.agent.request(methods.agent.session.setConfigOption, {
          sessionId,
          configId: 'profile',
          value: 'writer',
        });
        const second = ask(`as writer ${round}`);
        await option;
        expect((await second).stopReason).toBe('end_turn');
      }
      const systems = server.requests.map((r) => r.view.system?.split('\n')[0]);
      expect(systems).toEqual(
        Array.from({ length: rounds }, () => ['You are the reviewer.', 'You are the writer.']).flat(),
      );
      await acp.close();
    },
    TIMEOUT,
  );

  it(
    'session/load, session/set_mode and session/prompt written back to back take effect in that order',
    async () => {
      const server = await scriptedServer(script().text('answered'));
      const project = servedProject(server, {
        files: { '.cadre/agents/reviewer.md': '---\ndescription: Reviews\n---\nYou are the reviewer.\n' },
      });
      const first = spawnAcp(project);
      const sessionId = await first.open();
      await first.prompt(sessionId, 'before');
      await first.close();
      const acp = spawnAcp(project);
      await acp.initialize();
      // Neither waits for the load's response: both act on the loaded session, the switch first.
      const loaded = acp.connection.agent.request(methods.agent.session.load, {
        sessionId,
        cwd: project.dir,
        mcpServers: [],
      });
      const mode = acp.connection.agent.request(methods.agent.session.setMode, {
        sessionId,
        modeId: 'reviewer',
      });
      const prompt = acp.prompt(sessionId, 'after');
      await loaded;
      await mode;
      expect((await prompt).stopReason).toBe('end_turn');
      expect(server.requests).toHaveLength(2);
      expect(server.requests[1].view.system?.startsWith('You are the reviewer.')).toBe(true);
      await acp.close();
    },
    TIMEOUT,
  );

  it(
    'a session/set_mode written while a turn runs is still refused as mid-turn, the turn untouched',
    async () => {
      const server = await scriptedServer(script().turn((t) => t.delay(300).text('done')));
      const project = servedProject(server, {
        files: { '.cadre/agents/reviewer.md': '---\ndescription: Reviews\n---\nYou are the reviewer.\n' },
      });
      const acp = spawnAcp(project);
      const sessionId = await acp.open();
      const prompt = acp.prompt(sessionId, 'working');
      // Written right behind the prompt: it takes effect after the prompt started, so it is refused.
      const refused = await acp.connection.agent
        .request(methods.agent.session.setMode, { sessionId, modeId: 'reviewer' })
        .catch((e: unknown) => e);
      expect((refused as RequestError).message).toMatch(/turn/);
      expect((await prompt).stopReason).toBe('end_turn');
      expect(messageText(acp.updates(sessionId))).toBe('done');
      await acp.close();
    },
    TIMEOUT,
  );
});

describe('cadre acp asks and plans', () => {
  it(
    'a call whose ask is denied, by the user or by session/cancel, goes from pending to failed without running',
    async () => {
      const server = await scriptedServer(
        script()
          .rule({ last_user: 'deny me' })
          .turn((t) => t.tool('bash', { command: 'echo denied > denied.txt' }))
          .text('was denied')
          .rule()
          .turn((t) => t.tool('bash', { command: 'echo held > held.txt' }))
          .text('unused'),
      );
      const project = servedProject(server);
      const acp = spawnAcp(project);
      let asked = 0;
      acp.answer = () => {
        asked++;
        if (asked === 1) return { outcome: { outcome: 'selected', optionId: 'deny' } };
        return new Promise(() => {});
      };
      const sessionId = await acp.open();
      const ask = (text: string) => acp.prompt(sessionId, text);
      expect((await ask('deny me')).stopReason).toBe('end_turn');
      const held = ask('hold me');
      await expect.poll(() => asked, { timeout: 10_000, interval: 20 }).toBe(2);
      await acp.connection.agent.notify(methods.agent.session.cancel, { sessionId });
      expect((await held).stopReason).toBe('cancelled');
      const statuses = new Map<string, string[]>();
      for (const update of acp.updates(sessionId)) {
        if (update.sessionUpdate !== 'tool_call' && update.sessionUpdate !== 'tool_call_update') continue;
        if (update.status)
          statuses.set(update.toolCallId, [...(statuses.get(update.toolCallId) ?? []), update.status]);
      }
      expect([...statuses.values()]).toEqual([
        ['pending', 'failed'],
        ['pending', 'failed'],
      ]);
      expect(existsSync(join(project.dir, 'denied.txt'))).toBe(false);
      expect(existsSync(join(project.dir, 'held.txt'))).toBe(false);
      await acp.close();
    },
    TIMEOUT,
  );

  it(
    'a call denied by a rule, without an ask, goes from pending to failed without running',
    async () => {
      const server = await scriptedServer(
        script()
          .turn((t) => t.tool('bash', { command: 'echo ruled > ruled.txt' }))
          .text('was refused'),
      );
      const project = servedProject(server, { config: { permission: { deny: ['bash(echo *)'] } } });
      const acp = spawnAcp(project);
      const sessionId = await acp.open();
      const response = await acp.prompt(sessionId, 'write it');
      expect(response.stopReason).toBe('end_turn');
      const calls = acp
        .updates(sessionId)
        .filter((u) => u.sessionUpdate === 'tool_call' || u.sessionUpdate === 'tool_call_update');
      expect(calls.map((u) => ('status' in u ? u.status : undefined))).toEqual(['pending', 'failed']);
      expect(calls[0]).toMatchObject({ sessionUpdate: 'tool_call', kind: 'execute' });
      expect(JSON.stringify(calls[1])).toContain('denied');
      expect(acp.seen.some((s) => s.kind === 'permission')).toBe(false);
      expect(existsSync(join(project.dir, 'ruled.txt'))).toBe(false);
      await acp.close();
    },
    TIMEOUT,
  );

  it(
    'a subagent’s ask arrives as a permission request with the chain in its title; the todo list is a plan update',
    async () => {
      const server = await scriptedServer(
        script()
          .rule({ system: 'You are the writer.' })
          .turn((t) => t.tool('write', { path: 'b.txt', content: 'from the writer\n' }))
          .turn((t) => t.text('wrote b.txt'))
          .rule()
          .turn((t) =>
            t
              .tool('write_todo_list', {
                todos: [
                  { content: 'delegate the write', status: 'in_progress' },
                  { content: 'report', status: 'pending' },
                ],
              })
              .tool('task', { agent: 'writer', prompt: 'write b.txt' }),
          )
          .turn((t) => t.text('the writer is done')),
      );
      const project = servedProject(server, {
        files: { '.cadre/agents/writer.md': '---\nsubagent_tools: readwrite\n---\nYou are the writer.\n' },
        config: { subagent_write_isolation: 'serialize' },
        git: true,
      });
      const acp = spawnAcp(project);
      const sessionId = await acp.open();
      const response = await acp.prompt(sessionId, 'delegate it');
      expect(response.stopReason).toBe('end_turn');
      const titles = acp.seen.flatMap((s) => (s.kind === 'permission' ? [s.request.toolCall.title] : []));
      expect(titles).toEqual(['main › writer: write b.txt']);
      expect(readFileSync(project.path('b.txt'), 'utf8')).toBe('from the writer\n');
      expect(acp.updates(sessionId)).toContainEqual({
        sessionUpdate: 'plan',
        entries: [
          { content: 'delegate the write', priority: 'medium', status: 'in_progress' },
          { content: 'report', priority: 'medium', status: 'pending' },
        ],
      });
      await acp.close();
    },
    TIMEOUT,
  );
});

describe('cadre acp deny with message', () => {
  it(
    'the fourth option denies with a message taken from _meta or asked for by a form, and the model reads it',
    async () => {
      const server = await scriptedServer(
        script()
          .turn((t) => t.tool('bash', { command: 'rm -rf build' }))
          .turn((t) => t.tool('bash', { command: 'rm notes.txt' }))
          .turn((t) => t.tool('bash', { command: 'rm a.txt' }))
          .turn((t) => t.text('I will leave the files alone.')),
      );
      const project = servedProject(server, { files: { 'notes.txt': 'n\n', 'a.txt': 'a\n' } });
      const acp = spawnAcp(project, [], { forms: true });
      await acp.initialize({ elicitation: { form: {} } });
      const { sessionId } = await acp.connection.agent.request(methods.agent.session.new, {
        cwd: project.dir,
        mcpServers: [],
      });
      const asked: string[][] = [];
      const replies = [
        // An editor that can attach text sends it in the response's _meta.
        { outcome: { outcome: 'selected', optionId: 'deny_feedback', _meta: { message: 'keep build/' } } },
        // Without it, cadre asks for the message with a form (accepted here, dismissed next).
        { outcome: { outcome: 'selected', optionId: 'deny_feedback' } },
        { outcome: { outcome: 'selected', optionId: 'deny_feedback' } },
      ] as const;
      acp.answer = (request) => {
        asked.push(request.options.map((o) => `${o.kind}:${o.name}`));
        return replies[asked.length - 1];
      };
      const forms = ['notes.txt stays', null];
      acp.elicit = () => {
        const message = forms.shift();
        return message ? { action: 'accept', content: { text: message } } : { action: 'cancel' };
      };
      const response = await acp.prompt(sessionId, 'clean up');
      expect(response.stopReason).toBe('end_turn');
      expect(asked[0]).toEqual([
        'allow_once:Allow once',
        expect.stringMatching(/^allow_always:Always allow /),
        'reject_once:Deny',
        'reject_once:Deny with message',
      ]);
      const elicitations = acp.seen.flatMap((s) => (s.kind === 'elicitation' ? [s.request] : []));
      expect(elicitations).toHaveLength(2);
      expect(elicitations[0]).toMatchObject({
        mode: 'form',
        sessionId,
        message: expect.stringContaining('main'),
      });
      const toolResult = (request: number) =>
        server.requests[request].view.messages.filter((m) => m.role === 'tool').at(-1)?.text ?? '';
      expect(toolResult(1)).toContain('keep build/');
      expect(toolResult(2)).toContain('notes.txt stays');
      expect(toolResult(3)).not.toContain('notes.txt stays');
      expect(toolResult(3)).toMatch(/denied/i);
      expect(readFileSync(project.path('notes.txt'), 'utf8')).toBe('n\n');
      expect(readFileSync(project.path('a.txt'), 'utf8')).toBe('a\n');
      await acp.close();
    },
    TIMEOUT,
  );
});

describe('cadre acp questions', () => {
  it(
    'a question without options is answered in a form when the client renders forms',
    async () => {
      const server = await scriptedServer(
        script()
          .turn((t) => t.tool('question', { question: 'Which colour should the button be?' }))
          .turn((t) => t.text('Teal it is.')),
      );
      const project = servedProject(server);
      const acp = spawnAcp(project, [], { forms: true });
      await acp.initialize({ elicitation: { form: {} } });
      const { sessionId } = await acp.connection.agent.request(methods.agent.session.new, {
        cwd: project.dir,
        mcpServers: [],
      });
      let offered: string[] = [];
      acp.answer = (request) => {
        offered = request.options.map((o) => o.name);
        return { outcome: { outcome: 'selected', optionId: 'answer_text' } };
      };
      acp.elicit = (request) => ({
        action: 'accept',
        content: { text: request.message.includes('Which colour') ? 'teal' : 'wrong form' },
      });
      const response = await acp.prompt(sessionId, 'style the button');
      expect(response.stopReason).toBe('end_turn');
      expect(offered).toEqual(['Type an answer', 'Decline to answer']);
      const result = server.requests[1].view.messages.filter((m) => m.role === 'tool').at(-1)?.text;
      expect(result).toContain('teal');
      await acp.close();
    },
    TIMEOUT,
  );
});

describe('cadre acp stop reasons', () => {
  it(
    'the turn cap ends a prompt with max_turn_requests',
    async () => {
      const server = await scriptedServer(
        script()
          .turn((t) => t.tool('read', { path: 'a.txt' }))
          .turn((t) => t.tool('read', { path: 'a.txt' })),
      );
      const project = servedProject(server, { files: { 'a.txt': 'a\n' } });
      const acp = spawnAcp(project, ['--max-turns', '1']);
      const sessionId = await acp.open();
      const response = await acp.prompt(sessionId, 'keep reading');
      expect(response.stopReason).toBe('max_turn_requests');
      await acp.close();
    },
    TIMEOUT,
  );
});

describe('cadre acp bad input', () => {
  it(
    'an unknown profile in session/set_mode lists the known ones and changes nothing',
    async () => {
      const server = await scriptedServer(script().text('ok'));
      const project = servedProject(server, {
        files: { '.cadre/agents/reviewer.md': '---\ndescription: Reviews\n---\nYou are the reviewer.\n' },
      });
      const acp = spawnAcp(project);
      const sessionId = await acp.open();
      const error = await acp.connection.agent
        .request(methods.agent.session.setMode, { sessionId, modeId: 'nope' })
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(RequestError);
      expect((error as RequestError).message).toContain('reviewer');
      await acp.connection.agent.request(methods.agent.session.setMode, { sessionId, modeId: 'reviewer' });
      await acp.prompt(sessionId, 'hi');
      expect(server.requests[0].view.system?.startsWith('You are the reviewer.')).toBe(true);
      const options = await acp.connection.agent.request(methods.agent.session.setConfigOption, {
        sessionId,
        configId: 'profile',
        value: 'default',
      });
      expect(options.configOptions[0]).toMatchObject({ currentValue: 'default' });
      await acp.close();
    },
    TIMEOUT,
  );

  it(
    'a second prompt while one runs is rejected with a clear error and the running turn is untouched',
    async () => {
      const server = await scriptedServer(script().turn((t) => t.delay(800).text('first answer')));
      const project = servedProject(server);
      const acp = spawnAcp(project);
      const sessionId = await acp.open();
      const first = acp.prompt(sessionId, 'one');
      await server.waitForRequests(1);
      const second = await acp.prompt(sessionId, 'two').catch((e: unknown) => e);
      expect((second as RequestError).message).toMatch(/already running/);
      expect((await first).stopReason).toBe('end_turn');
      expect(messageText(acp.updates(sessionId))).toBe('first answer');
      expect(server.requests).toHaveLength(1);
      await acp.close();
    },
    TIMEOUT,
  );

  it(
    'session/load or session/prompt of an unknown id is an error naming it',
    async () => {
      const server = await scriptedServer(script().text('ok'));
      const project = servedProject(server);
      const acp = spawnAcp(project);
      await acp.initialize();
      const error = await acp.connection.agent
        .request(methods.agent.session.load, {
          sessionId: 'no-such-session',
          cwd: project.dir,
          mcpServers: [],
        })
        .catch((e: unknown) => e);
      expect((error as RequestError).message).toContain('unknown session "no-such-session"');
      const prompt = await acp.connection.agent
        .request(methods.agent.session.prompt, {
          sessionId: 'no-such-session',
          prompt: [{ type: 'text', text: 'hi' }],
        })
        .catch((e: unknown) => e);
      expect((prompt as RequestError).message).toContain('unknown session "no-such-session"');
      expect(server.requests).toHaveLength(0);
      await acp.close();
    },
    TIMEOUT,
  );

  it(
    'a session ended by /quit can be loaded again in the same server, replaying its conversation',
    async () => {
      const server = await scriptedServer(script().text('first answer'));
      const project = servedProject(server);
      const acp = spawnAcp(project);
      const sessionId = await acp.open();
      const prompt = (text: string) => acp.prompt(sessionId, text);
      await prompt('hello');
      expect((await prompt('/quit')).stopReason).toBe('end_turn');
      await acp.until(() => messageText(acp.updates(sessionId)).endsWith('bye\n'));
      const before = acp.updates(sessionId).length;
      await acp.connection.agent.request(methods.agent.session.load, {
        sessionId,
        cwd: project.dir,
        mcpServers: [],
      });
      // The SDK client may still be dispatching the last replayed notification when the response resolves.
      await acp.until(() => messageText(acp.updates(sessionId).slice(before)).includes('first answer'));
      const replayed = acp.updates(sessionId).slice(before);
      expect(messageText(replayed, 'user_message_chunk')).toBe('hello');
      expect(messageText(replayed)).toBe('first answer');
      await acp.close();
    },
    TIMEOUT,
  );

  it(
    'a malformed JSON-RPC line gets a parse error and the server keeps serving; logs never reach stdout',
    async () => {
      const server = await scriptedServer(script().text('ok'));
      const project = servedProject(server, {
        files: { '.cadre/agents/bad.md': '---\nsubagent_tools: [\n---\nx\n' },
      });
      const { spawn } = await import('node:child_process');
      const { REPO_ROOT } = await import('../support/cli.js');
      const child = spawn(process.execPath, [`${REPO_ROOT}/bin/cadre.js`, 'acp'], {
        cwd: project.dir,
        env: { ...process.env, CADRE_CONFIG_DIR: project.configDir },
      });
      let stdout = '';
      let stderr = '';
      child.stdout.setEncoding('utf8').on('data', (c: string) => {
        stdout += c;
      });
      child.stderr.setEncoding('utf8').on('data', (c: string) => {
        stderr += c;
      });
      const lines = () => stdout.split('\n').filter((l) => l !== '');
      const waitLines = (n: number) =>
        new Promise<void>((resolve) => {
          const check = () => (lines().length >= n ? resolve() : child.stdout.once('data', check));
          check();
        });
      child.stdin.write('{this is not json\n');
      await waitLines(1);
      expect(JSON.parse(lines()[0])).toMatchObject({ id: null, error: { code: -32700 } });
      child.stdin.write(
        `${JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: 1 } })}\n`,
      );
      await waitLines(2);
      child.stdin.write(
        `${JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'session/new', params: { cwd: project.dir, mcpServers: [] } })}\n`,
      );
      await waitLines(3);
      child.stdin.end();
      await new Promise((r) => child.once('exit', r));
      for (const line of lines()) expect(() => JSON.parse(line)).not.toThrow();
      expect(JSON.parse(lines()[1])).toMatchObject({ id: 1, result: { protocolVersion: 1 } });
      expect(stderr).toContain('bad.md');
      expect(stdout).not.toContain('bad.md');
    },
    TIMEOUT,
  );

  it(
    'a client that disconnects mid-turn cancels the turn and leaves a complete session record',
    async () => {
      const server = await scriptedServer(script().turn((t) => t.delay(5000).text('never seen')));
      const project = servedProject(server);
      const acp = spawnAcp(project);
      const sessionId = await acp.open();
      acp.prompt(sessionId, 'long job').catch(() => {});
      await server.waitForRequests(1);
      await acp.close();
      expect(acp.child.exitCode).toBe(0);
      const store = openSessionStore(project.configDir);
      try {
        expect(store.getSession(sessionId)?.status).toBe('cancelled');
        expect(store.loadMessages(sessionId)).toEqual([{ role: 'user', content: 'long job' }]);
      } finally {
        store.close();
      }
    },
    TIMEOUT,
  );
});
