import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { bwrapTestsRun } from '../support/bwrap.js';
import { makeProject, runCadre, type TestProject } from '../support/cli.js';

function project(options: Parameters<typeof makeProject>[0] = {}): TestProject {
  const p = makeProject({ git: true, ...options });
  onTestFinished(() => p.cleanup());
  return p;
}

function cadre(p: TestProject, args: string[], cwd = p.dir, env: Record<string, string> = {}) {
  return runCadre(args, { cwd, env: { CADRE_CONFIG_DIR: p.configDir, ...env } });
}

const GLOBAL = '{\n  // the user\'s own notes\n  "sandbox": "auto" /* keep */\n}\n';

describe('cadre trust', () => {
  it('trusts the current project, lists it, keeps the comments, and revokes it', async () => {
    const p = project({ files: { 'src/a.ts': 'x' } });
    const file = join(p.configDir, 'config.json');
    writeFileSync(file, GLOBAL);
    const root = realpathSync(p.dir);

    const trusted = await cadre(p, ['trust'], p.path('src'));
    expect(trusted.code).toBe(0);
    expect(trusted.stdout).toContain(`trusted: ${root} (saved in ${file})`);
    const text = readFileSync(file, 'utf8');
    expect(text).toContain("// the user's own notes");
    expect(text).toContain('/* keep */');

    const again = await cadre(p, ['trust', p.dir]);
    expect(again.stdout).toContain(`${root} is already trusted`);
    expect((await cadre(p, ['trust', '--list'])).stdout).toBe(`${root}\n`);

    const revoked = await cadre(p, ['trust', '--revoke']);
    expect(revoked.code).toBe(0);
    expect(revoked.stdout).toContain(`no longer trusted: ${root}`);
    expect((await cadre(p, ['trust', '--list'])).stdout).toContain('no trusted projects');
    expect(readFileSync(file, 'utf8')).toContain("// the user's own notes");
  });

  it('a project inside a trusted folder is trusted; revoking it alone says where trust comes from', async () => {
    const p = project();
    const parent = realpathSync(join(p.dir, '..'));
    writeFileSync(join(p.configDir, 'config.json'), JSON.stringify({ trusted_roots: [parent] }));
    const revoke = await cadre(p, ['trust', '--revoke']);
    expect(revoke.code).toBe(1);
    expect(revoke.stdout).toContain(`still trusted through ${parent}`);
  });

  it.each([
    ['a path that does not exist', ['trust', 'no-such-dir'], 'no-such-dir: no such directory'],
    ['a file', ['trust', 'package.json'], 'package.json: not a directory'],
    ['--list with a path', ['trust', '--list', '.'], '--list takes no path'],
  ])('refuses %s with exit 2 and a clear message', async (_name, args, message) => {
    const p = project({ files: { 'package.json': '{}' } });
    const run = await cadre(p, args);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(message);
  });

  it('refuses a malformed global config, naming it, and changes nothing', async () => {
    const p = project();
    const file = join(p.configDir, 'config.json');
    writeFileSync(file, '{ "sandbox": ');
    for (const args of [['trust'], ['trust', '--revoke'], ['trust', '--list']]) {
      const run = await cadre(p, args);
      expect(run.code).toBe(2);
      expect(run.stderr).toContain(file);
    }
    expect(readFileSync(file, 'utf8')).toBe('{ "sandbox": ');
  });

  it('refuses a global config that cannot be written, and changes nothing', async () => {
    const p = project();
    // The config directory path is taken by a file: nothing can be written there, even as root.
    const blocked = join(p.dir, 'blocked');
    writeFileSync(blocked, 'x');
    const run = await runCadre(['trust'], { cwd: p.dir, env: { CADRE_CONFIG_DIR: blocked } });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(`cannot write ${join(blocked, 'config.json')}`);
    expect(readFileSync(blocked, 'utf8')).toBe('x');
  });
});

describe('cadre sandbox status', () => {
  it('reports the policy in text and JSON: writable root, hidden secrets, scrubbed names', async () => {
    const p = project({
      config: { sandbox_hide: ['from-project'] },
    });
    writeFileSync(
      join(p.configDir, 'config.json'),
      JSON.stringify({
        providers: { mine: { type: 'anthropic', api_key_env: 'MY_PROVIDER_KEY' } },
        sandbox_env_allow: ['KEEP_TOKEN'],
      }),
    );
    const home = mkdtempSync(join(tmpdir(), 'cadre-home-'));
    onTestFinished(() => rmSync(home, { recursive: true, force: true }));
    mkdirSync(join(home, '.ssh'), { recursive: true });
    const env = { HOME: home, FOO_API_KEY: 'x', KEEP_TOKEN: 'y' };
    const run = await cadre(p, ['sandbox', 'status', '--json'], p.dir, env);
    expect(run.code).toBe(0);
    const status = JSON.parse(run.stdout);
    const root = realpathSync(p.dir);
    expect(status.root).toBe(root);
    expect(status.writable[0]).toEqual({ path: root, exists: true });
    expect(status.read_only.map((e: { path: string }) => e.path)).toEqual([
      join(root, '.git', 'hooks'),
      join(root, '.git', 'config'),
    ]);
    const hidden = status.hidden.map((e: { path: string }) => e.path);
    expect(hidden).toEqual(expect.arrayContaining([join(home, '.ssh'), join(home, '.npmrc'), p.configDir]));
    // An untrusted project's sandbox_hide is not applied (and warned about).
    expect(hidden).not.toContain(join(root, 'from-project'));
    expect(run.stderr).toContain('"sandbox_hide" ignored');
    expect(status.env.scrubbed_names).toContain('MY_PROVIDER_KEY');
    expect(status.env.scrubbed_patterns).toEqual(
      expect.arrayContaining(['*_API_KEY', '*_TOKEN', '*PASSWORD*']),
    );
    expect(status.env.scrubbed_now).toContain('FOO_API_KEY');
    expect(status.env.scrubbed_now).not.toContain('KEEP_TOKEN');
    expect(status.network).toBe(true);

    const text = await cadre(p, ['sandbox', 'status', '--safety', 'read-only'], p.dir, env);
    expect(text.code).toBe(0);
    expect(text.stdout).toContain('network: off');
    expect(text.stdout).toContain('set here and scrubbed: FOO_API_KEY');
    expect(text.stdout).toMatch(/writable:\n {2}\(none\)/);
  });

  it('names why commands run unconfined: "sandbox": "none" counts only from the user or a trusted project', async () => {
    const p = project({ config: { sandbox: 'none' } });
    const untrusted = JSON.parse((await cadre(p, ['sandbox', 'status', '--json'])).stdout);
    expect(untrusted.reason ?? '').not.toContain('"sandbox": "none"');
    const trusted = await cadre(p, ['sandbox', 'status', '--trust-project']);
    expect(trusted.code).toBe(0);
    expect(trusted.stdout).toContain('sandbox: none');
    expect(trusted.stdout).toContain('why: the configuration sets "sandbox": "none"');
  });

  it.runIf(bwrapTestsRun)('says bwrap is in force with a PID namespace where it works', async () => {
    const p = project();
    const run = await cadre(p, ['sandbox', 'status']);
    expect(run.stdout).toContain('sandbox: bwrap');
    expect(run.stdout).toContain('PID namespace: yes');
    const json = JSON.parse((await cadre(p, ['sandbox', 'status', '--json'])).stdout);
    expect(json).toMatchObject({ backend: 'bwrap', reason: null, pid_namespace: true, private_tmp: true });
  });

  it('refuses a malformed config with exit 2 naming the file', async () => {
    const p = project({ config: '{ "sandbox": "sometimes" }' });
    const run = await cadre(p, ['sandbox', 'status']);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(join(p.dir, '.cadre', 'config.json'));
  });
});
