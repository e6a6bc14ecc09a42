import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SafetyFloor } from '../../src/permission/decide.js';
import { createPermissionGate, type PermissionGateOptions } from '../../src/permission/gate.js';
import type { PermissionCall } from '../../src/permission/types.js';

let base: string;
let root: string;
let home: string;

beforeAll(() => {
  base = realpathSync(mkdtempSync(join(tmpdir(), 'cadre-gate-')));
  root = join(base, 'project');
  home = join(base, 'home');
  mkdirSync(join(root, 'src'), { recursive: true });
  mkdirSync(home);
  writeFileSync(join(root, '.env'), 'SECRET=1');
  writeFileSync(join(root, 'src', 'a.ts'), '');
  writeFileSync(join(base, 'passwd'), 'root:x');
  symlinkSync(join(base, 'passwd'), join(root, 'src', 'link'));
});
afterAll(() => rmSync(base, { recursive: true, force: true }));

const bash = (command: string): PermissionCall => ({
  tool: 'bash',
  subject: { kind: 'bash', command },
  safety: 'write',
  agent: 'main',
});
const read = (path: string): PermissionCall => ({
  tool: 'read',
  subject: { kind: 'path', paths: [path] },
  safety: 'read',
  agent: 'main',
});
const edit = (path: string): PermissionCall => ({
  tool: 'edit',
  subject: { kind: 'path', paths: [path] },
  safety: 'write',
  agent: 'main',
});

function gate(extra: Partial<PermissionGateOptions> & { rules?: Record<string, string[]> } = {}) {
  const { rules, ...rest } = extra;
  return createPermissionGate({
    root,
    home,
    safety: 'full' as SafetyFloor,
    yes: false,
    config: rules ? [{ file: 'config.json', block: rules }] : [],
    ...rest,
  });
}

describe('bash rules (6.1)', () => {
  it.each([
    ['git diff HEAD', 'allow'],
    ['git diff', 'allow'],
    ['git diff; rm -rf /', 'ask'],
    ['git diff && curl x | sh', 'ask'],
    ['git diff $(rm x)', 'ask'],
  ])('with bash(git diff *) allowed, %j is %s', async (command, action) => {
    expect((await gate({ rules: { allow: ['bash(git diff *)'] } }).decide(bash(command))).action).toBe(
      action,
    );
  });

  it('does not let ls * match lsof', async () => {
    const g = gate({ rules: { allow: ['bash(ls *)'] } });
    expect((await g.decide(bash('lsof'))).action).toBe('ask');
    expect((await g.decide(bash('ls -la'))).action).toBe('allow');
  });

  it('checks output redirections as writes of their target', async () => {
    const g = gate({ rules: { allow: ['bash(cat *)'] } });
    const decision = await g.decide(bash('cat a > ~/.bashrc'));
    expect(decision.action).toBe('ask');
    expect(decision.reason).toContain('.bashrc');
    expect((await g.decide(bash('cat a'))).action).toBe('allow');
  });

  it('lets a write rule allow a redirect inside the project', async () => {
    const g = gate({ rules: { allow: ['bash(echo *)', 'write(build/**)'] } });
    expect((await g.decide(bash('echo hi > build/out.txt'))).action).toBe('allow');
    expect((await g.decide(bash('echo hi > other.txt'))).action).toBe('ask');
  });
});

describe('path rules (6.1)', () => {
  it('does not let read(src/**) reach src/../.env', async () => {
    const g = gate({ rules: { allow: ['edit(src/**)'] } });
    expect((await g.decide(edit(join(root, 'src/../.env')))).action).toBe('ask');
    expect((await g.decide(edit(join(root, 'src/a.ts')))).action).toBe('allow');
  });

  it('resolves a symlink in src/ to its target outside the project', async () => {
    const g = gate({ rules: { allow: ['read(src/**)'] }, yes: true });
    const decision = await g.decide(read(join(root, 'src/link')));
    expect(decision.action).toBe('ask');
    expect(decision.reason).toContain('outside the project');
  });

  it('lets an explicit absolute rule allow a path outside the project', async () => {
    const g = gate({ rules: { allow: [`read(${base}/passwd)`] } });
    expect((await g.decide(read(join(root, 'src/link')))).action).toBe('allow');
  });

  it.each([
    ['*.env', '.env', 'deny'],
    ['src', 'src/a.ts', 'deny'],
    ['/src/*.ts', 'src/a.ts', 'allow'],
    ['~/notes/**', '~/notes/x.md', 'deny'],
  ])('pattern %s applied to %s gives %s', async (pattern, path, action) => {
    const g = gate({ rules: { deny: [`read(${pattern})`] } });
    const absolute = path.startsWith('~/') ? join(home, path.slice(2)) : join(root, path);
    expect((await g.decide(read(absolute))).action).toBe(action);
  });

  it('allows reads inside the project and asks for writes by default', async () => {
    expect((await gate().decide(read('src/a.ts'))).action).toBe('allow');
    expect((await gate().decide(edit('src/a.ts'))).action).toBe('ask');
  });
});

describe('url and name rules (6.1)', () => {
  const fetch = (url: string): PermissionCall => ({
    tool: 'webfetch',
    subject: { kind: 'url', url },
    safety: 'read',
    agent: 'main',
  });
  it.each([
    ['https://example.com/a', 'allow'],
    ['https://docs.example.com/a', 'allow'],
    ['https://example.com.evil.net/', 'ask'],
    ['https://notexample.com/', 'ask'],
  ])('webfetch(domain:example.com) on %s gives %s', async (url, action) => {
    expect(
      (await gate({ rules: { allow: ['webfetch(domain:example.com)'] } }).decide(fetch(url))).action,
    ).toBe(action);
  });

  it.each([
    ['https://evil.com./x', 'deny'],
    ['https://EVIL.COM../x', 'deny'],
    ['https://api.evil.com./x', 'deny'],
    ['https://good.com/x', 'allow'],
  ])('webfetch(domain:evil.com) denied under an allow-all also on %s', async (url, action) => {
    const rules = { allow: ['webfetch'], deny: ['webfetch(domain:evil.com)'] };
    expect((await gate({ rules }).decide(fetch(url))).action).toBe(action);
  });

  it('matches task(<profile>) and tool wildcards', async () => {
    const g = gate({ rules: { deny: ['task(reviewer)', 'mcp__fs__*'] } });
    const task = (value: string): PermissionCall => ({
      tool: 'task',
      subject: { kind: 'name', value },
      safety: 'read',
      agent: 'main',
    });
    expect((await g.decide(task('reviewer'))).action).toBe('deny');
    expect((await g.decide(task('explore'))).action).toBe('allow');
    const mcp: PermissionCall = {
      tool: 'mcp__fs__write',
      subject: { kind: 'none' },
      safety: 'write',
      agent: 'main',
    };
    expect((await g.decide(mcp)).action).toBe('deny');
  });
});

describe('safety floor (6.3)', () => {
  it.each(['rm -rf build', 'git push --force'])(
    'refuses %j under non-destructive even with --yes and allow bash',
    async (command) => {
      const g = gate({ safety: 'non-destructive', yes: true, rules: { allow: ['bash'] } });
      const decision = await g.decide(bash(command));
      expect(decision.action).toBe('deny');
      expect(decision.layer).toBe('floor');
    },
  );

  it('admits read-class bash under read-only and refuses writes', async () => {
    const g = gate({ safety: 'read-only', rules: { allow: ['bash'] } });
    expect((await g.decide(bash('git status'))).action).toBe('allow');
    expect((await g.decide(bash('touch x'))).action).toBe('deny');
    expect((await g.decide(edit('src/a.ts'))).layer).toBe('floor');
  });

  it('leaves tools above the floor and hard-denied tools out of the list, keeping bash', () => {
    const tools = [
      { name: 'read', safety: 'read' as const },
      { name: 'edit', safety: 'write' as const },
      { name: 'bash', safety: 'write' as const },
      { name: 'webfetch', safety: 'read' as const },
    ];
    const g = gate({ safety: 'read-only', toolPolicies: [{ owner: 'profile r', denyTools: ['webfetch'] }] });
    expect(g.visibleTools(tools)).toEqual(['read', 'bash']);
  });
});

describe('composition (6.4)', () => {
  const profile = (block: unknown) => ({ name: 'reviewer', file: 'agents/reviewer.md', block });
  const operator = (text: string) => ({ file: 'ops.yaml', text });

  it('lets an operator allow override a profile deny for the same pattern', async () => {
    const g = gate({
      profile: profile({ deny: ['bash(git push *)'] }),
      operator: operator('allow:\n  - bash(git push *)\n'),
    });
    const decision = await g.decide(bash('git push origin main'));
    expect(decision).toMatchObject({
      action: 'allow',
      layer: 'operator',
      rule: 'bash(git push *)',
      source: 'ops.yaml:2',
    });
  });

  it('lets an operator deny override a profile allow', async () => {
    const g = gate({
      profile: profile({ allow: ['bash(git push *)'] }),
      operator: operator('{"deny": ["bash(git push *)"]}'),
    });
    expect((await g.decide(bash('git push'))).action).toBe('deny');
  });

  it('makes a profile deny_tools beat --yes and name the profile', async () => {
    const g = gate({
      yes: true,
      toolPolicies: [{ owner: 'profile reviewer', denyTools: ['bash'] }],
      rules: { allow: ['bash'] },
    });
    const decision = await g.decide(bash('ls'));
    expect(decision.action).toBe('deny');
    expect(decision.reason).toBe('denied by profile reviewer (deny_tools: bash)');
  });

  it('denies every built-in tool an allow_tools list leaves out', async () => {
    const g = gate({ toolPolicies: [{ owner: 'profile explorer', allowTools: ['read', 'grep'] }] });
    expect((await g.decide(edit('src/a.ts'))).reason).toBe(
      'denied by profile explorer (allow_tools does not list edit)',
    );
    expect((await g.decide(read('src/a.ts'))).action).toBe('allow');
  });

  it('composes config global then project, last match winning', async () => {
    const g = gate({
      config: [
        { file: 'global.json', block: { allow: ['bash(npm *)'] } },
        { file: 'project.json', block: { ask: ['bash(npm publish *)'] } },
      ],
    });
    expect((await g.decide(bash('npm test'))).action).toBe('allow');
    expect((await g.decide(bash('npm publish'))).layer).toBe('config');
    expect((await g.decide(bash('npm publish'))).action).toBe('ask');
  });

  it('records session approvals as the last layer', async () => {
    const g = gate({ rules: { deny: ['bash(curl *)'] } });
    expect((await g.decide(bash('git checkout main'))).action).toBe('ask');
    g.approve('bash(git checkout *)');
    expect((await g.decide(bash('git checkout main'))).layer).toBe('session');
    g.approve('bash(curl *)');
    expect((await g.decide(bash('curl x'))).action).toBe('allow');
  });

  it('turns an ask into an allow under --yes, saying so in the trace', async () => {
    const decision = await gate({ yes: true }).decide(edit('src/a.ts'));
    expect(decision.action).toBe('allow');
    expect(decision.layer).toBe('--yes');
    expect(decision.trace.at(-1)?.layer).toBe('--yes');
  });

  it('does not let --yes approve a path outside the project', async () => {
    const decision = await gate({ yes: true }).decide(edit(join(home, '.bashrc')));
    expect(decision.action).toBe('ask');
  });

  it('denies an ask when no user is present, telling the model why', async () => {
    const decision = await gate({ headless: true }).decide(bash('curl x'));
    expect(decision.action).toBe('deny');
    expect(decision.reason).toMatch(/no user is present/);
    expect(decision.reason).toMatch(/layer default/);
    expect(decision.reason).toMatch(/An allow rule or --yes is needed\.$/);
  });

  it('does not suggest --yes for a headless ask that --yes would not approve (a path outside)', async () => {
    const decision = await gate({ headless: true }).decide(edit(join(home, '.bashrc')));
    expect(decision.action).toBe('deny');
    expect(decision.reason).not.toMatch(/or --yes/);
    expect(decision.reason).toMatch(/--yes does not approve paths outside the project/);
  });

  it('does not suggest --yes for a rule deny or the safety floor', async () => {
    const ruled = await gate({ headless: true, rules: { deny: ['bash(curl *)'] } }).decide(bash('curl x'));
    expect(ruled.action).toBe('deny');
    expect(ruled.reason).not.toContain('--yes');
    const floored = await gate({ headless: true, safety: 'read-only' }).decide(edit('src/a.ts'));
    expect(floored.action).toBe('deny');
    expect(floored.reason).not.toContain('--yes');
  });

  it('fails on a malformed operator file, naming it', () => {
    expect(() => gate({ operator: operator('deny:\n  - bash(git push\n') })).toThrow(
      /ops\.yaml.*unterminated/,
    );
  });
});

describe('delegation ceiling (6.7)', () => {
  it('does not copy the parent profile deny_tools into the child', async () => {
    const parent = gate({ toolPolicies: [{ owner: 'profile orchestrator', denyTools: ['edit'] }] });
    expect((await parent.decide(edit('src/a.ts'))).action).toBe('deny');
    const worker = parent.narrowFor({
      root,
      home,
      safety: 'full',
      yes: false,
      profile: { name: 'worker', file: 'w.md', block: { allow: ['edit(src/**)'] } },
    });
    expect((await worker.decide(edit('src/a.ts'))).action).toBe('allow');
  });

  it('keeps an operator deny in force for a grandchild', async () => {
    const parent = gate({ operator: { file: 'ops.yaml', text: 'deny: ["bash(git push *)"]' } });
    const child = parent.narrowFor({ root, home, safety: 'full', yes: true });
    const grandchild = child.narrowFor({
      root,
      home,
      safety: 'full',
      yes: true,
      config: [{ file: 'c.json', block: { allow: ['bash'] } }],
    });
    const decision = await grandchild.decide(bash('git push origin main'));
    expect(decision).toMatchObject({ action: 'deny', layer: 'ceiling', rule: 'bash(git push *)' });
    expect((await grandchild.decide(bash('git status'))).action).toBe('allow');
  });

  it('inherits the stricter floor', async () => {
    const parent = gate({ safety: 'non-destructive' });
    const child = parent.narrowFor({
      root,
      home,
      safety: 'full',
      yes: true,
      config: [{ file: 'c.json', block: { allow: ['bash'] } }],
    });
    expect((await child.decide(bash('rm -rf x'))).layer).toBe('floor');
  });
});
