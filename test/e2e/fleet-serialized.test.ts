import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { script, scriptedServer } from '../support/llm-server.js';
import { cadreIn, jsonLines, servedProject } from './harness.js';

const TIMEOUT = 90_000;
const WRITER =
  '---\ndescription: writes files\nsubagent_tools: readwrite\n---\nYou are a serialized writer.\n';
const DIRTY = 'cannot run a read-write subagent in a dirty parent checkout: commit or stash first';

function project(server: Awaited<ReturnType<typeof scriptedServer>>) {
  return servedProject(server, {
    git: true,
    files: { 'README.md': 'hi\n', 'b.txt': 'b\n', '.cadre/agents/writer.md': WRITER },
    config: { subagent_write_isolation: 'serialize' },
  });
}

/** Runs `cadre -p go --yes`, which must exit 0, and gives each subagent's end state. */
async function endsOfGo(p: ReturnType<typeof project>) {
  const run = await cadreIn(p, ['-p', 'go', '--yes', '--output-format', 'stream-json'], {
    timeoutMs: TIMEOUT,
  });
  expect(run.code).toBe(0);
  return jsonLines(run.stdout)
    .filter((e) => e.type === 'subagent_end')
    .map((e) => ({ status: e.status, error: e.error }));
}

describe('serialized writers and the dirty-parent check (SPEC 9)', () => {
  it(
    "a fleet of 3 serialized writers, each editing its own files, is not failed by the earlier items' writes",
    async () => {
      const server = await scriptedServer(
        script()
          .rule({ system: 'You are a serialized writer.', first_user: 'one' })
          .turn((t) => t.tool('write', { path: 'a.txt', content: 'one\n' }))
          .text('wrote a.txt')
          .rule({ system: 'You are a serialized writer.', first_user: 'two' })
          .turn((t) => t.tool('edit', { path: 'b.txt', old_string: 'b', new_string: 'two' }))
          .text('edited b.txt')
          .rule({ system: 'You are a serialized writer.', first_user: 'three' })
          .turn((t) => t.tool('bash', { command: 'mkdir -p sub && echo three > sub/c.txt && rm README.md' }))
          .text('wrote sub/c.txt')
          .rule({ first_user: 'go' })
          .turn((t) =>
            t.tool('fleet', {
              tasks: ['one', 'two', 'three'].map((prompt) => ({ id: prompt, agent: 'writer', prompt })),
            }),
          )
          .text('fleet done'),
      );
      const p = project(server);
      expect(await endsOfGo(p)).toEqual([
        { status: 'completed', error: undefined },
        { status: 'completed', error: undefined },
        { status: 'completed', error: undefined },
      ]);
      expect(readFileSync(join(p.dir, 'a.txt'), 'utf8')).toBe('one\n');
      expect(readFileSync(join(p.dir, 'b.txt'), 'utf8')).toBe('two\n');
      expect(readFileSync(join(p.dir, 'sub', 'c.txt'), 'utf8')).toBe('three\n');
    },
    TIMEOUT,
  );

  it(
    "a file the parent changed after a writer wrote it, or the user's own edit, still fails the next writer",
    async () => {
      const server = await scriptedServer(
        script()
          .rule({ system: 'You are a serialized writer.', first_user: 'first' })
          .turn((t) => t.tool('write', { path: 'a.txt', content: 'first\n' }))
          .text('wrote a.txt')
          .rule({ system: 'You are a serialized writer.', first_user: 'second' })
          .text('never runs')
          .rule({ first_user: 'go' })
          .turn((t) => t.tool('task', { agent: 'writer', prompt: 'first' }))
          .turn((t) => t.tool('write', { path: 'a.txt', content: 'the parent changed it\n' }))
          .turn((t) => t.tool('task', { agent: 'writer', prompt: 'second' }))
          .text('done'),
      );
      const p = project(server);
      expect(await endsOfGo(p)).toEqual([
        { status: 'completed', error: undefined },
        { status: 'failed', error: DIRTY },
      ]);
      expect(server.requests.some((r) => r.view.messages[0]?.text === 'second')).toBe(false);
    },
    TIMEOUT,
  );

  it(
    'an uncommitted edit of the user fails every serialized writer of a fleet',
    async () => {
      const server = await scriptedServer(
        script()
          .rule({ system: 'You are a serialized writer.' })
          .text('never runs')
          .rule({ first_user: 'go' })
          .turn((t) =>
            t.tool('fleet', {
              tasks: ['one', 'two'].map((prompt) => ({ id: prompt, agent: 'writer', prompt })),
            }),
          )
          .text('fleet done'),
      );
      const p = project(server);
      writeFileSync(join(p.dir, 'b.txt'), 'the user is editing this\n');
      expect((await endsOfGo(p)).map((e) => e.error)).toEqual([DIRTY, DIRTY]);
    },
    TIMEOUT,
  );
});
