import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  ConfigError,
  deepMerge,
  findProjectRoot,
  loadConfig,
  parseConfigFile,
} from '../../src/config/load.js';

const dirs: string[] = [];
function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'cadre-config-'));
  dirs.push(dir);
  return dir;
}
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

describe('parseConfigFile', () => {
  it('accepts JSON with comments and trailing commas', () => {
    const config = parseConfigFile(
      'c.json',
      '{\n // main\n "provider": "local", /* x */\n "max_subagent_concurrency": 4,\n}',
    );
    expect(config.provider).toBe('local');
    expect(config.max_subagent_concurrency).toBe(4);
  });

  it.each([
    ['{"max_subagent_concurrency": 99}', 'c.json:1', 'max_subagent_concurrency', '<=32'],
    [
      '{\n  "providers": {\n    "x": {"type": "bogus"}\n  }\n}',
      'c.json:3',
      'providers.x.type',
      'expected one of',
    ],
    ['{\n "sandbox": "auto",\n "frobnicate": 1\n}', 'c.json:3', 'frobnicate', 'unknown key "frobnicate"'],
    ['{"permission": {"allow": "bash"}}', 'c.json:1', 'permission.allow', 'expected array'],
    ['{"providers": {"s": {"type": "scripted"}}}', 'c.json:1', 'providers.s.script', 'needs "script"'],
    [
      '{\n "providers": {\n  "o": {"type": "openai-compatible"}\n }\n}',
      'c.json:3',
      'providers.o.base_url',
      'needs "base_url"',
    ],
  ])('rejects %s naming file, line, JSON path and expectation', (text, where, path, expectation) => {
    let message = '';
    try {
      parseConfigFile('c.json', text);
    } catch (error) {
      expect(error).toBeInstanceOf(ConfigError);
      message = (error as Error).message;
    }
    expect(message).toContain(where);
    expect(message).toContain(path);
    expect(message).toContain(expectation);
  });

  it('rejects malformed JSON with its line', () => {
    expect(() => parseConfigFile('c.json', '{\n "provider": \n}')).toThrow(/c\.json:3: invalid JSON/);
  });

  it('rejects a top-level array', () => {
    expect(() => parseConfigFile('c.json', '[]')).toThrow(/expected a JSON object/);
  });
});

describe('loadConfig', () => {
  it('deep-merges the project file over the global one, maps key by key', () => {
    const global = tempDir();
    const project = tempDir();
    mkdirSync(join(project, '.git'));
    mkdirSync(join(project, '.cadre'));
    writeFileSync(
      join(global, 'config.json'),
      JSON.stringify({
        provider: 'a',
        providers: { a: { type: 'openai', model: 'm1' }, b: { type: 'anthropic' } },
        permission: { deny: ['bash'] },
      }),
    );
    writeFileSync(
      join(project, '.cadre', 'config.json'),
      JSON.stringify({ providers: { a: { type: 'openai', model: 'm2' }, c: { type: 'openai' } } }),
    );
    const sub = join(project, 'src', 'deep');
    mkdirSync(sub, { recursive: true });
    const loaded = loadConfig(sub, { CADRE_CONFIG_DIR: global });
    expect(loaded.projectRoot).toBe(project);
    expect(loaded.config.provider).toBe('a');
    expect(Object.keys(loaded.config.providers ?? {}).sort()).toEqual(['a', 'b', 'c']);
    expect(loaded.config.providers?.a.model).toBe('m2');
    expect(loaded.config.permission?.deny).toEqual(['bash']);
    expect(loaded.files.map((f) => f.path)).toEqual([
      join(global, 'config.json'),
      join(project, '.cadre', 'config.json'),
    ]);
  });

  it('resolves a scripted provider script relative to its config file', () => {
    const global = tempDir();
    writeFileSync(
      join(global, 'config.json'),
      JSON.stringify({ providers: { s: { type: 'scripted', script: 's.json' } } }),
    );
    const loaded = loadConfig(tempDir(), { CADRE_CONFIG_DIR: global });
    expect(loaded.config.providers?.s.script).toBe(join(global, 's.json'));
  });

  it('falls back to the current directory when no ancestor has .git', () => {
    const dir = tempDir();
    expect(findProjectRoot(dir)).toBe(dir);
  });
});

describe('deepMerge', () => {
  it('replaces arrays and scalars, merges objects', () => {
    expect(deepMerge({ a: [1], b: { c: 1, d: 2 } }, { a: [2], b: { d: 3 } })).toEqual({
      a: [2],
      b: { c: 1, d: 3 },
    });
  });
});

describe('the shipped JSON Schema', () => {
  it('is exactly what the validating schema produces (run `npm run schema` after changing it)', async () => {
    const { readFileSync } = await import('node:fs');
    const { configJsonSchema } = await import('../../src/config/json-schema.js');
    const shipped = JSON.parse(
      readFileSync(new URL('../../schema/config.schema.json', import.meta.url), 'utf8'),
    );
    expect(shipped).toEqual(configJsonSchema());
  });

  it('describes every top-level key of SPEC 2.2', async () => {
    const { configJsonSchema } = await import('../../src/config/json-schema.js');
    const properties = Object.keys((configJsonSchema() as { properties: object }).properties);
    for (const key of [
      'providers',
      'provider',
      'agents',
      'permission',
      'mcp_servers',
      'max_subagent_concurrency',
      'sandbox',
    ]) {
      expect(properties).toContain(key);
    }
  });
});
