import { describe, expect, it } from 'vitest';
import { claimHolder, type GraphItem, layoutGraph } from '../../../src/web/page/subagents/graph-layout.js';

const item = (id: string, dependsOn: string[] = [], cause?: string): GraphItem => ({
  id,
  label: id,
  state: 'queued',
  dependsOn,
  cause,
});

const OPTIONS = { nodeWidth: 100, nodeHeight: 40, gapX: 10, gapY: 20, perRow: 3 };

/** Row index of each node, by id. */
function rows(items: GraphItem[]): Record<string, number> {
  const layout = layoutGraph(items, OPTIONS);
  return Object.fromEntries(layout.nodes.map((n) => [n.item.id, n.y / (OPTIONS.nodeHeight + OPTIONS.gapY)]));
}

describe('task graph layout', () => {
  it.each<[string, GraphItem[], Record<string, number>]>([
    ['independent items share the first row', [item('a'), item('b')], { a: 0, b: 0 }],
    ['a chain goes one row per step', [item('c', ['b']), item('b', ['a']), item('a')], { a: 0, b: 1, c: 2 }],
    [
      'an item sits below its deepest dependency',
      [item('a'), item('b', ['a']), item('c', ['a', 'b'])],
      { a: 0, b: 1, c: 2 },
    ],
    ['dependencies outside the graph are ignored', [item('a', ['gone'])], { a: 0 }],
    ['a cycle is cut instead of looping', [item('a', ['b']), item('b', ['a'])], { a: 1, b: 0 }],
    [
      'a wide layer wraps after perRow nodes',
      [item('a'), item('b'), item('c'), item('d')],
      { a: 0, b: 0, c: 0, d: 1 },
    ],
  ])('%s', (_name, items, expected) => {
    expect(rows(items)).toEqual(expected);
  });

  it('draws dependencies as edges and a claim wait as an edge from the holder', () => {
    const layout = layoutGraph(
      [item('t1'), item('t2', ['t1']), item('t3', [], 'claim: src/a.ts held by t1')],
      OPTIONS,
    );
    expect(layout.edges).toEqual([
      { from: 't1', to: 't2', kind: 'dependency' },
      { from: 't1', to: 't3', kind: 'claim' },
    ]);
  });

  it('orders a layer by where its dependencies sit, to keep edges short', () => {
    const layout = layoutGraph([item('a'), item('b'), item('y', ['b']), item('x', ['a'])], OPTIONS);
    const x = (id: string) => layout.nodes.find((n) => n.item.id === id)?.x;
    expect(x('x')).toBe(x('a'));
    expect(x('y')).toBe(x('b'));
  });

  it('sizes the drawing to its widest row', () => {
    const layout = layoutGraph([item('a'), item('b'), item('c', ['a'])], OPTIONS);
    expect(layout.width).toBe(2 * 100 + 10);
    expect(layout.height).toBe(2 * 40 + 20);
  });

  it.each([
    ['claim: src/a.ts held by t7', 't7'],
    ['claim: . held by task-2', 'task-2'],
    ['slots', undefined],
    [undefined, undefined],
  ])('claimHolder(%s) is %s', (cause, holder) => {
    expect(claimHolder(cause)).toBe(holder);
  });
});
