import { mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeProject, runCadre, type TestProject } from '../support/cli.js';

/** Every file under the project and the global config dir with its content: "no file changed" is equality. */
function snapshot(project: TestProject): Record<string, string> {
  const files: Record<string, string> = {};
  const walk = (root: string, dir: string, label: string) => {
    for (const entry of readdirSync(dir)) {
      const path = join(dir, entry);
      if (statSync(path).isDirectory()) {
        files[`${label}/${relative(root, path)}/`] = '';
        walk(root, path, label);
      } else files[`${label}/${relative(root, path)}`] = readFileSync(path, 'utf8');
    }
  };
  walk(project.dir, project.dir, 'project');
  walk(project.configDir, project.configDir, 'global');
  return files;
}

const MANAGED =
  '---\nname: reviewer\ndescription: Reviews\ninvocation: manual\nrunAs: subagent\n---\nYou review.\n';

const FILES: Record<string, string> = {
  'prompt.md': 'A prompt.\n',
  '.cadre/skills/reviewer/SKILL.md': MANAGED,
  '.cadre/agents/planner.md': '---\ndescription: plans\n---\nPlan.\n',
  '.cadre/skills/styleguide/SKILL.md': '---\ndescription: house style\n---\nUse tabs.\n',
  '.cadre/skills/rich/SKILL.md': MANAGED.replace('reviewer', 'rich'),
  '.cadre/skills/rich/scripts/check.sh': 'echo ok\n',
  '.cadre/skills/keyed/SKILL.md': MANAGED.replace('reviewer', 'keyed').replace(
    '---\nYou',
    'temperature: 0.3\n---\nYou',
  ),
  '.cadre/skills/auto/SKILL.md': MANAGED.replace('reviewer', 'auto').replace('manual', 'auto'),
  '.claude/agents/scout.md': '---\nname: scout\ntools: Read\n---\nScout.\n',
  'mission/orchestrator/roles/lead.md': '---\nname: lead\n---\nLead.\n',
};

const GLOBAL_FILES: Record<string, string> = {
  'agents/globalagent.md': 'Global agent.\n',
  'skills/globalskill/SKILL.md': '---\nrunAs: subagent\n---\nGlobal skill.\n',
};

function projectWithEverySource(): TestProject {
  const project = makeProject({
    git: true,
    files: FILES,
    config: { mission_repo: '../mission', agents: { configured: { prompt: 'From config.' } } },
  });
  for (const [path, text] of Object.entries(GLOBAL_FILES)) {
    const full = join(project.configDir, path);
    mkdirSync(dirname(full), { recursive: true });
    writeFileSync(full, text);
  }
  return project;
}

const CREATE = (name: string, ...extra: string[]) => [
  'subagent',
  'create',
  name,
  '--description',
  'D',
  ...(extra.length > 0 ? extra : ['--prompt', 'P.']),
];

describe('cadre subagent: bad input is exit 2 with a message saying what to do, and no file changes', () => {
  // One project with a profile of every source; no case may change any file in it.
  let project: TestProject;
  let before: Record<string, string>;
  beforeAll(() => {
    project = projectWithEverySource();
    before = snapshot(project);
  });
  afterAll(() => project.cleanup());

  it.each<[string, string[], RegExp, string?]>([
    ['an empty name', CREATE(''), /invalid name "".*; a profile name is 1 to 64 letters/],
    ['a name with a path separator', CREATE('../evil'), /invalid name "\.\.\/evil"/],
    ['a name with a space', CREATE('code reviewer'), /invalid name "code reviewer"/],
    ['a reserved word', CREATE('off'), /reserved name "off"/],
    ['a tool name', CREATE('bash'), /reserved name "bash"/],
    [
      'a built-in name',
      CREATE('security-review'),
      /"security-review" is a built-in profile; pick another name/,
    ],
    [
      'a project skill profile',
      CREATE('reviewer'),
      /a project-skill profile named "reviewer" already exists .*pick another name/,
    ],
    ['a project agent', CREATE('planner'), /a project profile named "planner" already exists/],
    ['a global agent', CREATE('globalagent'), /a global profile named "globalagent" already exists/],
    [
      'a global skill profile',
      CREATE('globalskill'),
      /a global-skill profile named "globalskill" already exists/,
    ],
    // The editors cannot change these, so the message only says to pick another name.
    [
      'a mission role',
      CREATE('lead'),
      /a mission profile named "lead" already exists \(.*\); pick another name\n/,
    ],
    [
      'a Claude Code agent',
      CREATE('scout'),
      /a claude profile named "scout" already exists \(.*\); pick another name\n/,
    ],
    [
      'a config profile',
      CREATE('configured'),
      /a config profile named "configured" already exists \(config agents.configured\); pick another name\n/,
    ],
    ['a plain skill', CREATE('styleguide'), /a skill named "styleguide" already exists/],
    [
      'a missing description',
      ['subagent', 'create', 'fresh', '--prompt', 'P.'],
      /missing --description TEXT/,
    ],
    [
      'a missing prompt',
      ['subagent', 'create', 'fresh', '--description', 'D'],
      /missing prompt: give --prompt TEXT, --prompt-file PATH/,
    ],
    ['an empty prompt', CREATE('fresh', '--prompt', '   '), /the prompt is empty/],
    [
      'both --prompt and --prompt-file',
      CREATE('fresh', '--prompt', 'P.', '--prompt-file', 'prompt.md'),
      /either with --prompt or with --prompt-file, not both/,
    ],
    [
      'an unreadable prompt file',
      CREATE('fresh', '--prompt-file', 'missing.md'),
      /cannot use --prompt-file missing.md: cannot read: ENOENT/,
    ],
    [
      'a directory as prompt file',
      CREATE('fresh', '--prompt-file', '.cadre'),
      /cannot use --prompt-file \.cadre: a directory, not a regular file/,
    ],
    [
      'an unknown tool name',
      CREATE('fresh', '--prompt', 'P.', '--tools', 'read,teleport'),
      /unknown tool name\(s\) in --tools: teleport; use cadre tool names/,
    ],
    [
      'an invalid effort',
      CREATE('fresh', '--prompt', 'P.', '--effort', 'extreme'),
      /invalid --effort "extreme": use one of off, minimal/,
    ],
    ['an invalid scope', CREATE('fresh', '--prompt', 'P.', '--scope', 'team'), /argument 'team' is invalid/],
    [
      'a two-line description',
      ['subagent', 'create', 'fresh', '--description', 'a\nb', '--prompt', 'P.'],
      /--description must be one line/,
    ],
    [
      'edit of an unknown profile',
      ['subagent', 'edit', 'nope', '--model', 'x'],
      /unknown profile "nope"; known profiles: .*reviewer/,
    ],
    [
      'delete of an unknown profile',
      ['subagent', 'delete', 'nope', '--yes'],
      /unknown profile "nope"; known profiles:/,
    ],
    [
      'try of an unknown profile',
      ['subagent', 'try', 'nope', 'task'],
      /unknown profile "nope"; known profiles:/,
    ],
    [
      'run of an unknown profile',
      ['subagent', 'run', 'nope', 'task'],
      /unknown profile "nope"; known profiles:/,
    ],
    [
      'edit with nothing to change',
      ['subagent', 'edit', 'reviewer'],
      /nothing to change: give --description/,
    ],
    [
      'edit of a skill with scripts/',
      ['subagent', 'edit', 'rich', '--model', 'x'],
      /has scripts\/; the editors leave rich skills alone: edit .*SKILL\.md directly/,
    ],
    [
      'edit of a file with unmanaged keys',
      ['subagent', 'edit', 'keyed', '--model', 'x'],
      /do not manage \(temperature\); edit the file directly/,
    ],
    [
      'edit of an auto profile',
      ['subagent', 'edit', 'auto', '--model', 'x'],
      /invocation: auto; the editors only change manual profiles/,
    ],
    [
      'edit of a Claude Code agent',
      ['subagent', 'edit', 'scout', '--model', 'x'],
      /claude profile .* outside project and global scope; edit it there directly/,
    ],
    ['edit of a mission role', ['subagent', 'edit', 'lead', '--model', 'x'], /mission profile/],
    [
      'edit of a config profile',
      ['subagent', 'edit', 'configured', '--model', 'x'],
      /config profile \(config: agents.configured\)/,
    ],
    [
      'edit of a built-in beyond model and effort',
      ['subagent', 'edit', 'review', '--prompt', 'x'],
      /built-in profile: only --model and --effort can be changed \(not --prompt\)/,
    ],
    [
      'edit with an invalid effort',
      ['subagent', 'edit', 'reviewer', '--effort', 'huge'],
      /invalid --effort "huge"/,
    ],
    [
      'edit with an unknown tool',
      ['subagent', 'edit', 'reviewer', '--tools', 'Teleport'],
      /unknown tool name\(s\) in --tools: Teleport/,
    ],
    ['edit with an empty prompt', ['subagent', 'edit', 'reviewer', '--prompt='], /the prompt is empty/],
    [
      'delete without --yes',
      ['subagent', 'delete', 'reviewer'],
      /add --yes to delete .*SKILL\.md; nothing was removed/,
    ],
    ['delete of a rich skill', ['subagent', 'delete', 'rich', '--yes'], /edit .*SKILL\.md directly/],
    [
      'delete of a built-in',
      ['subagent', 'delete', 'explore', '--yes'],
      /built-in profile and has no file to delete/,
    ],
    [
      'delete of a Claude Code agent',
      ['subagent', 'delete', 'scout', '--yes'],
      /outside project and global scope/,
    ],
    [
      'a --dir that is not a directory',
      ['subagent', 'list', '--dir', 'nowhere'],
      /--dir nowhere: not a directory/,
    ],
    [
      'create in a --dir that is not a directory',
      [...CREATE('fresh'), '--dir', 'prompt.md'],
      /--dir prompt.md: not a directory/,
    ],
    [
      'try with an empty task',
      ['subagent', 'try', 'reviewer', '  '],
      /no task: the task given to cadre subagent try is empty/,
    ],
    ['run without a task', ['subagent', 'run', 'reviewer'], /no task: standard input was empty/],
    [
      'run with --max-steps 0',
      ['subagent', 'run', 'reviewer', '--max-steps', '0', 'go'],
      /expected a positive integer, got "0"/,
    ],
  ])('%s', async (_label, args, message) => {
    const run = await runCadre(args, { cwd: project.dir, env: { CADRE_CONFIG_DIR: project.configDir } });
    expect(run.stderr).toMatch(message);
    expect(run.stderr).not.toMatch(/\n\s+at /);
    expect(run.code).toBe(2);
    expect(run.stdout).toBe('');
    expect(snapshot(project)).toEqual(before);
  });
});
