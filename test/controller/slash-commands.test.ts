import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CallSpecError, formatExplain } from '../../src/permission/explain.js';
import { gate, MAIN_SYSTEM, openTestSession } from './harness.js';

const FILES = {
  '.cadre/prompts/careful.md': '---\nmode: review\ndeny_tools: [write]\n---\nCareful prompt body.\n',
  '.cadre/agents/reviewer.md':
    '---\ndescription: Reviews\nmodel: cheap\neffort: low\ndeny_tools: [bash]\n---\nYou are the reviewer.\n',
  '.cadre/agents/helper.md': '---\ndescription: Helps\n---\nYou are the helper.\n',
};

async function session(
  respond = (call: { system: string }) => ({ text: `answer from ${call.system.slice(0, 20)}` }),
) {
  return openTestSession(respond, { files: FILES });
}

describe('slash commands through the controller', () => {
  it('/agent and /prompt are two layers: /agent off keeps the prompt layer, and the next request shows each', async () => {
    const s = await session();
    expect((await s.controller.submit('/prompt careful').outcome).isError).toBe(false);
    expect((await s.controller.submit('/agent reviewer').outcome).isError).toBe(false);
    expect(s.controller.snapshot()).toMatchObject({ profile: 'reviewer', prompt: 'careful', effort: 'low' });
    await s.controller.submit('with both').outcome;
    let call = s.calls.at(-1);
    expect(call?.system.startsWith('You are the reviewer.')).toBe(true);
    expect(call?.route.model).toBe('cheap-model');
    expect(call?.tools).not.toContain('bash');
    expect(call?.tools).not.toContain('write');

    await s.controller.submit('/agent off').outcome;
    await s.controller.submit('prompt only').outcome;
    call = s.calls.at(-1);
    expect(call?.system.startsWith('Careful prompt body.')).toBe(true);
    expect(call?.route.model).toBe('main-model');
    expect(call?.tools).toContain('bash');
    expect(call?.tools).not.toContain('write');

    await s.controller.submit('/prompt default').outcome;
    await s.controller.submit('neither').outcome;
    expect(s.calls.at(-1)?.system.startsWith(MAIN_SYSTEM)).toBe(true);
    expect(s.controller.snapshot()).toMatchObject({ profile: null, prompt: null });
  });

  it('an unknown profile or prompt lists the known names and changes nothing', async () => {
    const s = await session();
    await s.controller.submit('/agent reviewer').outcome;
    const agent = await s.controller.submit('/agent nope').outcome;
    expect(agent).toMatchObject({ isError: true, stopReason: 'refused' });
    expect(agent.error).toContain('helper');
    expect(agent.error).toContain('reviewer');
    const prompt = await s.controller.submit('/prompt nope').outcome;
    expect(prompt.error).toContain('careful');
    expect(s.controller.snapshot()).toMatchObject({ profile: 'reviewer', prompt: null });
  });

  it('a profile switch while a turn runs is refused with a message, and works once it ended', async () => {
    const hold = gate<void>();
    const s = await openTestSession(
      async () => {
        await hold.promise;
        return { text: 'done' };
      },
      { files: FILES },
    );
    const turn = s.controller.submit('work');
    await s.next('turn_start');
    for (const line of [
      '/agent reviewer',
      '/prompt careful',
      '/model cheap',
      '/effort high',
      '/clear',
      '/agents reload',
    ]) {
      const refused = await s.controller.submit(line).outcome;
      expect(refused, line).toMatchObject({ isError: true, stopReason: 'refused' });
      expect(refused.error, line).toMatch(/while a turn is running/);
    }
    expect(s.controller.setProfile('reviewer').ok).toBe(false);
    expect(s.controller.snapshot()).toMatchObject({ profile: null, prompt: null, effort: null });
    hold.open();
    await turn.outcome;
    expect(s.controller.setProfile('reviewer')).toMatchObject({ ok: true });
  });

  it('/agents lists profiles with the active one marked, and /agents reload picks up changes', async () => {
    const s = await session();
    await s.controller.submit('/agent helper').outcome;
    const listing = (await s.controller.submit('/agents').outcome).text;
    expect(listing).toMatch(/^\* helper/m);
    expect(listing).toMatch(/^ {2}reviewer/m);
    expect(listing).toContain('Role routing:');

    writeFileSync(s.project.path('.cadre/agents/fresh.md'), '---\ndescription: New\n---\nYou are fresh.\n');
    writeFileSync(s.project.path('.cadre/agents/broken.md'), '---\nsubagent_tools: [\n---\nbody\n');
    const reload = await s.controller.submit('/agents reload').outcome;
    expect(reload.text).toMatch(/reloaded: \d+ profiles/);
    expect(reload.text).toContain('broken.md');
    expect(s.controller.profiles().map((p) => p.name)).toContain('fresh');
    expect(s.controller.snapshot().profile).toBe('helper');
    await s.controller.submit('task enum').outcome;
    const task = s.calls.at(-1);
    expect(task?.tools).toContain('task');
    // The `task` tool's profile enum was rebuilt from the reloaded sources.
    expect(JSON.stringify(task?.schemas.task)).toContain('"fresh"');

    rmSync(s.project.path('.cadre/agents/helper.md'));
    const gone = await s.controller.submit('/agents reload').outcome;
    expect(gone.text).toContain('profile "helper" no longer exists: /agent off');
    expect(s.controller.snapshot().profile).toBeNull();
  });

  it('/<profile> <task> runs an isolated subagent; the conversation keeps the task and its answer only', async () => {
    const s = await openTestSession(
      (call) => {
        if (call.system.startsWith('You are the helper.')) {
          expect(call.messages).toHaveLength(1);
          return { text: 'the helper answer' };
        }
        return { text: 'main answer' };
      },
      { files: FILES },
    );
    await s.controller.submit('earlier main prompt').outcome;
    const outcome = await s.controller.submit('/helper summarise the repo').outcome;
    expect(outcome).toMatchObject({ text: 'the helper answer', command: 'helper', isError: false });
    const child = s.calls.find((c) => c.system.startsWith('You are the helper.'));
    expect(child?.last).toBe('summarise the repo');
    await s.controller.submit('what did the helper say?').outcome;
    const next = s.mainCalls().at(-1);
    const texts = next?.messages.map((m) =>
      typeof m.content === 'string' ? m.content : JSON.stringify(m.content),
    );
    expect(texts).toEqual([
      'earlier main prompt',
      expect.stringContaining('main answer'),
      'summarise the repo',
      'the helper answer',
      'what did the helper say?',
    ]);
    expect(s.controller.snapshot().subagents).toMatchObject([{ profile: 'helper', state: 'completed' }]);
  });

  it('a leading /word that is neither a command nor a profile goes to the model unchanged; a typo lists close matches', async () => {
    const s = await session();
    const path = await s.controller.submit('/etc/hosts looks wrong, why?').outcome;
    expect(path.command).toBeUndefined();
    expect(s.calls.at(-1)?.last).toBe('/etc/hosts looks wrong, why?');
    const typo = await s.controller.submit('/agnet reviewer').outcome;
    expect(typo).toMatchObject({ stopReason: 'refused', isError: true });
    expect(typo.error).toContain('/agent');
    const profileTypo = await s.controller.submit('/reviewr look').outcome;
    expect(profileTypo.error).toContain('/reviewer');
    expect(s.calls).toHaveLength(1);
  });

  it('/why prints the decision and trace of the session gate, the same as permissions explain', async () => {
    const s = await session();
    await s.controller.submit('/agent reviewer').outcome;
    const why = await s.controller.submit('/why bash(ls)').outcome;
    expect(why.text.split('\n')[0]).toBe('decision: deny');
    expect(why.text).toContain('deny_tools: bash');
    expect(why.text).toBe(formatExplain(await s.controller.runtime.explain('bash(ls)')));
    const bad = await s.controller.submit('/why bash(ls').outcome;
    expect(bad).toMatchObject({ isError: true });
    expect(bad.error).toContain('missing ")"');
    expect(() => s.controller.runtime.explain('(x)')).toThrow(CallSpecError);
  });

  it('/model and /effort show and set the model settings; /agent off restores what was there before', async () => {
    const s = await session();
    expect((await s.controller.submit('/model').outcome).text).toContain('aliases: main, cheap');
    await s.controller.submit('/model cheap').outcome;
    await s.controller.submit('/effort high').outcome;
    expect(s.controller.snapshot()).toMatchObject({ model: { model: 'cheap-model' }, effort: 'high' });
    await s.controller.submit('/agent helper').outcome;
    await s.controller.submit('/model some-literal').outcome;
    expect(s.controller.snapshot().model.model).toBe('some-literal');
    await s.controller.submit('/agent off').outcome;
    expect(s.controller.snapshot()).toMatchObject({ model: { model: 'cheap-model' }, effort: 'high' });
    const bad = await s.controller.submit('/effort loud').outcome;
    expect(bad.error).toContain('minimal');
    await s.controller.submit('go').outcome;
    expect(s.calls.at(-1)?.params.effort).toBe('high');
  });

  it('/tasks lists subagents and /kill cancels one by prefix, refusing unknown prefixes', async () => {
    const s = await openTestSession(
      (call) => {
        if (call.system.startsWith('You are the helper.')) return new Promise(() => {});
        return call.messages.length === 1
          ? { tools: [['task', { agent: 'helper', prompt: 'slow work', background: true }]] }
          : { text: 'started' };
      },
      {
        files: {
          ...FILES,
          '.cadre/agents/helper.md': '---\nsubagent_tools: readonly\n---\nYou are the helper.\n',
        },
      },
    );
    await s.controller.submit('go').outcome;
    const started = await s.next('subagent_start');
    await s.next('turn_start', (e) => e.agent === started.taskId);
    const tasks = (await s.controller.submit('/tasks').outcome).text;
    expect(tasks).toContain(started.taskId);
    expect(tasks).toContain('main › helper');
    expect(tasks).toContain('background');
    expect((await s.controller.submit('/kill zzz').outcome).error).toContain('Unknown task');
    expect((await s.controller.submit('/kill').outcome).error).toContain('usage');
    const kill = await s.controller.submit(`/kill ${started.taskId.slice(0, 5)}`).outcome;
    expect(kill.text).toContain(started.taskId);
    expect(await s.next('subagent_end')).toMatchObject({ status: 'cancelled' });
    expect((await s.controller.submit(`/kill ${started.taskId}`).outcome).error).toContain('not running');
  });

  it('/kill with a prefix several tasks share lists them and cancels none', async () => {
    // Seventeen ids of hex digits: at least two share their first character.
    const count = 17;
    const s = await openTestSession(
      (call) => {
        if (call.system.startsWith('You are the helper.')) return new Promise(() => {});
        return call.messages.length === 1
          ? {
              tools: Array.from({ length: count }, (_, i) => [
                'task',
                { agent: 'helper', prompt: `job ${i}`, background: true },
              ]) as [string, Record<string, unknown>][],
            }
          : { text: 'started' };
      },
      {
        files: {
          ...FILES,
          '.cadre/agents/helper.md': '---\nsubagent_tools: readonly\n---\nYou are the helper.\n',
        },
      },
    );
    await s.controller.submit('go').outcome;
    await s.until(() => s.controller.snapshot().subagents.length === count);
    const ids = s.controller.snapshot().subagents.map((t) => t.id);
    const shared = ids.map((id) => id[0]).find((c, i, all) => all.indexOf(c) !== i) as string;
    const kill = await s.controller.submit(`/kill ${shared}`).outcome;
    expect(kill.isError).toBe(true);
    expect(kill.error).toContain(`"${shared}" is ambiguous`);
    for (const id of ids.filter((i) => i.startsWith(shared))) expect(kill.error).toContain(id);
    expect(
      s.controller.snapshot().subagents.every((t) => t.state === 'running' || t.state === 'queued'),
    ).toBe(true);
  });

  it('/compact summarizes the older conversation; /clear starts a new session', async () => {
    const s = await openTestSession((call) =>
      call.system.startsWith('Summarize')
        ? { text: 'SUMMARY OF EARLIER' }
        : { text: `reply ${s.calls.length}` },
    );
    expect((await s.controller.submit('/compact').outcome).text).toContain('nothing to compact');
    for (const n of [1, 2, 3, 4]) await s.controller.submit(`prompt ${n}`).outcome;
    const compact = await s.controller.submit('/compact').outcome;
    expect(compact.text).toMatch(/compacted: 8 messages became \d+/);
    await s.controller.submit('after compaction').outcome;
    expect(JSON.stringify(s.mainCalls().at(-1)?.messages)).toContain('SUMMARY OF EARLIER');

    const before = s.controller.sessionId;
    const clear = await s.controller.submit('/clear').outcome;
    expect(clear.text).toContain('new conversation');
    expect(s.controller.sessionId).not.toBe(before);
    expect(await s.next('session_changed')).toMatchObject({ sessionId: s.controller.sessionId });
    await s.controller.submit('fresh').outcome;
    expect(s.mainCalls().at(-1)?.messages).toHaveLength(1);
  });

  it('/compact interrupted ends cancelled, and a summarizer failure is a failed run, not a refusal', async () => {
    const summarizing = gate<void>();
    let failSummary = false;
    const s = await openTestSession(async (call) => {
      if (!call.system.startsWith('Summarize')) return { text: `reply ${s.calls.length}` };
      if (failSummary) throw new Error('summarizer is down');
      summarizing.open();
      return new Promise(() => {});
    });
    for (const n of [1, 2, 3, 4]) await s.controller.submit(`prompt ${n}`).outcome;
    const compact = s.controller.submit('/compact');
    await summarizing.promise;
    expect(s.controller.interrupt()).toBe(true);
    expect(await compact.outcome).toMatchObject({
      stopReason: 'cancelled',
      isError: true,
      command: 'compact',
    });

    failSummary = true;
    const failed = await s.controller.submit('/compact').outcome;
    expect(failed).toMatchObject({ stopReason: 'model_error', isError: true, command: 'compact' });
    expect(failed.error).toContain('summarizer is down');
  });

  it('/help lists every command of the table and the profiles; /quit asks the client to end', async () => {
    const s = await session();
    const help = (await s.controller.submit('/help').outcome).text;
    for (const { name } of s.controller.commands()) expect(help).toContain(`/${name}`);
    expect(help).toContain('/<profile> <task>');
    expect(help).toContain('helper');
    expect(await s.controller.submit('/quit').outcome).toMatchObject({ quit: true, isError: false });
  });

  it('completes command names, profile names and arguments from the one table', async () => {
    const s = await session();
    expect(s.controller.complete('/ag')).toEqual(['/agent', '/agents']);
    expect(s.controller.complete('/he')).toEqual(['/help', '/helper']);
    expect(s.controller.complete('/agent revi')).toEqual(['/agent review', '/agent reviewer']);
    expect(s.controller.complete('/prompt ')).toEqual(['/prompt default', '/prompt careful']);
    expect(s.controller.complete('/effort h')).toEqual(['/effort high']);
    expect(s.controller.complete('plain text')).toEqual([]);
  });
});

describe('/agents reload reports what it found', () => {
  it('names each collision and warning on its own line, keeps the active profile while any source has it, else falls back to /agent off', async () => {
    const s = await session();
    const globalAgents = join(s.project.configDir, 'agents');
    mkdirSync(globalAgents, { recursive: true });
    expect((await s.controller.submit('/agent helper').outcome).isError).toBe(false);

    writeFileSync(
      join(globalAgents, 'helper.md'),
      '---\ndescription: Global helper\n---\nYou are the global helper.\n',
    );
    writeFileSync(s.project.path('.cadre/agents/broken.md'), '---\nsubagent_tools: [\n---\nbody\n');
    const reload = await s.controller.submit('/agents reload').outcome;
    const [counts, ...lines] = reload.text.split('\n');
    expect(counts).toMatch(/^reloaded: \d+ profiles, 1 prompts$/);
    expect(lines).toEqual([
      `warning: ${s.project.path('.cadre/agents/broken.md')}: unparsable frontmatter at line 3: Flow sequence in block collection must be sufficiently indented and end with a ]`,
      `collision: helper: project ${s.project.path('.cadre/agents/helper.md')} wins over global ${join(globalAgents, 'helper.md')}`,
    ]);
    expect(s.controller.snapshot().profile).toBe('helper');

    // The project's copy goes: the global one still has the name, so the layer stays, now on the global one.
    rmSync(s.project.path('.cadre/agents/helper.md'));
    const kept = await s.controller.submit('/agents reload').outcome;
    expect(kept.text).not.toContain('collision');
    expect(kept.text).not.toContain('no longer exists');
    expect(s.controller.snapshot().profile).toBe('helper');
    await s.controller.submit('who are you').outcome;
    expect(s.calls.at(-1)?.system.startsWith('You are the global helper.')).toBe(true);

    // No source has it any more: /agent off, said in the output and as a notice to every client.
    rmSync(join(globalAgents, 'helper.md'));
    const gone = await s.controller.submit('/agents reload').outcome;
    expect(gone.text.split('\n').slice(1)).toEqual([
      `warning: ${s.project.path('.cadre/agents/broken.md')}: unparsable frontmatter at line 3: Flow sequence in block collection must be sufficiently indented and end with a ]`,
      'profile "helper" no longer exists: /agent off',
    ]);
    await s.next('notice', (e) => e.message === 'profile "helper" no longer exists: /agent off');
    expect(s.controller.snapshot().profile).toBeNull();
    await s.controller.submit('and now').outcome;
    expect(s.calls.at(-1)?.system.startsWith(MAIN_SYSTEM)).toBe(true);
  });
});
