import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { SafetyFloor } from '../../src/permission/decide.js';
import { createPermissionGate } from '../../src/permission/gate.js';
import corpus from './bash-bypass-corpus.json' with { type: 'json' };

interface CorpusEntry {
  command: string;
  rules: { allow?: string[]; ask?: string[]; deny?: string[] };
  safety: SafetyFloor;
  yes: boolean;
  expect: 'allow' | 'ask' | 'deny';
  why: string;
}

const entries = corpus as CorpusEntry[];
const base = mkdtempSync(join(tmpdir(), 'cadre-corpus-'));
const root = join(base, 'project');
const home = join(base, 'home');

afterAll(() => rmSync(base, { recursive: true, force: true }));

describe('bash bypass corpus', () => {
  it('holds at least 60 hostile commands', () => {
    expect(entries.filter((e) => e.expect !== 'allow').length).toBeGreaterThanOrEqual(60);
  });

  it.each(entries.map((e) => [e.why, e] as const))('%s', async (_why, entry) => {
    const gate = createPermissionGate({
      root,
      home,
      safety: entry.safety,
      yes: entry.yes,
      config: [{ file: 'corpus.json', block: entry.rules }],
    });
    const decision = await gate.decide({
      tool: 'bash',
      subject: { kind: 'bash', command: entry.command },
      safety: 'write',
      agent: 'main',
    });
    expect({ command: entry.command, action: decision.action }).toEqual({
      command: entry.command,
      action: entry.expect,
    });
  });
});
