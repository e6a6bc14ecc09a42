import { describe, expect, it } from 'vitest';
import { isScrubbed, scrubEnv } from '../../src/sandbox/env.js';
import { buildSandboxPolicy, type SandboxSettings } from '../../src/sandbox/policy.js';

const HOME = '/home/u';
const ROOT = '/work/proj';

function settings(overrides: Partial<SandboxSettings> = {}): SandboxSettings {
  return {
    home: HOME,
    configDir: '/home/u/.config/cadre',
    readOnly: false,
    network: true,
    pidNamespace: true,
    hide: [],
    envAllow: [],
    keyEnvNames: [],
    ...overrides,
  };
}

describe('the sandbox policy', () => {
  it('makes the root and the package caches writable, the git store hooks and config read-only', () => {
    const policy = buildSandboxPolicy(settings(), ROOT, { gitStores: [`${ROOT}/.git`] });
    expect(policy.root).toBe(ROOT);
    expect(policy.writable[0]).toBe(ROOT);
    expect(policy.writable).toEqual(
      expect.arrayContaining(['/home/u/.npm', '/home/u/.cache', '/home/u/.cargo', '/home/u/go']),
    );
    // The store inside the root is writable through the root already.
    expect(policy.writable).not.toContain(`${ROOT}/.git`);
    expect(policy.readOnly).toEqual([`${ROOT}/.git/hooks`, `${ROOT}/.git/config`]);
    expect(policy.createMissing).toEqual(['/home/u/.npm', '/home/u/.cache']);
    expect(policy).toMatchObject({ privateTmp: true, network: true, pidNamespace: true });
  });

  it('hides the credential directories, files and cadre’s own config directory', () => {
    const { hidden } = buildSandboxPolicy(settings(), ROOT);
    for (const path of [
      '.ssh',
      '.aws',
      '.gnupg',
      '.config/gcloud',
      '.config/gh',
      '.kube',
      '.docker',
      '.config/cadre',
    ])
      expect(hidden).toContain(`${HOME}/${path}`);
    for (const path of ['.npmrc', '.netrc', '.git-credentials']) expect(hidden).toContain(`${HOME}/${path}`);
  });

  it.each([
    ['~/secrets', `${HOME}/secrets`],
    ['/etc/app/key.pem', '/etc/app/key.pem'],
    ['.env', `${ROOT}/.env`],
    ['config/../private', `${ROOT}/private`],
  ])('sandbox_hide entry %s hides %s', (entry, path) => {
    expect(buildSandboxPolicy(settings({ hide: [entry] }), ROOT).hidden).toContain(path);
  });

  it('never hides a place that holds the root', () => {
    const root = '/home/u/.config/cadre/work';
    expect(buildSandboxPolicy(settings({ hide: ['~'] }), root).hidden).not.toContain('/home/u/.config/cadre');
    expect(buildSandboxPolicy(settings({ hide: ['~'] }), root).hidden).not.toContain(HOME);
  });

  it('hides the runtime directory where agent sockets live', () => {
    expect(buildSandboxPolicy(settings({ runtimeDir: '/run/user/1000' }), ROOT).hidden).toContain(
      '/run/user/1000',
    );
  });

  it('under --safety read-only writes nothing and has no network, whatever the network setting', () => {
    const policy = buildSandboxPolicy(settings({ readOnly: true, network: true }), ROOT, {
      gitStores: [`${ROOT}/.git`],
    });
    expect(policy).toMatchObject({ writable: [], createMissing: [], network: false, privateTmp: true });
    expect(policy.readOnly).toEqual([ROOT, `${ROOT}/.git`]);
  });

  it('turns the network off when the settings say so', () => {
    expect(buildSandboxPolicy(settings({ network: false }), ROOT).network).toBe(false);
  });

  it('roots a writer at its worktree with the shared git store writable and its hooks and config read-only', () => {
    const project = buildSandboxPolicy(settings(), ROOT, { gitStores: [`${ROOT}/.git`] });
    const writer = buildSandboxPolicy(settings(), '/work/proj-task', { gitStores: [`${ROOT}/.git`] });
    expect(writer.root).toBe('/work/proj-task');
    expect(writer.writable.slice(0, 2)).toEqual(['/work/proj-task', `${ROOT}/.git`]);
    expect(writer.writable).not.toContain(ROOT);
    expect(writer.readOnly).toEqual(project.readOnly);
    expect(writer.hidden).toEqual(project.hidden);
  });

  it('adds extra writable and read-only places', () => {
    const policy = buildSandboxPolicy(settings(), ROOT, { writable: ['/data'], readOnly: ['/data/locked'] });
    expect(policy.writable).toContain('/data');
    expect(policy.readOnly).toContain('/data/locked');
  });
});

describe('the environment scrub', () => {
  const env = buildSandboxPolicy(
    settings({ keyEnvNames: ['MY_LLM'], envAllow: ['PUBLIC_*_TOKEN'] }),
    ROOT,
  ).env;

  it.each([
    'ANTHROPIC_API_KEY',
    'OPENAI_API_KEY',
    'GITHUB_TOKEN',
    'NPM_TOKEN',
    'AWS_SESSION_TOKEN',
    'AWS_SECRET_ACCESS_KEY',
    'AWS_ACCESS_KEY_ID',
    'STRIPE_SECRET',
    'DB_PASSWORD',
    'PGPASSWORD',
    'mysql_password_file',
    'GOOGLE_APPLICATION_CREDENTIALS',
    'SSH_AUTH_SOCK',
    'MY_LLM',
  ])('removes %s', (name) => {
    expect(isScrubbed(name, env)).toBe(true);
  });

  it.each(['PATH', 'HOME', 'LANG', 'TOKENIZERS_PARALLELISM', 'NODE_ENV', 'PUBLIC_CI_TOKEN'])(
    'keeps %s',
    (name) => {
      expect(isScrubbed(name, env)).toBe(false);
    },
  );

  it('returns the environment without the secrets', () => {
    expect(scrubEnv({ PATH: '/bin', X_API_KEY: 'k', EMPTY: undefined }, env)).toEqual({ PATH: '/bin' });
  });
});
