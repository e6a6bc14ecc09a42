import stringWidth from 'string-width';
import { describe, expect, it } from 'vitest';
import {
  compactCount,
  formatCost,
  renderStatusLine,
  type StatusInfo,
} from '../../../src/tui/render/status-line.js';
import {
  formatElapsed,
  type PanelSubagent,
  renderSubagentPanel,
} from '../../../src/tui/render/subagent-panel.js';
import { createTheme, PLAIN_THEME } from '../../../src/tui/theme.js';

const INFO: StatusInfo = {
  model: {
    label: 'sonnet (anthropic:claude-sonnet-4-5)',
    model: 'claude-sonnet-4-5',
    contextWindow: 200_000,
  },
  profile: 'reviewer',
  prompt: 'plan',
  planMode: false,
  safety: 'full',
  effort: 'high',
  contextTokens: 12_345,
  costUsd: 0.0421,
};

describe('status line', () => {
  it('shows model, profile, prompt, safety, context and cost', () => {
    expect(renderStatusLine(INFO, 140, PLAIN_THEME)).toBe(
      'sonnet (anthropic:claude-sonnet-4-5) (high) | agent reviewer | prompt plan | safety full | ctx 12k/200k (6%) | $0.04',
    );
  });

  it('says default when no profile is active', () => {
    expect(renderStatusLine({ ...INFO, profile: null, prompt: null }, 120, PLAIN_THEME)).toContain(
      'agent default',
    );
  });

  it('shortens, then drops the least important parts, to fit a narrow terminal', () => {
    expect(renderStatusLine(INFO, 100, PLAIN_THEME)).toBe(
      'claude-sonnet-4-5 (high) | agent reviewer | prompt plan | safety full | ctx 12k/200k (6%) | $0.04',
    );
    expect(renderStatusLine(INFO, 80, PLAIN_THEME)).toBe(
      'claude-sonnet-4-5 | agent reviewer | prompt plan | safety full | ctx 6% | $0.04',
    );
    expect(renderStatusLine(INFO, 60, PLAIN_THEME)).toBe(
      'claude-sonnet-4-5 | agent reviewer | plan | full | ctx 6%',
    );
    const at30 = renderStatusLine(INFO, 30, PLAIN_THEME);
    expect(stringWidth(at30)).toBeLessThanOrEqual(30);
    expect(at30).toContain('claude-sonnet-4-5');
    expect(at30).toContain('reviewer');
  });

  it('stays within the width with colour too', () => {
    const colour = createTheme({ colorLevel: 3, unicode: true });
    for (const width of [20, 40, 80])
      expect(stringWidth(renderStatusLine(INFO, width, colour))).toBeLessThanOrEqual(width);
  });

  it.each([
    [999, '999'],
    [1234, '1.2k'],
    [200_000, '200k'],
    [1_500_000, '1.5M'],
  ])('counts %d as %s', (n, text) => expect(compactCount(n)).toBe(text));

  it.each([
    [null, '$?'],
    [0, '$0'],
    [0.0012, '$0.0012'],
    [1.5, '$1.50'],
  ])('prints cost %s as %s', (cost, text) => expect(formatCost(cost)).toBe(text));
});

function task(overrides: Partial<PanelSubagent>): PanelSubagent {
  return {
    id: 'a1b2c3d4e5',
    label: 'main > writer',
    profile: 'writer',
    description: 'fix it',
    background: false,
    state: 'running',
    step: 'edit src/a.ts',
    startedAt: 0,
    inputTokens: 1000,
    outputTokens: 234,
    ...overrides,
  };
}

describe('subagent panel', () => {
  it('shows a running subagent with its profile, step, elapsed time and tokens', () => {
    expect(renderSubagentPanel([task({})], [], 12_000, 80, PLAIN_THEME)).toEqual([
      '~ a1b2c3d4 writer | edit src/a.ts | 12s | 1.2k tok',
    ]);
  });

  it('shows why a queued subagent waits', () => {
    const queued = task({
      state: 'queued',
      step: null,
      queue: { position: 2, cause: 'slots' },
      inputTokens: 0,
      outputTokens: 0,
    });
    expect(renderSubagentPanel([queued], [], 3000, 80, PLAIN_THEME)).toEqual([
      '. a1b2c3d4 writer | queued #2, waiting for a subagent slot | 3s',
    ]);
  });

  it('leaves out finished subagents', () => {
    expect(renderSubagentPanel([task({ state: 'completed' })], [], 0, 80, PLAIN_THEME)).toEqual([]);
  });

  it('shows a batch in flight with its progress', () => {
    const rows = renderSubagentPanel(
      [task({ id: 't1', state: 'completed' }), task({ id: 't2' })],
      [{ id: 'batch-1', status: 'running', taskIds: ['t1', 't2'], startedAt: 0 }],
      65_000,
      80,
      PLAIN_THEME,
    );
    expect(rows[0]).toBe('~ batch batch-1 running | 1/2 done | 1m05s');
    expect(rows).toHaveLength(2);
  });

  it('shows a fleet in flight, and an item waiting for its dependencies without a queue position', () => {
    const rows = renderSubagentPanel(
      [
        task({ id: 't1' }),
        task({ id: 't2', state: 'queued', queue: { position: 0, cause: 'dependencies: lint' } }),
      ],
      [{ id: 'fleet-1', kind: 'fleet', status: 'open', taskIds: ['t1', 't2'], startedAt: 0 }],
      1000,
      80,
      PLAIN_THEME,
    );
    expect(rows[0]).toBe('~ fleet fleet-1 open | 0/2 done | 1s');
    expect(rows[2]).toContain('queued, waiting: dependencies: lint');
  });

  it('counts the rows it has no room for', () => {
    const many = Array.from({ length: 9 }, (_, i) => task({ id: `task${i}` }));
    const rows = renderSubagentPanel(many, [], 0, 80, PLAIN_THEME, 4);
    expect(rows).toHaveLength(4);
    expect(rows[3]).toBe('... 6 more (/tasks lists them)');
  });

  it('never prints a row wider than the terminal', () => {
    const long = task({ step: `bash ${'x'.repeat(300)}` });
    for (const row of renderSubagentPanel([long], [], 0, 40, createTheme({ colorLevel: 3, unicode: true }))) {
      expect(stringWidth(row)).toBeLessThanOrEqual(40);
    }
  });

  it.each([
    [5_000, '5s'],
    [75_000, '1m15s'],
    [3_700_000, '1h01m'],
  ])('prints %d ms as %s', (ms, text) => expect(formatElapsed(ms)).toBe(text));
});
