import { describe, expect, it } from 'vitest';
import { analyzeBash } from '../../src/permission/bash-analysis.js';
import {
  type AnalysedCall,
  decidePermission,
  type Policy,
  type SafetyFloor,
} from '../../src/permission/decide.js';
import { builtInLayer } from '../../src/permission/gate.js';
import { parseRule, type Rule } from '../../src/permission/rules.js';
import type { PermissionAction } from '../../src/permission/types.js';
import { pick, prng } from '../support/prng.js';

const root = '/p';
const home = '/h';
const COMMANDS = [
  'ls -la',
  'git diff',
  'git push origin',
  'rm -rf x',
  'cat a > out',
  'cat a > /etc/x',
  'echo $(rm x)',
  'curl x | sh',
  'sudo ls',
  'eval ls',
];
const PATTERNS = [
  'bash',
  'bash(*)',
  'bash(ls *)',
  'bash(git *)',
  'bash(rm *)',
  'bash(cat *)',
  'write(/etc/**)',
  'write',
  'read',
  'edit(src/**)',
  '*',
  'read(*.env)',
];
const FLOORS: SafetyFloor[] = ['read-only', 'non-destructive', 'full'];
const ACTIONS: PermissionAction[] = ['allow', 'ask', 'deny'];

function randomRules(random: () => number): Rule[] {
  const count = Math.floor(random() * 6);
  return Array.from({ length: count }, () =>
    parseRule(pick(random, PATTERNS), 'fuzz', pick(random, ACTIONS)),
  );
}

describe('permission properties (seeded fuzz)', async () => {
  const analysed = new Map<string, AnalysedCall>();
  for (const command of COMMANDS) {
    const bash = await analyzeBash(command, root, home);
    analysed.set(command, {
      call: { tool: 'bash', subject: { kind: 'bash', command }, safety: 'write', agent: 'main' },
      bash,
    });
  }
  const pathCalls: AnalysedCall[] = ['/p/src/a.ts', '/p/.env', '/etc/passwd'].flatMap((path) =>
    (['read', 'edit'] as const).map((tool) => ({
      call: {
        tool,
        subject: { kind: 'path', paths: [path] },
        safety: tool === 'read' ? 'read' : 'write',
        agent: 'main',
      },
    })),
  );
  const calls = [...analysed.values(), ...pathCalls];

  function randomPolicy(random: () => number): Policy {
    return {
      root,
      home,
      floor: pick(random, FLOORS),
      hardDenies: [],
      layers: [
        builtInLayer(),
        { name: 'config', label: 'config', rules: randomRules(random) },
        { name: 'profile', label: 'profile p', rules: randomRules(random) },
        { name: 'operator', label: 'operator', rules: randomRules(random) },
      ],
      ceiling: { floor: 'full', denies: [] },
      yes: random() < 0.5,
      headless: random() < 0.3,
    };
  }

  it('never allows a call the floor refuses, whatever the rules and --yes', () => {
    // The oracle is SPEC 6.3 and 6.5 written out, never the engine: each call's class, each floor's reach.
    const CLASS: Record<string, 'read' | 'write' | 'destructive'> = {
      'ls -la': 'read',
      'git diff': 'read',
      'git push origin': 'destructive',
      'rm -rf x': 'destructive',
      'cat a > out': 'write',
      'cat a > /etc/x': 'destructive',
      'echo $(rm x)': 'destructive',
      'curl x | sh': 'destructive',
      'sudo ls': 'destructive',
      'eval ls': 'destructive',
    };
    const ADMITS: Record<SafetyFloor, readonly string[]> = {
      'read-only': ['read'],
      'non-destructive': ['read', 'write'],
      full: ['read', 'write', 'destructive'],
    };
    const classOf = ({ call }: AnalysedCall) =>
      call.subject.kind === 'bash' ? CLASS[call.subject.command] : call.tool === 'read' ? 'read' : 'write';
    const random = prng(42);
    let refused = 0;
    for (let i = 0; i < 3000; i++) {
      const policy = randomPolicy(random);
      const call = pick(random, calls);
      const decision = decidePermission(policy, call);
      if (ADMITS[policy.floor].includes(classOf(call))) continue;
      refused++;
      expect(decision.action).toBe('deny');
      expect(decision.layer).toBe('floor');
    }
    // The property was exercised, not vacuously true.
    expect(refused).toBeGreaterThan(500);
  });

  it('never turns a deny into an allow by appending a deny rule', () => {
    const random = prng(7);
    for (let i = 0; i < 3000; i++) {
      const policy = randomPolicy(random);
      const call = pick(random, calls);
      const before = decidePermission(policy, call);
      const extra = parseRule(pick(random, PATTERNS), 'appended', 'deny');
      const layers = policy.layers.map((l, index) =>
        index === policy.layers.length - 1 ? { ...l, rules: [...l.rules, extra] } : l,
      );
      const after = decidePermission({ ...policy, layers }, call);
      if (before.action === 'deny') expect(after.action).toBe('deny');
      if (before.action !== 'allow') expect(after.action).not.toBe('allow');
    }
  });

  it('never lets a child allow what an inherited deny forbids', () => {
    const random = prng(99);
    for (let i = 0; i < 2000; i++) {
      const policy = randomPolicy(random);
      const call = pick(random, calls);
      const deny = parseRule(pick(random, PATTERNS), 'ops', 'deny');
      const parent = decidePermission(
        { ...policy, layers: [{ name: 'operator', label: 'op', rules: [deny] }] },
        call,
      );
      const parentDenies = parent.action === 'deny' && parent.layer === 'operator';
      const child = decidePermission({ ...policy, ceiling: { floor: 'full', denies: [deny] } }, call);
      if (parentDenies) expect(child.action).toBe('deny');
    }
  });
});
