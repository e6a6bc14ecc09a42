import { describe, expect, it } from 'vitest';
import type { BatchView, SubagentView } from '../../../src/controller/types.js';
import { graphsOf } from '../../../src/web/page/subagents/graph-of.js';

const task = (id: string, extra: Partial<SubagentView> = {}): SubagentView => ({
  id,
  parent: 'main',
  label: 'main › worker',
  profile: 'worker',
  description: `task ${id}`,
  background: true,
  state: 'running',
  step: null,
  startedAt: 0,
  inputTokens: 0,
  outputTokens: 0,
  costUsd: null,
  ...extra,
});

const group = (id: string, kind: BatchView['kind'], taskIds: string[]): BatchView => ({
  id,
  kind,
  status: 'open',
  taskIds,
  startedAt: 0,
});

describe('graphs of batches and fleets', () => {
  it('draws a fleet: item names as labels, dependencies between item ids as edges between its tasks', () => {
    const graphs = graphsOf({
      subagents: [
        task('t1', { fleet: { id: 'f1', item: 'lint', dependsOn: [] } }),
        task('t2', {
          state: 'queued',
          queue: { position: 0, cause: 'dependencies: lint' },
          fleet: { id: 'f1', item: 'fix', dependsOn: ['lint'] },
        }),
      ],
      batches: [group('f1', 'fleet', ['t1', 't2'])],
    });
    expect(graphs).toEqual([
      {
        id: 'f1',
        title: 'Fleet f1 · open',
        items: [
          { id: 't1', label: 'worker: lint', state: 'running', dependsOn: [], cause: undefined },
          { id: 't2', label: 'worker: fix', state: 'queued', dependsOn: ['t1'], cause: 'dependencies: lint' },
        ],
      },
    ]);
  });

  it('draws batches of two or more tasks, newest first, and leaves single tasks to the list', () => {
    const graphs = graphsOf({
      subagents: [task('a'), task('b'), task('c'), task('d', { profile: null })],
      batches: [
        group('b1', 'batch', ['a', 'b']),
        group('b2', 'batch', ['c']),
        group('b3', 'batch', ['c', 'd']),
      ],
    });
    expect(graphs.map((g) => g.title)).toEqual(['Batch b3 · open', 'Batch b1 · open']);
    expect(graphs[0].items.map((i) => i.label)).toEqual(['worker: task c', 'task d']);
  });
});
