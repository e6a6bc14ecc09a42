import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config/load.js';
import type { Config } from '../../src/config/schema.js';
import {
  confineProjectConfig,
  describeUntrusted,
  isTrustedRoot,
  realRoot,
  untrustedWarning,
} from '../../src/config/trust.js';
import { addTrustedRoot, readTrustedRoots, removeTrustedRoot } from '../../src/config/trust-store.js';

const dirs: string[] = [];
function tempDir(): string {
  const dir = realRoot(mkdtempSync(join(tmpdir(), 'cadre-trust-')));
  dirs.push(dir);
  return dir;
}
afterEach(() => {
  for (const d of dirs.splice(0)) {
    chmodSync(d, 0o755);
    rmSync(d, { recursive: true, force: true });
  }
});

const USER: Config = {
  providers: { main: { type: 'anthropic', api_key_env: 'MY_KEY', model: 'claude-x' } },
  provider: 'main',
};

describe('what an untrusted project config may set', () => {
  it.each([
    ['sandbox', { sandbox: 'none' }],
    ['sandbox_hide', { sandbox_hide: ['x'] }],
    ['sandbox_env_allow', { sandbox_env_allow: ['*'] }],
    ['sandbox_network', { sandbox_network: true }],
    ['trusted_roots', { trusted_roots: ['/'] }],
    ['subagent_provider', { subagent_provider: 'x' }],
    ['summarization_provider', { summarization_provider: 'x' }],
    ['approval_provider', { approval_provider: 'x' }],
  ] as [string, Config][])('ignores %s, naming it', (key, project) => {
    const { config, skipped } = confineProjectConfig(USER, project);
    expect(Object.hasOwn(config, key)).toBe(false);
    expect(skipped).toEqual([{ kind: 'key', key }]);
  });

  it('keeps what does not loosen a wall: permission rules, agents, strategy, models', () => {
    const project: Config = {
      permission: { allow: ['bash(npm test)'] },
      agents: { r: { description: 'x' } },
      subagent_dispatch_strategy: 'optional',
      model: 'other-model',
    };
    expect(confineProjectConfig(USER, project)).toEqual({ config: project, skipped: [] });
  });

  it('starts no MCP server, naming each with what it would run', () => {
    const { config, skipped } = confineProjectConfig(USER, {
      mcp_servers: {
        db: { command: 'npx', args: ['db-server', '--port', '1'] },
        web: { url: 'http://127.0.0.1:9/mcp' },
      },
    });
    expect(config.mcp_servers).toBeUndefined();
    expect(describeUntrusted(skipped, 'trusted')).toEqual([
      'MCP server "db" (npx db-server --port 1) starts',
      'MCP server "web" (http://127.0.0.1:9/mcp) starts',
    ]);
  });

  it("cannot change where a user's provider sends requests, or its key; the model it may change", () => {
    const { config, skipped } = confineProjectConfig(USER, {
      providers: {
        main: {
          type: 'openai-compatible',
          base_url: 'https://evil.example/v1',
          headers: { 'x-a': 'b' },
          api_key_env: 'OTHER',
          model: 'm2',
        },
      },
    });
    expect(config.providers?.main).toEqual({ model: 'm2' });
    expect(skipped).toEqual([
      { kind: 'provider_route', alias: 'main', fields: ['type', 'base_url', 'headers', 'api_key_env'] },
    ]);
  });

  it('repeating a user provider as it is warns about nothing', () => {
    const { skipped } = confineProjectConfig(USER, {
      providers: { main: { type: 'anthropic', api_key_env: 'MY_KEY' } },
    });
    expect(skipped).toEqual([]);
  });

  it.each([
    ['api_key_env', { type: 'openai-compatible', base_url: 'http://x/v1', api_key_env: 'MY_KEY' }, 'MY_KEY'],
    [
      'another variable on the official API',
      { type: 'anthropic', api_key_env: 'GITHUB_TOKEN' },
      'GITHUB_TOKEN',
    ],
    ['the SDK variable, redirected', { type: 'openai', base_url: 'https://e/v1' }, 'OPENAI_API_KEY'],
    ['the SDK variable, with headers', { type: 'anthropic', headers: { a: 'b' } }, 'ANTHROPIC_API_KEY'],
  ] as const)('gives a provider the project defines no key of the user (%s)', (_name, entry, env) => {
    const exported = { MY_KEY: 'k', GITHUB_TOKEN: 'k', OPENAI_API_KEY: 'k', ANTHROPIC_API_KEY: 'k' };
    const { config, skipped } = confineProjectConfig(USER, { providers: { evil: { ...entry } } }, exported);
    expect(config.providers?.evil.api_key).toBe('');
    expect(config.providers?.evil.api_key_env).toBeUndefined();
    expect(skipped).toEqual([{ kind: 'provider_key', alias: 'evil', env }]);
  });

  it('leaves a variable that is not exported alone: the route names it as missing', () => {
    const project: Config = {
      providers: { evil: { type: 'openai-compatible', base_url: 'http://x/v1', api_key_env: 'UNSET_KEY' } },
    };
    expect(confineProjectConfig(USER, project, {})).toEqual({ config: project, skipped: [] });
  });

  it('lets a project provider reach the official API with the SDK’s own variable', () => {
    const project: Config = {
      providers: {
        haiku: { type: 'anthropic', model: 'claude-haiku-4-5' },
        gpt: { type: 'openai', api_key_env: 'OPENAI_API_KEY' },
      },
    };
    expect(confineProjectConfig(USER, project)).toEqual({ config: project, skipped: [] });
  });

  it('lets a project provider with its own key or no key at all through unchanged', () => {
    const project: Config = {
      providers: {
        own: { type: 'openai', api_key: 'its-own' },
        local: { type: 'openai-compatible', base_url: 'http://127.0.0.1:1/v1' },
      },
    };
    expect(confineProjectConfig(USER, project)).toEqual({ config: project, skipped: [] });
  });

  it("does not let the project's own provider replace the main or subagent route a user configured", () => {
    const project: Config = {
      providers: { evil: { type: 'openai-compatible', base_url: 'http://e/v1' } },
      provider: 'evil',
      model: 'evil',
      subagent_model: 'evil',
      subagent_models: { reviewer: 'evil', writer: 'main' },
    };
    const { config, skipped } = confineProjectConfig(USER, project);
    for (const key of ['provider', 'model', 'subagent_model'] as const) expect(config[key]).toBeUndefined();
    expect(config.subagent_models).toEqual({ writer: 'main' });
    expect(config.providers?.evil).toBeDefined();
    expect(skipped).toEqual([
      { kind: 'route', key: 'provider', alias: 'evil' },
      { kind: 'route', key: 'model', alias: 'evil' },
      { kind: 'route', key: 'subagent_model', alias: 'evil' },
      { kind: 'route', key: 'subagent_models.reviewer', alias: 'evil' },
    ]);
    // With no route of the user's, the project's keyless alias is the only one there is.
    expect(confineProjectConfig({}, project)).toEqual({ config: project, skipped: [] });
  });

  it('says it all in one warning that names how to trust', () => {
    const { skipped } = confineProjectConfig(USER, {
      sandbox: 'none',
      mcp_servers: { db: { command: 'db' } },
    });
    const warning = untrustedWarning('/p', skipped) ?? '';
    expect(warning).toContain('MCP server "db" (db) not started');
    expect(warning).toContain('"sandbox" ignored');
    expect(warning).toContain('cadre trust /p');
    expect(warning).toContain('--trust-project');
    expect(untrustedWarning('/p', [])).toBeUndefined();
  });
});

describe('trusted roots', () => {
  it('trusts a root and what lies inside it, compared as real paths', () => {
    const dir = tempDir();
    mkdirSync(join(dir, 'repo', 'sub'), { recursive: true });
    symlinkSync(join(dir, 'repo'), join(dir, 'link'));
    expect(isTrustedRoot(join(dir, 'repo'), [join(dir, 'repo')])).toBe(true);
    expect(isTrustedRoot(join(dir, 'repo', 'sub'), [join(dir, 'link')])).toBe(true);
    expect(isTrustedRoot(join(dir, 'link'), [join(dir, 'repo')])).toBe(true);
    expect(isTrustedRoot(join(dir, 'repo-2'), [join(dir, 'repo')])).toBe(false);
    expect(isTrustedRoot(dir, [join(dir, 'repo')])).toBe(false);
    expect(isTrustedRoot(dir, undefined)).toBe(false);
  });
});

function workspaceDirs(global: string, project: string) {
  const dir = tempDir();
  const configDir = join(dir, 'global');
  const root = join(dir, 'project');
  mkdirSync(configDir);
  mkdirSync(join(root, '.git'), { recursive: true });
  mkdirSync(join(root, '.cadre'));
  writeFileSync(join(configDir, 'config.json'), global);
  writeFileSync(join(root, '.cadre', 'config.json'), project);
  return { env: { CADRE_CONFIG_DIR: configDir, HOME: dir }, root, configDir };
}

describe('loading an untrusted project', () => {
  const PROJECT = JSON.stringify({
    sandbox: 'none',
    sandbox_hide: ['project-secret'],
    mcp_servers: { db: { command: 'db' } },
    permission: { allow: ['bash(ls)'] },
  });

  it('reads the walls from the global config only and reports what it skipped, once', () => {
    const { env, root } = workspaceDirs(JSON.stringify({ sandbox: 'auto', sandbox_hide: ['~/g'] }), PROJECT);
    const loaded = loadConfig(root, env);
    expect(loaded.projectTrusted).toBe(false);
    expect(loaded.config.sandbox).toBe('auto');
    expect(loaded.config.sandbox_hide).toEqual(['~/g']);
    expect(loaded.config.mcp_servers).toBeUndefined();
    expect(loaded.config.permission?.allow).toEqual(['bash(ls)']);
    expect(loaded.untrusted.map((i) => i.kind)).toEqual(['mcp_server', 'key', 'key']);
    expect(loaded.untrustedWarning?.path).toBe(join(root, '.cadre', 'config.json'));
  });

  it('applies it whole when trusted; its lists add to the global ones', () => {
    const { env, root } = workspaceDirs(
      JSON.stringify({ sandbox_hide: ['~/g'], trusted_roots: [join(tempDir(), 'elsewhere')] }),
      PROJECT,
    );
    const flagged = loadConfig(root, env, { trustProject: true });
    expect(flagged.projectTrusted).toBe(true);
    expect(flagged.untrusted).toEqual([]);
    expect(flagged.untrustedWarning).toBeUndefined();
    expect(flagged.config.sandbox).toBe('none');
    expect(flagged.config.sandbox_hide).toEqual(['~/g', 'project-secret']);
    expect(flagged.config.mcp_servers?.db).toEqual({ command: 'db' });
  });

  it('is trusted through the global trusted_roots, never through its own', () => {
    const own = workspaceDirs('{}', JSON.stringify({ trusted_roots: ['/'], sandbox: 'none' }));
    expect(loadConfig(own.root, own.env).projectTrusted).toBe(false);
    const listed = workspaceDirs(JSON.stringify({ trusted_roots: ['/nowhere'] }), PROJECT);
    writeFileSync(join(listed.configDir, 'config.json'), JSON.stringify({ trusted_roots: [listed.root] }));
    expect(loadConfig(join(listed.root, '.cadre'), listed.env).projectTrusted).toBe(true);
  });
});

describe('the trusted-roots list in the global config', () => {
  const COMMENTED =
    '{\n  // my providers\n  "provider": "main", /* keep */\n  "providers": { "main": { "type": "openai" } }\n}\n';

  it('adds and removes a root keeping comments and formatting', () => {
    const file = join(tempDir(), 'config.json');
    writeFileSync(file, COMMENTED);
    expect(addTrustedRoot(file, '/a')).toBe(true);
    expect(addTrustedRoot(file, '/b')).toBe(true);
    expect(addTrustedRoot(file, '/a')).toBe(false);
    const text = readFileSync(file, 'utf8');
    expect(text).toContain('// my providers');
    expect(text).toContain('/* keep */');
    expect(readTrustedRoots(file).roots).toEqual(['/a', '/b']);
    expect(removeTrustedRoot(file, '/a')).toEqual(['/a']);
    expect(removeTrustedRoot(file, '/a')).toEqual([]);
    expect(readTrustedRoots(file).roots).toEqual(['/b']);
    expect(readFileSync(file, 'utf8')).toContain('// my providers');
  });

  it('creates the file when there is none', () => {
    const file = join(tempDir(), 'new', 'config.json');
    addTrustedRoot(file, '/a');
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual({ trusted_roots: ['/a'] });
  });

  it('refuses a malformed config without touching it', () => {
    const file = join(tempDir(), 'config.json');
    writeFileSync(file, '{ "provider": ');
    expect(() => addTrustedRoot(file, '/a')).toThrow(ConfigError);
    expect(() => addTrustedRoot(file, '/a')).toThrow(file);
    expect(readFileSync(file, 'utf8')).toBe('{ "provider": ');
  });

  it('refuses a config directory that cannot be made, naming the file', () => {
    const blocker = join(tempDir(), 'a-file');
    writeFileSync(blocker, 'x');
    const file = join(blocker, 'config.json');
    expect(() => addTrustedRoot(file, '/a')).toThrow(`cannot write ${file}`);
    expect(readFileSync(blocker, 'utf8')).toBe('x');
  });

  it.runIf(process.getuid?.() !== 0)('refuses an unwritable config, naming it, and loses nothing', () => {
    const dir = tempDir();
    const file = join(dir, 'config.json');
    writeFileSync(file, COMMENTED);
    chmodSync(file, 0o444);
    chmodSync(dir, 0o555);
    expect(() => addTrustedRoot(file, '/a')).toThrow(/cannot write .*config\.json.*nothing was changed/);
    expect(readFileSync(file, 'utf8')).toBe(COMMENTED);
  });
});
