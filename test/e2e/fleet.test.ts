import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { RecordedRequest, ScriptedServer } from '../../src/provider/scripted/server.js';
import { script, scriptedServer } from '../support/llm-server.js';
import { cadreIn, jsonLines, servedProject, toolResults } from './harness.js';

const TIMEOUT = 90_000;
const WRITER = '---\ndescription: writes one file\nsubagent_tools: readwrite\n---\nYou are a fleet writer.\n';
const READER = '---\ndescription: reviews\nsubagent_tools: readonly\n---\nYou are a fleet reviewer.\n';

function project(server: ScriptedServer, config: Record<string, unknown> = {}) {
  return servedProject(server, {
    git: true,
    files: { 'README.md': 'hi\n', '.cadre/agents/writer.md': WRITER, '.cadre/agents/reviewer.md': READER },
    config,
  });
}

/** The requests of the main agent (its first user message is the task). */
function mainRequests(server: ScriptedServer, task: string): RecordedRequest[] {
  return server.requests.filter((r) => r.view.messages[0]?.text === task);
}

/** Per child prompt, the time from its first request's start to its last request's end. */
function spans(server: ScriptedServer, prompts: readonly string[]): { start: number; end: number }[] {
  return prompts.map((prompt) => {
    const rs = server.requests.filter((r) => r.view.messages[0]?.text === prompt);
    return {
      start: Math.min(...rs.map((r) => r.startedAt)),
      end: Math.max(...rs.map((r) => r.endedAt ?? r.startedAt)),
    };
  });
}

function maxOverlap(intervals: { start: number; end: number }[]): number {
  const points = intervals.flatMap((i) => [
    { t: i.start, d: 1 },
    { t: i.end, d: -1 },
  ]);
  points.sort((a, b) => a.t - b.t || a.d - b.d);
  let now = 0;
  let max = 0;
  for (const p of points) {
    now += p.d;
    max = Math.max(max, now);
  }
  return max;
}

describe('fleet end to end', () => {
  it(
    'runs 6 writers with disjoint claims 3 at a time; a task writer claiming a held file waits and says so',
    async () => {
      const items = Array.from({ length: 6 }, (_, i) => ({
        id: `w${i + 1}`,
        agent: 'writer',
        prompt: `write f${i + 1}.txt`,
        write_paths: [`f${i + 1}.txt`],
      }));
      let builder = script();
      for (let i = 1; i <= 6; i++) {
        builder = builder
          .rule({ system: 'You are a fleet writer.', first_user: `write f${i}.txt` })
          .turn((t) => t.delay(1000).tool('write', { path: `f${i}.txt`, content: `${i}\n` }))
          .text(`wrote f${i}.txt`);
      }
      const server = await scriptedServer(
        builder
          .rule({ system: 'You are a fleet writer.', first_user: 'also f1' })
          .text('late writer done')
          .rule({ last_user: 'Background' })
          .text('done')
          .text('done')
          .rule({ first_user: 'go' })
          .turn((t) => t.tool('fleet', { tasks: items, background: true }))
          .turn((t) =>
            t.tool('task', { agent: 'writer', prompt: 'also f1', write_paths: ['f1.txt'], background: true }),
          )
          .text('waiting'),
      );
      const p = project(server);
      const run = await cadreIn(p, ['-p', 'go', '--yes', '--output-format', 'stream-json'], {
        timeoutMs: TIMEOUT,
      });
      expect(run.code).toBe(0);
      const events = jsonLines(run.stdout);
      const ends = events.filter((e) => e.type === 'subagent_end').map((e) => [e.taskId, e.status, e.error]);
      expect(
        ends.filter(([, status]) => status === 'completed'),
        JSON.stringify(ends),
      ).toHaveLength(7);
      const fleetSpans = spans(
        server,
        items.map((i) => i.prompt),
      );
      expect(maxOverlap(fleetSpans)).toBe(3);
      const starts = events.filter((e) => e.type === 'subagent_start');
      const holder = starts.find((e) => String(e.description).startsWith('w1:'))?.taskId;
      const late = starts.find((e) => e.description === 'also f1')?.taskId;
      expect(events).toContainEqual(
        expect.objectContaining({
          type: 'subagent_queued',
          taskId: late,
          cause: `claim: f1.txt held by ${holder}`,
        }),
      );
      const dispatched = toolResults(mainRequests(server, 'go')[2]).map((m) => m.text);
      expect(dispatched[0]).toMatch(/^Started fleet f-[0-9a-f]+ with 6 items in the background/);
      expect(dispatched[1]).toContain(`waiting for claim: f1.txt held by ${holder}`);
      // The late writer ran only after the item holding f1.txt had finished.
      const [lateSpan] = spans(server, ['also f1']);
      const w1 = server.requests.filter((r) => r.view.messages[0]?.text === 'write f1.txt');
      expect(lateSpan?.start).toBeGreaterThanOrEqual(w1.at(-1)?.endedAt ?? Number.POSITIVE_INFINITY);
    },
    TIMEOUT,
  );

  it(
    'an implement → review chain shares paths; a failed item skips its dependents; per-item state, tokens and cost',
    async () => {
      const server = await scriptedServer(
        script()
          .rule({ system: 'You are a fleet writer.', first_user: 'implement' })
          .turn((t) => t.tool('write', { path: 'mod.ts', content: 'export {}\n' }))
          .text('implemented mod.ts')
          .rule({ system: 'You are a fleet writer.', first_user: 'broken' })
          .turn((t) => t.error(400, 'the model refused'))
          .rule({ system: 'You are a fleet reviewer.' })
          .text('looks right')
          .rule({ first_user: 'go' })
          .turn((t) =>
            t.tool('fleet', {
              tasks: [
                { id: 'impl', agent: 'writer', prompt: 'implement mod.ts', write_paths: ['mod.ts'] },
                {
                  id: 'review',
                  agent: 'reviewer',
                  prompt: 'review mod.ts',
                  depends_on: ['impl'],
                  write_paths: ['mod.ts'],
                },
                { id: 'bad', agent: 'writer', prompt: 'broken item' },
                { id: 'after-bad', agent: 'reviewer', prompt: 'never', depends_on: ['bad'] },
              ],
            }),
          )
          .text('fleet done'),
      );
      const p = project(server);
      const run = await cadreIn(p, ['-p', 'go', '--yes', '--output-format', 'json'], { timeoutMs: TIMEOUT });
      expect(run.code).toBe(0);
      const result = toolResults(mainRequests(server, 'go')[1])[0].text;
      expect(result).toMatch(/^Fleet f-[0-9a-f]+: 4 items; /);
      expect(result).toMatch(
        /\[impl\] completed \(task [0-9a-f]{12}; \d+ input \+ \d+ output tokens; \$0\.0000\)\nimplemented mod\.ts/,
      );
      expect(result).toMatch(/\[review\] completed \(task [0-9a-f]{12}; .*\)\nlooks right/);
      expect(result).toMatch(/\[bad\] failed \(task [0-9a-f]{12}; .*\)\n.*the model refused/);
      expect(result).toContain('[after-bad] skipped: dependency "bad" failed');
      const reviewer = server.requests.find((r) => r.view.system.includes('You are a fleet reviewer.'));
      const implementer = server.requests.filter((r) => r.view.messages[0]?.text === 'implement mod.ts');
      expect(reviewer?.startedAt).toBeGreaterThanOrEqual(
        implementer.at(-1)?.endedAt ?? Number.POSITIVE_INFINITY,
      );
      const out = JSON.parse(run.stdout);
      const items = Object.fromEntries(out.subagents.map((s: { fleet_item: string }) => [s.fleet_item, s]));
      expect(items.impl).toMatchObject({
        status: 'completed',
        fleet_id: expect.stringMatching(/^f-/),
        skipped: false,
      });
      expect(items.impl.usage.output_tokens).toBeGreaterThan(0);
      expect(items.impl.cost_usd).toBe(0);
      expect(items.bad).toMatchObject({ status: 'failed' });
      expect(items['after-bad']).toMatchObject({ status: 'cancelled', skipped: true });
    },
    TIMEOUT,
  );

  it(
    'two directory claims on one directory run together; realizing the same file waits for the holder, never fails',
    async () => {
      const server = await scriptedServer(
        script()
          .rule({ system: 'You are a fleet writer.', first_user: 'first' })
          .turn((t) => t.tool('write', { path: 'src/shared.txt', content: 'first\n' }))
          .turn((t) => t.delay(1500).tool('write', { path: 'src/first.txt', content: 'x\n' }))
          .text('first done')
          .rule({ system: 'You are a fleet writer.', first_user: 'second' })
          .turn((t) => t.delay(500).tool('write', { path: 'src/shared.txt', content: 'second\n' }))
          .text('second done')
          .rule({ first_user: 'go' })
          .turn((t) =>
            t.tool('fleet', {
              tasks: [
                { id: 'one', agent: 'writer', prompt: 'first', write_paths: ['src/'] },
                { id: 'two', agent: 'writer', prompt: 'second', write_paths: ['src/'] },
              ],
            }),
          )
          .text('fleet done'),
      );
      const p = project(server, { subagent_write_isolation: 'serialize' });
      const run = await cadreIn(p, ['-p', 'go', '--yes', '--output-format', 'stream-json'], {
        timeoutMs: TIMEOUT,
      });
      expect(run.code).toBe(0);
      const result = toolResults(mainRequests(server, 'go')[1])[0].text;
      expect(result).toMatch(/\[one\] completed/);
      expect(result).toMatch(/\[two\] completed/);
      const events = jsonLines(run.stdout);
      const starts = events.filter((e) => e.type === 'subagent_start');
      const first = starts.find((e) => String(e.description).startsWith('one:'))?.taskId;
      const second = starts.find((e) => String(e.description).startsWith('two:'))?.taskId;
      // Both started together (directory claims); the second waited at its write for the first to end.
      const [oneSpan, twoSpan] = spans(server, ['first', 'second']);
      expect(twoSpan.start).toBeLessThan(oneSpan.end);
      expect(events).toContainEqual(
        expect.objectContaining({
          type: 'subagent_queued',
          taskId: second,
          position: 0,
          cause: `claim: src/shared.txt held by ${first}`,
        }),
      );
      expect(readFileSync(p.path('src/shared.txt'), 'utf8')).toBe('second\n');
    },
    TIMEOUT,
  );

  it(
    'writers waiting on each other fail fast with a claim deadlock naming both items',
    async () => {
      // Each writes its own file, then (later) the other's: each ends up waiting on the other.
      const crossed = (builder: ReturnType<typeof script>, prompt: string, mine: string, theirs: string) =>
        builder
          .rule({ system: 'You are a fleet writer.', first_user: prompt })
          .turn((t) => t.tool('write', { path: mine, content: `${prompt}\n` }))
          .turn((t) => t.delay(800).tool('write', { path: theirs, content: `${prompt}\n` }))
          .text(`${prompt} done`);
      const server = await scriptedServer(
        crossed(crossed(script(), 'alpha', 'src/a.txt', 'src/b.txt'), 'beta', 'src/b.txt', 'src/a.txt')
          .rule({ first_user: 'go' })
          .turn((t) =>
            t.tool('fleet', {
              tasks: [
                { id: 'alpha', agent: 'writer', prompt: 'alpha', write_paths: ['src/'] },
                { id: 'beta', agent: 'writer', prompt: 'beta', write_paths: ['src/'] },
              ],
            }),
          )
          .text('fleet done'),
      );
      const p = project(server, { subagent_write_isolation: 'serialize' });
      const run = await cadreIn(p, ['-p', 'go', '--yes'], { timeoutMs: TIMEOUT });
      expect(run.code).toBe(0);
      const result = toolResults(mainRequests(server, 'go')[1])[0].text;
      expect(result).toMatch(
        /\[(alpha|beta)\] failed \(task .*\)\nclaim deadlock: fleet item "(alpha|beta)"/,
      );
      expect(result).toContain('fleet item "alpha"');
      expect(result).toContain('fleet item "beta"');
      expect(result).toMatch(/\[(alpha|beta)\] completed/);
    },
    TIMEOUT,
  );

  it(
    'a cycle, a glob and ../x in write_paths come back as one preflight error naming the items',
    async () => {
      const server = await scriptedServer(
        script()
          .rule({ first_user: 'go' })
          .turn((t) =>
            t.tool('fleet', {
              tasks: [
                { id: 'a', prompt: 'a', depends_on: ['b'] },
                { id: 'b', prompt: 'b', depends_on: ['a'] },
                { id: 'g', prompt: 'g', write_paths: ['src/*.ts'] },
                { id: 'x', prompt: 'x', write_paths: ['../x'] },
              ],
            }),
          )
          .text('understood'),
      );
      const p = project(server);
      const run = await cadreIn(p, ['-p', 'go', '--yes', '--output-format', 'json'], { timeoutMs: TIMEOUT });
      expect(run.code).toBe(0);
      const error = toolResults(mainRequests(server, 'go')[1])[0].text;
      expect(error).toContain('fleet preflight failed; nothing was started');
      expect(error).toMatch(/dependency cycle: a → b → a/);
      expect(error).toContain('item "g": write_paths "src/*.ts" is a glob');
      expect(error).toContain('item "x": write_paths "../x" escapes the workspace');
      expect(JSON.parse(run.stdout).subagents).toEqual([]);
    },
    TIMEOUT,
  );

  it(
    'the fleet tool schema is the same bytes whatever profiles exist',
    async () => {
      const fleetSpec = async (files: Record<string, string>) => {
        const server = await scriptedServer(script().text('ok'));
        const p = servedProject(server, { files });
        await cadreIn(p, ['-p', 'go'], { timeoutMs: TIMEOUT });
        const body = server.requests[0].body as { tools: { function: { name: string } }[] };
        return JSON.stringify(body.tools.find((t) => t.function.name === 'fleet'));
      };
      const none = await fleetSpec({});
      const some = await fleetSpec({
        '.cadre/agents/writer.md': WRITER,
        '.cadre/agents/reviewer.md': READER,
      });
      expect(none).toContain('"fleet"');
      expect(some).toBe(none);
    },
    TIMEOUT,
  );
});
