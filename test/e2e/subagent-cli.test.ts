import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openSessionStore } from '../../src/session/store.js';
import { WRITER_TOOLS } from '../../src/tool/names.js';
import { bwrapTestsRun, requireBwrap } from '../support/bwrap.js';
import { makeProject, runCadre, type TestProject } from '../support/cli.js';
import { script, scriptedServer } from '../support/llm-server.js';
import { cadreIn, providerFor, servedProject } from './harness.js';

const TIMEOUT = 60_000;

/** A reviewer that tries to write a file on its first turn and answers on its second. */
function writingReviewer() {
  return script()
    .rule({ system: 'You are the reviewer.' })
    .turn((t) => t.tool('write', { path: 'review.txt', content: 'reviewed\n' }))
    .turn((t) => t.text('Review done.'));
}

function agentsJson(stdout: string) {
  return JSON.parse(stdout) as {
    profiles: {
      name: string;
      source: string;
      model: string | null;
      tier: string;
      allow_tools: string[] | null;
      description: string | null;
    }[];
  };
}

describe('cadre subagent: the create → list → try → edit → run → delete round trip', () => {
  it(
    'manages a reviewer end to end against the scripted model server',
    async () => {
      const server = await scriptedServer(writingReviewer());
      const cheap = await scriptedServer(writingReviewer());
      const project = servedProject(server, {
        files: { 'notes.txt': 'some notes\n' },
        config: { providers: { fake: providerFor(server, 'openai'), cheap: providerFor(cheap, 'openai') } },
      });
      const skill = project.path('.cadre/skills/reviewer/SKILL.md');

      const created = await cadreIn(project, [
        'subagent',
        'create',
        'reviewer',
        '--description',
        'Reviews changes for correctness',
        '--prompt',
        'You are the reviewer.',
        '--model',
        'cheap',
        '--effort',
        'high',
        '--color',
        'orange',
      ]);
      expect(created.stderr).toBe('');
      expect(created.code).toBe(0);
      expect(created.stdout).toBe(`created reviewer (project scope, readwrite tier): ${skill}\n`);
      expect(readFileSync(skill, 'utf8')).toBe(
        [
          '---',
          'name: reviewer',
          'description: Reviews changes for correctness',
          'color: orange',
          'invocation: manual',
          'runAs: subagent',
          'model: cheap',
          'effort: high',
          '---',
          'You are the reviewer.',
          '',
        ].join('\n'),
      );

      const agents = await cadreIn(project, ['agents', '--json']);
      expect(agents.code).toBe(0);
      expect(agentsJson(agents.stdout).profiles.find((p) => p.name === 'reviewer')).toMatchObject({
        source: 'project-skill',
        model: 'cheap',
        tier: 'readwrite',
        allow_tools: null,
        description: 'Reviews changes for correctness',
      });

      const list = await cadreIn(project, ['subagent', 'list', '--json']);
      expect(list.code).toBe(0);
      const listed = JSON.parse(list.stdout) as { profiles: Record<string, unknown>[] };
      expect(listed.profiles[0]).toMatchObject({
        name: 'reviewer',
        scope: 'project',
        source: 'project-skill',
        path: skill,
        model: 'cheap',
        effort: 'high',
        tier: 'readwrite',
        color: 'orange',
        editable_fields: ['description', 'prompt', 'model', 'effort', 'tools', 'color'],
        not_editable: null,
      });
      expect(listed.profiles.find((p) => p.name === 'review')).toMatchObject({
        scope: 'builtin',
        editable_fields: ['model', 'effort'],
      });

      // try: the readonly runner, whatever the profile's tier says.
      const tried = await cadreIn(project, [
        'subagent',
        'try',
        'reviewer',
        '--yes',
        'review',
        'the',
        'notes',
      ]);
      expect(tried.code).toBe(0);
      expect(tried.stdout).toBe('Review done.\n');
      expect(tried.stderr).toContain('readonly runner, readonly tier, model scripted-model');
      expect(cheap.requests.length).toBeGreaterThanOrEqual(2);
      for (const request of cheap.requests) {
        expect(request.view.tools.filter((t) => (WRITER_TOOLS as readonly string[]).includes(t))).toEqual([]);
      }
      expect(cheap.requests[0].view.tools).toContain('read');
      expect(cheap.requests[0].view.messages[0]).toMatchObject({ role: 'user', text: 'review the notes' });
      expect(existsSync(project.path('review.txt'))).toBe(false);
      expect(server.requests).toHaveLength(0);

      // edit: an explicit empty value clears the model; the run then goes to the main model.
      const edited = await cadreIn(project, ['subagent', 'edit', 'reviewer', '--model=']);
      expect(edited.code).toBe(0);
      expect(readFileSync(skill, 'utf8')).not.toContain('model:');
      const afterEdit = await cadreIn(project, ['agents', '--json']);
      expect(agentsJson(afterEdit.stdout).profiles.find((p) => p.name === 'reviewer')?.model).toBeNull();

      // run: the normal runner; the same profile can write.
      const ran = await cadreIn(project, ['subagent', 'run', 'reviewer', '--yes', 'fix the notes']);
      expect(ran.stderr).toContain('normal runner, readwrite tier');
      expect(ran.code).toBe(0);
      expect(ran.stdout).toBe('Review done.\n');
      expect(readFileSync(project.path('review.txt'), 'utf8')).toBe('reviewed\n');
      expect(server.requests[0].view.tools).toEqual(expect.arrayContaining(['write', 'edit', 'bash']));

      const deleted = await cadreIn(project, ['subagent', 'delete', 'reviewer', '--yes']);
      expect(deleted.code).toBe(0);
      expect(deleted.stdout).toBe(`deleted reviewer: ${skill}\n`);
      expect(existsSync(project.path('.cadre/skills/reviewer'))).toBe(false);
      const finalList = await cadreIn(project, ['subagent', 'list', '--json']);
      expect(
        (JSON.parse(finalList.stdout) as { profiles: { name: string }[] }).profiles.map((p) => p.name),
      ).not.toContain('reviewer');

      // Both runs are recorded as tasks of their own sessions, like any task.
      const store = openSessionStore(project.configDir);
      try {
        const tasks = store.listTasks();
        expect(tasks.map((t) => [t.profile, t.tier, t.status])).toEqual(
          expect.arrayContaining([
            ['reviewer', 'readonly', 'completed'],
            ['reviewer', 'readwrite', 'completed'],
          ]),
        );
      } finally {
        store.close();
      }
    },
    TIMEOUT,
  );
});

describe('cadre subagent create', () => {
  it('writes --tools as allowed-tools (translated) and lets them decide the tier', async () => {
    const project = makeProject({ git: true });
    try {
      const env = { CADRE_CONFIG_DIR: project.configDir };
      const create = (name: string, ...extra: string[]) =>
        runCadre(['subagent', 'create', name, '--description', name, '--prompt', 'P.', ...extra], {
          cwd: project.dir,
          env,
        });
      const readonly = await create('scout', '--tools', 'Read,Grep,glob');
      expect(readonly.code).toBe(0);
      expect(readonly.stdout).toContain('(project scope, readonly tier)');
      expect(readFileSync(project.path('.cadre/skills/scout/SKILL.md'), 'utf8')).toContain(
        'allowed-tools: [read, grep, glob]\n',
      );
      const writer = await create('fixer', '--tools', 'read,Bash');
      expect(writer.stdout).toContain('readwrite tier');
      const locked = await create('locked', '--read-only', '--tools', 'read,write');
      expect(locked.code).toBe(0);
      expect(locked.stderr).toBe('cadre: note: --read-only strips write from the allowed tools\n');
      expect(readFileSync(project.path('.cadre/skills/locked/SKILL.md'), 'utf8')).toContain(
        'read-only: true\nallowed-tools: [read, write]\n',
      );
      const agents = await runCadre(['agents', '--json'], { cwd: project.dir, env });
      const byName = new Map(agentsJson(agents.stdout).profiles.map((p) => [p.name, p]));
      expect(byName.get('scout')).toMatchObject({ tier: 'readonly', allow_tools: ['read', 'grep', 'glob'] });
      expect(byName.get('fixer')).toMatchObject({
        tier: 'readwrite',
        allow_tools: ['read', 'bash', 'bash_output', 'kill_shell'],
      });
      expect(byName.get('locked')).toMatchObject({ tier: 'readonly', allow_tools: ['read'] });
    } finally {
      project.cleanup();
    }
  });

  it('takes the prompt from standard input, from --prompt-file - and from a file', async () => {
    const project = makeProject({ git: true, files: { 'prompt.md': '# Reviewer\n\nBe brief.\n' } });
    try {
      const env = { CADRE_CONFIG_DIR: project.configDir };
      const create = (name: string, extra: string[], stdin?: string) =>
        runCadre(['subagent', 'create', name, '--description', 'D', ...extra], {
          cwd: project.dir,
          env,
          stdin,
        });
      expect((await create('piped', [], 'From stdin.\n')).code).toBe(0);
      expect((await create('dashed', ['--prompt-file', '-'], 'From dash.\n')).code).toBe(0);
      expect((await create('filed', ['--prompt-file', 'prompt.md'])).code).toBe(0);
      const body = (name: string) =>
        readFileSync(project.path(`.cadre/skills/${name}/SKILL.md`), 'utf8').split('---\n')[2];
      expect(body('piped')).toBe('From stdin.\n');
      expect(body('dashed')).toBe('From dash.\n');
      expect(body('filed')).toBe('# Reviewer\n\nBe brief.\n');
    } finally {
      project.cleanup();
    }
  });

  it('creates in global scope outside a project, and there with --scope global inside one', async () => {
    const outside = makeProject();
    const inside = makeProject({ git: true });
    try {
      const out = await runCadre(
        ['subagent', 'create', 'helper', '--description', 'Helps', '--prompt', 'Help.'],
        {
          cwd: outside.dir,
          env: { CADRE_CONFIG_DIR: outside.configDir },
        },
      );
      expect(out.code).toBe(0);
      expect(out.stdout).toBe(
        `created helper (global scope, readwrite tier): ${join(outside.configDir, 'skills', 'helper', 'SKILL.md')}\n`,
      );
      expect(existsSync(outside.path('.cadre'))).toBe(false);
      const scoped = await runCadre(
        ['subagent', 'create', 'helper', '--description', 'Helps', '--prompt', 'Help.', '--scope', 'global'],
        { cwd: inside.dir, env: { CADRE_CONFIG_DIR: inside.configDir } },
      );
      expect(scoped.code).toBe(0);
      expect(existsSync(join(inside.configDir, 'skills', 'helper', 'SKILL.md'))).toBe(true);
      const listed = await runCadre(['subagent', 'list', '--dir', inside.dir, '--json'], {
        env: { CADRE_CONFIG_DIR: inside.configDir },
      });
      expect(JSON.parse(listed.stdout).profiles[0]).toMatchObject({
        name: 'helper',
        scope: 'global',
        source: 'global-skill',
      });
    } finally {
      outside.cleanup();
      inside.cleanup();
    }
  });

  it('says when --model is a literal model name rather than a configured alias', async () => {
    const project = makeProject({ git: true, config: { providers: { haiku: { type: 'anthropic' } } } });
    try {
      const run = await runCadre(
        ['subagent', 'create', 'r', '--description', 'R', '--prompt', 'R.', '--model', 'gpt-5.1'],
        { cwd: project.dir, env: { CADRE_CONFIG_DIR: project.configDir } },
      );
      expect(run.code).toBe(0);
      expect(run.stderr).toBe(
        'cadre: note: "gpt-5.1" is not a configured provider alias (aliases: haiku); it will be used as a literal model name on the main provider\n',
      );
    } finally {
      project.cleanup();
    }
  });
});

describe('cadre subagent edit', () => {
  const RICH_BUT_MANAGED = [
    '---',
    'name: reviewer',
    '# Owned by the platform team.',
    'description: Reviews changes',
    'invocation: manual',
    'runAs: subagent',
    "reasoning: 'low'",
    'allowed-tools:',
    '  - read',
    '  - grep',
    '---',
    '',
    'You are the reviewer.',
    '',
    '   * keep this indentation',
    '',
  ].join('\n');

  it('changes only the given fields and keeps everything else byte for byte', async () => {
    const project = makeProject({
      git: true,
      files: { '.cadre/skills/reviewer/SKILL.md': RICH_BUT_MANAGED },
    });
    try {
      const env = { CADRE_CONFIG_DIR: project.configDir };
      const run = await runCadre(
        ['subagent', 'edit', 'reviewer', '--effort', 'high', '--color', 'teal', '--tools', 'read,bash'],
        {
          cwd: project.dir,
          env,
        },
      );
      expect(run.stderr).toBe('');
      expect(run.code).toBe(0);
      expect(readFileSync(project.path('.cadre/skills/reviewer/SKILL.md'), 'utf8')).toBe(
        RICH_BUT_MANAGED.replace("reasoning: 'low'", 'reasoning: high')
          .replace('allowed-tools:\n  - read\n  - grep\n', 'allowed-tools: [read, bash]\n')
          .replace('---\n\nYou', 'color: teal\n---\n\nYou'),
      );
      const cleared = await runCadre(['subagent', 'edit', 'reviewer', '--effort=', '--tools=', '--color='], {
        cwd: project.dir,
        env,
      });
      expect(cleared.code).toBe(0);
      expect(readFileSync(project.path('.cadre/skills/reviewer/SKILL.md'), 'utf8')).toBe(
        RICH_BUT_MANAGED.replace("reasoning: 'low'\n", '').replace(
          'allowed-tools:\n  - read\n  - grep\n',
          '',
        ),
      );
      const prompt = await runCadre(['subagent', 'edit', 'reviewer', '--prompt', 'You are stricter.'], {
        cwd: project.dir,
        env,
      });
      expect(prompt.code).toBe(0);
      expect(readFileSync(project.path('.cadre/skills/reviewer/SKILL.md'), 'utf8')).toMatch(
        /# Owned by the platform team\.\n[\s\S]*---\nYou are stricter\.\n$/,
      );
    } finally {
      project.cleanup();
    }
  });

  it('stores a built-in override in the project config, keeping its comments, and clears it again', async () => {
    const config = '{\n  // my setup\n  "provider": "fake", // main loop\n  "providers": {}\n}\n';
    const project = makeProject({ git: true, config });
    try {
      const env = { CADRE_CONFIG_DIR: project.configDir };
      const set = await runCadre(
        ['subagent', 'edit', 'review', '--model', 'cheap-model', '--effort', 'low'],
        {
          cwd: project.dir,
          env,
        },
      );
      expect(set.code).toBe(0);
      const path = project.path('.cadre/config.json');
      expect(set.stdout).toBe(
        `set subagent_models.review = cheap-model in ${path}\nset subagent_efforts.review = low in ${path}\n`,
      );
      const text = readFileSync(path, 'utf8');
      expect(text).toContain('// my setup\n  "provider": "fake", // main loop\n');
      expect(text).toMatch(/"subagent_models": \{\s+"review": "cheap-model"\s+\}/);
      const cleared = await runCadre(['subagent', 'edit', 'review', '--model=', '--effort='], {
        cwd: project.dir,
        env,
      });
      expect(cleared.code).toBe(0);
      expect(readFileSync(path, 'utf8')).toBe(
        '{\n  // my setup\n  "provider": "fake", // main loop\n  "providers": {},\n  "subagent_models": {},\n  "subagent_efforts": {}\n}\n',
      );
    } finally {
      project.cleanup();
    }
  });

  it('stores a built-in override in the global config outside a project', async () => {
    const outside = makeProject();
    try {
      const run = await runCadre(['subagent', 'edit', 'explore', '--effort', 'minimal'], {
        cwd: outside.dir,
        env: { CADRE_CONFIG_DIR: outside.configDir },
      });
      expect(run.code).toBe(0);
      expect(JSON.parse(readFileSync(join(outside.configDir, 'config.json'), 'utf8'))).toEqual({
        subagent_efforts: { explore: 'minimal' },
      });
    } finally {
      outside.cleanup();
    }
  });
});

describe('cadre subagent try and run', () => {
  it(
    'reads the task from standard input, prints JSON as headless, and keeps flags before the task',
    async () => {
      const server = await scriptedServer(
        script()
          .rule({ system: 'You summarise.' })
          .turn((t) => t.text('Summary: short.')),
      );
      const project = servedProject(server, {
        files: {
          '.cadre/skills/sum/SKILL.md':
            '---\nrunAs: subagent\nsubagent_tools: toolless\n---\nYou summarise.\n',
        },
      });
      const piped = await cadreIn(project, ['subagent', 'run', 'sum', '--output-format', 'json'], {
        stdin: 'diff --git a b\n',
      });
      expect(piped.code).toBe(0);
      const out = JSON.parse(piped.stdout);
      expect(out).toMatchObject({
        result: 'Summary: short.',
        is_error: false,
        stop_reason: 'completed',
        model: 'scripted-model',
        subagents: [{ profile: 'sum', status: 'completed', background: false }],
        permission_denials: [],
      });
      expect(server.requests[0].view.messages[0]).toMatchObject({ role: 'user', text: 'diff --git a b' });
      // The run's session keeps the task and the child's final answer, not the child's working context.
      const store = openSessionStore(project.configDir);
      try {
        expect(store.loadMessages(out.session_id)).toEqual([
          { role: 'user', content: 'diff --git a b' },
          { role: 'assistant', content: 'Summary: short.' },
        ]);
        expect(store.listTasks({ parentSessionId: out.session_id }).map((t) => t.status)).toEqual([
          'completed',
        ]);
      } finally {
        store.close();
      }
      const literal = await cadreIn(project, ['subagent', 'try', 'sum', 'explain', '--model', 'x']);
      expect(literal.code).toBe(0);
      expect(server.requests[1].view.messages[0]).toMatchObject({ text: 'explain --model x' });
      expect(server.requests[1].view.model).toBe('scripted-model');
    },
    TIMEOUT,
  );

  it(
    'uses --model only where no per-profile config, profile model or default chose one (SPEC 7.6 level 5)',
    async () => {
      const main = await scriptedServer(script().turn((t) => t.text('from main')));
      const other = await scriptedServer(script().turn((t) => t.text('from other')));
      const project = servedProject(main, {
        config: { providers: { fake: providerFor(main, 'openai'), other: providerFor(other, 'openai') } },
        files: {
          '.cadre/skills/plain/SKILL.md': '---\nrunAs: subagent\nsubagent_tools: toolless\n---\nPlain.\n',
          '.cadre/skills/pinned/SKILL.md':
            '---\nrunAs: subagent\nsubagent_tools: toolless\nmodel: fake\n---\nPinned.\n',
        },
      });
      const plain = await cadreIn(project, ['subagent', 'run', 'plain', '--model', 'other', 'go']);
      expect(plain.stdout).toBe('from other\n');
      const pinned = await cadreIn(project, ['subagent', 'run', 'pinned', '--model', 'other', 'go']);
      expect(pinned.stdout).toBe('from main\n');
    },
    TIMEOUT,
  );

  it(
    'keeps permission denies under run: a denied write does not happen even with --yes',
    async () => {
      const server = await scriptedServer(writingReviewer());
      const project = servedProject(server, {
        config: { permission: { deny: ['write(review.txt)'] } },
        files: { '.cadre/skills/reviewer/SKILL.md': '---\nrunAs: subagent\n---\nYou are the reviewer.\n' },
      });
      const run = await cadreIn(project, [
        'subagent',
        'run',
        'reviewer',
        '--yes',
        '--output-format',
        'json',
        'go',
      ]);
      expect(run.code).toBe(0);
      expect(existsSync(project.path('review.txt'))).toBe(false);
      expect(JSON.parse(run.stdout).permission_denials).toEqual([
        expect.objectContaining({ tool: 'write', rule: 'write(review.txt)' }),
      ]);
    },
    TIMEOUT,
  );

  it(
    'applies --permissions and --safety to run: an operator deny and the floor hold even with --yes',
    async () => {
      const server = await scriptedServer(writingReviewer());
      const project = servedProject(server, {
        files: {
          '.cadre/skills/reviewer/SKILL.md': '---\nrunAs: subagent\n---\nYou are the reviewer.\n',
          'operator.json': '{"deny": ["write"]}\n',
        },
      });
      const denied = await cadreIn(project, [
        'subagent',
        'run',
        'reviewer',
        '--yes',
        '--permissions',
        project.path('operator.json'),
        '--output-format',
        'json',
        'go',
      ]);
      expect(denied.code).toBe(0);
      expect(JSON.parse(denied.stdout).permission_denials).toEqual([
        expect.objectContaining({ tool: 'write', source: `${project.path('operator.json')}:1` }),
      ]);
      const floored = await cadreIn(project, [
        'subagent',
        'run',
        'reviewer',
        '--yes',
        '--safety',
        'read-only',
        'go',
      ]);
      expect(floored.code).toBe(0);
      expect(
        server.requests.at(-1)?.view.tools.filter((t) => (WRITER_TOOLS as readonly string[]).includes(t)),
      ).toEqual(['bash', 'bash_output']);
      expect(existsSync(project.path('review.txt'))).toBe(false);
    },
    TIMEOUT,
  );

  it(
    'refuses to start on an invalid per-profile effort in config, with exit 2 and no model call',
    async () => {
      const server = await scriptedServer(writingReviewer());
      const project = servedProject(server, {
        config: { subagent_efforts: { reviewer: 'huge' } },
        files: { '.cadre/skills/reviewer/SKILL.md': '---\nrunAs: subagent\n---\nYou are the reviewer.\n' },
      });
      const run = await cadreIn(project, ['subagent', 'try', 'reviewer', 'go']);
      expect(run.code).toBe(2);
      expect(run.stderr).toContain('Cannot start the subagent: invalid effort "huge" from subagent_efforts');
      expect(server.requests).toHaveLength(0);
    },
    TIMEOUT,
  );

  it(
    'fails with exit 1 when the subagent hits --max-steps',
    async () => {
      const server = await scriptedServer(
        script()
          .rule({ system: 'You loop.' })
          .turn((t) => t.tool('list_dir', {}))
          .turn((t) => t.tool('list_dir', {}))
          .turn((t) => t.text('never reached')),
      );
      const project = servedProject(server, {
        files: { '.cadre/skills/looper/SKILL.md': '---\nrunAs: subagent\n---\nYou loop.\n' },
      });
      const run = await cadreIn(project, ['subagent', 'try', 'looper', '--max-steps', '1', 'go']);
      expect(run.code).toBe(1);
      expect(run.stdout).toBe('');
      expect(run.stderr).toMatch(/cadre: looper failed: .*max_steps 1/);
      expect(server.requests).toHaveLength(1);
    },
    TIMEOUT,
  );

  it(
    'runs a built-in on its per-profile config model',
    async () => {
      const main = await scriptedServer(script().turn((t) => t.text('main answered')));
      const other = await scriptedServer(script().turn((t) => t.text('override answered')));
      const project = servedProject(main, {
        config: { providers: { fake: providerFor(main, 'openai'), other: providerFor(other, 'openai') } },
      });
      writeFileSync(project.path('notes.txt'), 'x\n');
      const set = await cadreIn(project, ['subagent', 'edit', 'explore', '--model', 'other']);
      expect(set.code).toBe(0);
      const listed = await cadreIn(project, ['subagent', 'list']);
      expect(listed.stdout).toMatch(/ {2}explore +builtin +model: other \(subagent_models\) +tier: readonly/);
      const json = await cadreIn(project, ['subagent', 'list', '--json']);
      expect(
        JSON.parse(json.stdout).profiles.find((p: { name: string }) => p.name === 'explore'),
      ).toMatchObject({
        config_model: 'other',
        config_effort: null,
      });
      const run = await cadreIn(project, ['subagent', 'try', 'explore', 'look around']);
      expect(run.stdout).toBe('override answered\n');
      expect(main.requests).toHaveLength(0);
    },
    TIMEOUT,
  );
});

describe('cadre subagent run of a readwrite profile follows subagent_write_isolation', () => {
  const FIXER = '---\nrunAs: subagent\n---\nYou are the reviewer.\n';
  /** An unconfined sandbox (the user's global choice): no isolated writer is possible. */
  const noSandbox = (project: TestProject) =>
    writeFileSync(join(project.configDir, 'config.json'), '{"sandbox": "none"}\n');

  it.runIf(bwrapTestsRun)(
    'runs in its own worktree under the sandbox and prints the branch, commits and salvage path',
    async () => {
      requireBwrap();
      const server = await scriptedServer(
        script()
          .rule({ system: 'You are the reviewer.' })
          .turn((t) => t.tool('write', { path: 'review.txt', content: 'reviewed\n' }))
          .turn((t) =>
            t.tool('bash', {
              command:
                'git add review.txt && git -c user.name=w -c user.email=w@example.invalid commit -qm review',
            }),
          )
          .turn((t) => t.text('Committed the review.')),
      );
      const project = servedProject(server, { git: true, files: { '.cadre/skills/fixer/SKILL.md': FIXER } });
      const worktrees = join(project.configDir, 'worktrees');
      const run = await cadreIn(
        project,
        ['subagent', 'run', 'fixer', '--yes', '--output-format', 'json', 'go'],
        {
          env: { CADRE_WORKTREE_DIR: worktrees },
        },
      );
      expect(run.code).toBe(0);
      const out = JSON.parse(run.stdout);
      expect(out.result).toBe('Committed the review.');
      expect(out.writer).toMatchObject({ isolation: 'worktree', removed: false, dirty: false });
      const { branch, path, commits } = out.writer as { branch: string; path: string; commits: string[] };
      expect(branch).toMatch(/^cadre-task-[0-9a-f-]{36}$/);
      expect(path).toBe(join(worktrees, branch));
      expect(commits).toHaveLength(1);
      const lines = run.stderr.split('\n').filter((l) => l.startsWith('cadre: fixer: writer '));
      expect(lines).toEqual([
        'cadre: fixer: writer isolation: worktree',
        `cadre: fixer: writer branch: ${branch}`,
        'cadre: fixer: writer worktree: clean; retained for salvage',
        `cadre: fixer: writer commits: ${commits[0]}`,
        `cadre: fixer: writer salvage path: ${path}`,
      ]);
      const taskId = out.subagents[0].id as string;
      expect(run.stderr).toContain(
        `cadre: fixer: merge it with cadre tasks merge ${taskId}, or drop it with cadre tasks discard ${taskId} --yes\n`,
      );
      // Written in the worktree, not in the user's checkout: nothing is merged behind their back.
      expect(readFileSync(join(path, 'review.txt'), 'utf8')).toBe('reviewed\n');
      expect(existsSync(project.path('review.txt'))).toBe(false);
      // The run is a task like any other: `cadre tasks merge` brings its branch in.
      const merged = await cadreIn(project, ['tasks', 'merge', taskId]);
      expect(merged.code).toBe(0);
      expect(readFileSync(project.path('review.txt'), 'utf8')).toBe('reviewed\n');
    },
    TIMEOUT,
  );

  it(
    'runs serialized in the parent checkout when no confining sandbox is available, and says so',
    async () => {
      const server = await scriptedServer(writingReviewer());
      const project = servedProject(server, { git: true, files: { '.cadre/skills/fixer/SKILL.md': FIXER } });
      noSandbox(project);
      const run = await cadreIn(project, [
        'subagent',
        'run',
        'fixer',
        '--yes',
        '--output-format',
        'json',
        'go',
      ]);
      expect(run.code).toBe(0);
      expect(run.stderr).toContain('read-write subagents run serialized in the parent checkout');
      expect(run.stderr).toContain('cadre: fixer: writer isolation: serialized parent checkout\n');
      expect(JSON.parse(run.stdout).writer).toEqual({ isolation: 'serialize' });
      expect(readFileSync(project.path('review.txt'), 'utf8')).toBe('reviewed\n');
    },
    TIMEOUT,
  );

  it(
    'fails to start in worktree mode without a confining sandbox, saying why',
    async () => {
      const server = await scriptedServer(writingReviewer());
      const project = servedProject(server, {
        git: true,
        config: { subagent_write_isolation: 'worktree' },
        files: { '.cadre/skills/fixer/SKILL.md': FIXER },
      });
      noSandbox(project);
      const run = await cadreIn(project, ['subagent', 'run', 'fixer', '--yes', 'go']);
      expect(run.stderr).toMatch(
        /subagent_write_isolation "worktree": cannot isolate the writer: no confining sandbox/,
      );
      expect(run.code).toBe(2);
      expect(server.requests).toHaveLength(0);
      expect(existsSync(project.path('review.txt'))).toBe(false);
    },
    TIMEOUT,
  );

  it(
    'refuses a dirty parent checkout with the SPEC 9 message, while try still runs there',
    async () => {
      const server = await scriptedServer(writingReviewer());
      const project = servedProject(server, { git: true, files: { '.cadre/skills/fixer/SKILL.md': FIXER } });
      writeFileSync(project.path('uncommitted.txt'), 'work in progress\n');
      const run = await cadreIn(project, ['subagent', 'run', 'fixer', '--yes', 'go']);
      expect(run.code).toBe(1);
      expect(run.stderr).toContain(
        'cannot run a read-write subagent in a dirty parent checkout: commit or stash first',
      );
      expect(existsSync(project.path('review.txt'))).toBe(false);
      const tried = await cadreIn(project, ['subagent', 'try', 'fixer', 'go']);
      expect(tried.code).toBe(0);
    },
    TIMEOUT,
  );
});
