import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { permissionLayers } from '../../src/agent/gate-options.js';
import type { Config } from '../../src/config/schema.js';
import { createPermissionGate } from '../../src/permission/gate.js';
import { loadProfileFile } from '../../src/profile/file-source.js';
import { resolveSubagentModel } from '../../src/profile/subagent-model.js';
import { subagentToolNames } from '../../src/subagent/tiers.js';
import { builtinTools } from '../../src/tool/registry.js';
import { REPO_ROOT } from '../support/cli.js';

/** 150 published Claude Code agent files (shared/corpora, outside the repo; see its SOURCES.md). */
const CORPUS = join(REPO_ROOT, '..', 'shared', 'corpora', 'claude-agents');

function markdownUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return markdownUnder(path);
    return name.endsWith('.md') && name !== 'SOURCES.md' ? [path] : [];
  });
}

/** What the author wrote on a top-level frontmatter line, read independently of cadre's parsers. */
function authored(text: string, key: string): string | undefined {
  const front = /^\s*---\r?\n([\s\S]*?)\r?\n\s*---/.exec(text)?.[1] ?? '';
  const line = front
    .split(/\r?\n/)
    .map((l) => l.trim())
    .find((l) => l.startsWith(`${key}:`));
  return line?.slice(key.length + 1).trim();
}

const WRITING_NAMES = /\b(Write|Edit|MultiEdit|Bash|NotebookEdit)\b/;
const files = markdownUnder(CORPUS);

describe.runIf(files.length > 0)('the published Claude Code agent corpus', () => {
  it('has all 150 files', () => {
    expect(files).toHaveLength(150);
  });

  it.each(files.map((f) => [f.slice(CORPUS.length + 1), f]))('%s loads with its tools', (_name, path) => {
    const text = readFileSync(path, 'utf8');
    const { profile } = loadProfileFile(path, 'claude', 'name-or-stem');
    expect(profile).toBeDefined();
    if (!profile) return;
    // Never a body-only profile carrying the frontmatter in its prompt.
    expect(profile.prompt).not.toMatch(/^\s*---/);
    expect(profile.prompt).not.toMatch(new RegExp(`^\\s*name:\\s*${profile.name}\\s*$`, 'm'));
    expect(profile.description).toBeTruthy();
    const tools = authored(text, 'tools');
    const universe = subagentToolNames({
      tier: profile.tier,
      allow: profile.subagentAllow,
      deny: profile.subagentDeny,
    });
    // What the child is offered: the tier's tools through its own gate (the profile's allow and deny lists).
    const gate = createPermissionGate({
      root: REPO_ROOT,
      safety: 'full',
      yes: false,
      ...permissionLayers(
        {
          config: {},
          files: [],
          globalDir: '/g',
          projectRoot: REPO_ROOT,
          projectTrusted: false,
          untrusted: [],
        },
        profile,
      ),
    });
    const names = gate.visibleTools(builtinTools(REPO_ROOT).filter((t) => universe.includes(t.name)));
    if (tools === '[]') {
      expect(names).toEqual([]);
      return;
    }
    if (tools === undefined) {
      expect(profile.tier).toBe('readwrite');
      expect(names).toContain('bash');
    } else {
      expect(profile.tier).toBe(WRITING_NAMES.test(tools) ? 'readwrite' : 'readonly');
      expect(profile.allowTools?.length).toBeGreaterThan(0);
      if (/\bRead\b/.test(tools)) expect(profile.allowTools).toContain('read');
      if (/\bBash\b/.test(tools)) expect(profile.allowTools).toContain('bash');
      else expect(profile.allowTools).not.toContain('bash');
    }
    expect([...names, ...(profile.mcp === 'all' ? ['all'] : (profile.mcp ?? []))].length).toBeGreaterThan(0);
  });

  it('resolves every model its authors wrote: families to the Anthropic provider, inherit to the parent, ids verbatim', () => {
    const config: Config = {
      provider: 'main',
      providers: {
        main: { type: 'openai-compatible', base_url: 'http://127.0.0.1:9/v1', model: 'local' },
        claude: { type: 'anthropic', model: 'claude-sonnet-4-5' },
      },
    };
    const seen = new Set<string>();
    for (const path of files) {
      const written = authored(readFileSync(path, 'utf8'), 'model');
      const { profile } = loadProfileFile(path, 'claude', 'name-or-stem');
      const choice = resolveSubagentModel({ profile, config });
      if (!choice.ok) throw new Error(`${path}: ${choice.error}`);
      if (written === undefined || written === 'inherit') {
        expect(choice.model).toBeNull();
        continue;
      }
      seen.add(written);
      const family = /^(opus|sonnet|haiku)$/.exec(written)?.[1];
      if (family) {
        expect(choice.model).toEqual({
          kind: 'alias',
          alias: 'claude',
          provider: { type: 'anthropic', model: `claude-${family}-4-5` },
        });
      } else {
        expect(choice.model).toEqual({ kind: 'literal', model: written });
      }
    }
    expect([...seen].sort()).toEqual(['claude-sonnet-4-20250514', 'fable', 'haiku', 'opus', 'sonnet']);
  });
});
