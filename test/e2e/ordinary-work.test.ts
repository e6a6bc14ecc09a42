import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { bwrapTestsRun, requireBwrap } from '../support/bwrap.js';
import { script, scriptedServer } from '../support/llm-server.js';
import { cadreIn, servedProject, toolResults } from './harness.js';

const NPM_SECRET = 'npm_SECRET_token_4242';
const KEY_SECRET = 'sk-foo-secret-9191';

/**
 * Issue 15 acceptance: ordinary work runs unchanged inside the sandbox. A small Node project with a local
 * `file:` dependency (no network needed: audit, fund and update checks are off in its own .npmrc) is
 * installed, tested and committed through the bash tool with --yes; `env` and `cat ~/.npmrc` show no secret.
 */
describe.runIf(bwrapTestsRun)('ordinary work inside the sandbox', () => {
  beforeAll(requireBwrap);

  it('npm install, npm test and git commit succeed; env and ~/.npmrc show no secret', async () => {
    const server = await scriptedServer(
      script()
        .turn((t) => t.tool('bash', { command: 'npm install' }))
        .turn((t) => t.tool('bash', { command: 'npm test' }))
        .turn((t) =>
          t.tool('bash', {
            command: 'git add -A && git commit -q -m "install and test" && git log --format=%s -1',
          }),
        )
        .turn((t) => t.tool('bash', { command: 'env' }))
        .turn((t) => t.tool('bash', { command: 'cat ~/.npmrc; echo "[end of npmrc]"' }))
        .text('Done.'),
    );
    const project = servedProject(server, {
      git: true,
      files: {
        'package.json': JSON.stringify({
          name: 'sample',
          version: '1.0.0',
          private: true,
          scripts: { test: 'node test.js' },
          dependencies: { 'local-dep': 'file:./vendor/local-dep' },
        }),
        '.npmrc': 'audit=false\nfund=false\nupdate-notifier=false\n',
        '.gitignore': 'node_modules\n',
        'test.js':
          "const dep = require('local-dep');\nif (dep.answer !== 42) process.exit(1);\nconsole.log('tests pass');\n",
        'vendor/local-dep/package.json': JSON.stringify({
          name: 'local-dep',
          version: '1.0.0',
          main: 'index.js',
        }),
        'vendor/local-dep/index.js': 'module.exports = { answer: 42 };\n',
      },
    });
    execFileSync('git', ['config', 'user.email', 'me@example.invalid'], { cwd: project.dir });
    execFileSync('git', ['config', 'user.name', 'Me'], { cwd: project.dir });
    const home = mkdtempSync(join(tmpdir(), 'cadre-home-'));
    onTestFinished(() => rmSync(home, { recursive: true, force: true }));
    writeFileSync(join(home, '.npmrc'), `//registry.npmjs.org/:_authToken=${NPM_SECRET}\n`);
    mkdirSync(join(home, '.ssh'));
    writeFileSync(join(home, '.ssh', 'id_ed25519'), 'PRIVATE KEY');
    // The user's operator profile lets every command run and ~/.npmrc be read: only the sandbox keeps the secrets.
    const operator = join(project.configDir, 'allow-bash.json');
    writeFileSync(operator, JSON.stringify({ allow: ['bash', 'read(~/.npmrc)'] }));

    const run = await cadreIn(project, ['-p', 'install, test, commit', '--yes', '--permissions', operator], {
      env: { HOME: home, FOO_API_KEY: KEY_SECRET, npm_config_cache: undefined },
      timeoutMs: 120_000,
    });
    expect(run.code).toBe(0);
    expect(run.stderr).not.toContain('without an OS sandbox');
    const results = [1, 2, 3, 4, 5].map((i) => toolResults(server.requests[i]).at(-1)?.text ?? '');
    const [install, test, commit, env, npmrc] = results;
    expect(install).toMatch(/added 1 package/);
    expect(install).toContain('[exit code 0]');
    expect(test).toContain('tests pass');
    expect(test).toContain('[exit code 0]');
    expect(commit).toBe('install and test\n[exit code 0]');
    expect(execFileSync('git', ['log', '--format=%s', '-1'], { cwd: project.dir, encoding: 'utf8' })).toBe(
      'install and test\n',
    );
    expect(env).toContain(`HOME=${home}`);
    expect(npmrc).toBe('[end of npmrc]\n[exit code 0]');
    for (const request of server.requests) {
      const sent = JSON.stringify(request.body);
      expect(sent).not.toContain(NPM_SECRET);
      expect(sent).not.toContain(KEY_SECRET);
    }
  }, 150_000);
});
