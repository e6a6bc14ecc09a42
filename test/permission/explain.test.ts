import { describe, expect, it } from 'vitest';
import { callFromSpec, explainJson, formatExplain, parseCallSpec } from '../../src/permission/explain.js';
import { createPermissionGate } from '../../src/permission/gate.js';

describe('parseCallSpec', () => {
  it.each([
    ['bash(git push origin main)', { tool: 'bash', input: { command: 'git push origin main' } }],
    ['read(src/a.ts)', { tool: 'read', input: { path: 'src/a.ts' } }],
    ['webfetch(https://example.com)', { tool: 'webfetch', input: { url: 'https://example.com' } }],
    ['task(reviewer)', { tool: 'task', input: { agent: 'reviewer' } }],
    ['repo_overview', { tool: 'repo_overview', input: {} }],
    ['bash(echo (a))', { tool: 'bash', input: { command: 'echo (a)' } }],
  ])('parses %s', (spec, expected) => {
    expect(parseCallSpec(spec)).toEqual(expected);
  });

  it('builds a call with the subject kind and declared class of the tool', () => {
    expect(callFromSpec('edit(src/a.ts)')).toEqual({
      tool: 'edit',
      subject: { kind: 'path', paths: ['src/a.ts'] },
      safety: 'write',
      agent: 'main',
    });
  });
});

describe('explain output', () => {
  const gate = createPermissionGate({
    root: '/nonexistent-project',
    home: '/nonexistent-home',
    safety: 'full',
    yes: false,
    operator: { file: 'ops.yaml', text: '# operator\ndeny:\n  - bash(git push *)\n' },
  });

  it('starts with exactly "decision: <action>" and lists every layer with rule and source', async () => {
    const text = formatExplain(await gate.decide(callFromSpec('bash(git push origin main)')));
    const lines = text.split('\n');
    expect(lines[0]).toBe('decision: deny');
    expect(text).toContain('rule: bash(git push *)');
    expect(text).toContain('source: ops.yaml:3');
    for (const layer of ['floor', 'hard-deny', 'built-in', 'operator', 'session'])
      expect(text).toContain(`[${layer}]`);
  });

  it('gives the JSON shape {decision, layer, rule, source, trace}', async () => {
    const json = explainJson(await gate.decide(callFromSpec('bash(ls)')));
    expect(json).toMatchObject({ decision: 'ask', layer: 'default', rule: null, source: 'built-in' });
    expect(json.trace.map((t) => t.layer)).toContain('operator');
  });
});
