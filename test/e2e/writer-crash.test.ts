import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { bwrapTestsRun, requireBwrap } from '../support/bwrap.js';
import { script, scriptedServer } from '../support/llm-server.js';
import { servedProject, startCadre } from './harness.js';

const TIMEOUT = 90_000;
const WRITER = '---\ndescription: commits\nsubagent_tools: readwrite\n---\nYou are a committing writer.\n';
const COMMIT = 'git -c user.name=w -c user.email=w@x commit -qm';

function git(dir: string, ...args: string[]): string {
  return execFileSync('git', args, { cwd: dir, encoding: 'utf8' }).trim();
}

describe.runIf(bwrapTestsRun)('a writer killed mid-run (SPEC 9)', () => {
  it(
    "cadre killed with SIGKILL mid-fleet: each writer's branch already holds the commits it made",
    async () => {
      requireBwrap();
      let builder = script();
      for (const name of ['one', 'two']) {
        builder = builder
          .rule({ system: 'You are a committing writer.', first_user: `write ${name}` })
          .turn((t) =>
            t.tool('bash', {
              command: `echo ${name} > ${name}.txt && git add ${name}.txt && ${COMMIT} "add ${name}" && echo committed-$((40 + 2))-${name}`,
            }),
          )
          // The writer is still at work (a long model call) when cadre is killed.
          .turn((t) => t.delay(60_000).text('never answered'));
      }
      const server = await scriptedServer(
        builder.rule({ first_user: 'go' }).turn((t) =>
          t.tool('fleet', {
            tasks: ['one', 'two'].map((name) => ({
              id: name,
              agent: 'writer',
              prompt: `write ${name}`,
              write_paths: [`${name}.txt`],
            })),
          }),
        ),
      );
      const p = servedProject(server, {
        git: true,
        files: { 'README.md': 'hi\n', '.cadre/agents/writer.md': WRITER },
      });
      const cadre = startCadre(p, ['-p', 'go', '--yes', '--output-format', 'stream-json']);
      // The outputs (the commands only say `$((40 + 2))`): each writer's commit has been reported back.
      await cadre.waitForStdout(
        /committed-42-one[\s\S]*committed-42-two|committed-42-two[\s\S]*committed-42-one/,
      );
      const branches = [...cadre.stdout().matchAll(/"branch":"(cadre-task-[0-9a-f-]+)"/g)].map((m) => m[1]);
      cadre.child.kill('SIGKILL');
      expect((await cadre.exited).signal).toBe('SIGKILL');
      expect(new Set(branches).size).toBe(2);
      const subjects = branches.map((branch) => git(p.dir, 'log', '-1', '--format=%s', branch)).sort();
      expect(subjects).toEqual(['add one', 'add two']);
      for (const branch of branches) git(p.dir, 'rev-list', '--objects', branch);
      git(p.dir, 'fsck', '--no-dangling');
    },
    TIMEOUT,
  );
});
