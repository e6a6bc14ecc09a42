import { describe, expect, it } from 'vitest';
import { useTempStore } from './temp-store.js';

describe('usage table', () => {
  const temp = useTempStore();

  it('reports zero totals and an unknown cost for a session without usage', () => {
    const { store } = temp();
    const session = store.createSession({ projectRoot: '/r', cwd: '/r' });
    expect(store.sessionUsage(session.id)).toEqual({
      inputTokens: 0,
      outputTokens: 0,
      reasoningTokens: 0,
      cachedInputTokens: 0,
      costUsd: null,
      records: 0,
    });
  });

  it('sums every recorded turn, counting only known costs', () => {
    const { store } = temp();
    const session = store.createSession({ projectRoot: '/r', cwd: '/r' });
    store.recordUsage(session.id, 1, {
      inputTokens: 100,
      outputTokens: 20,
      reasoningTokens: 5,
      cachedInputTokens: 80,
      costUsd: 0.25,
    });
    store.recordUsage(session.id, 2, { inputTokens: 50, outputTokens: 10, costUsd: null });
    store.recordUsage(session.id, 2, { inputTokens: 1, outputTokens: 1, costUsd: 0.5 });
    expect(store.sessionUsage(session.id)).toEqual({
      inputTokens: 151,
      outputTokens: 31,
      reasoningTokens: 5,
      cachedInputTokens: 80,
      costUsd: 0.75,
      records: 3,
    });
  });

  it('rolls usage up over child and grandchild sessions, not over siblings or the parent', () => {
    const { store } = temp();
    const root = store.createSession({ projectRoot: '/r', cwd: '/r' });
    const child = store.createSession({ projectRoot: '/r', cwd: '/r', parentId: root.id });
    const grandchild = store.createSession({ projectRoot: '/r', cwd: '/r', parentId: child.id });
    const unrelated = store.createSession({ projectRoot: '/r', cwd: '/r' });
    store.recordUsage(root.id, 1, { inputTokens: 1000, outputTokens: 100, costUsd: 1 });
    store.recordUsage(child.id, 1, { inputTokens: 200, outputTokens: 20, reasoningTokens: 7, costUsd: 0.5 });
    store.recordUsage(grandchild.id, 1, { inputTokens: 30, outputTokens: 3, cachedInputTokens: 9 });
    store.recordUsage(unrelated.id, 1, { inputTokens: 99999, outputTokens: 99999, costUsd: 99 });

    expect(store.sessionUsageWithChildren(root.id)).toEqual({
      inputTokens: 1230,
      outputTokens: 123,
      reasoningTokens: 7,
      cachedInputTokens: 9,
      costUsd: 1.5,
      records: 3,
    });
    expect(store.sessionUsageWithChildren(child.id).inputTokens).toBe(230);
    expect(store.sessionUsage(root.id).inputTokens).toBe(1000);
  });

  it('counts a task without a child session through its task record, and a task with one only once', () => {
    const { store } = temp();
    const root = store.createSession({ projectRoot: '/r', cwd: '/r' });
    const child = store.createSession({ projectRoot: '/r', cwd: '/r', parentId: root.id });
    store.recordUsage(child.id, 1, { inputTokens: 200, outputTokens: 20, costUsd: 0.5 });

    const toolless = store.createTask({ parentSessionId: root.id, prompt: 'summarise', tier: 'toolless' });
    store.updateTask(toolless.id, { status: 'completed', inputTokens: 40, outputTokens: 4, costUsd: 0.1 });
    const tooled = store.createTask({ parentSessionId: root.id, prompt: 'read', tier: 'readonly' });
    // Its usage is already in the child session's records; the task row's copy must not count again.
    store.updateTask(tooled.id, {
      childSessionId: child.id,
      inputTokens: 200,
      outputTokens: 20,
      costUsd: 0.5,
    });
    store.createTask({ parentSessionId: root.id, prompt: 'still queued' });

    expect(store.sessionUsageWithChildren(root.id)).toMatchObject({
      inputTokens: 240,
      outputTokens: 24,
      costUsd: 0.6,
      records: 2,
    });
  });
  describe('commitTurn', () => {
    const message = (text: string) => ({ role: 'assistant' as const, content: text });

    it("stores a turn's messages and its usage together", () => {
      const { store } = temp();
      const session = store.createSession({ projectRoot: '/r', cwd: '/r' });
      store.commitTurn(session.id, 1, [message('one'), message('two')], {
        inputTokens: 10,
        outputTokens: 2,
        costUsd: 0.5,
      });
      expect(store.loadTurns(session.id)).toEqual([
        { turn: 1, message: message('one') },
        { turn: 1, message: message('two') },
      ]);
      expect(store.sessionUsage(session.id)).toMatchObject({ inputTokens: 10, costUsd: 0.5, records: 1 });
    });

    it('stores neither when the usage cannot be written', () => {
      const { store } = temp();
      const session = store.createSession({ projectRoot: '/r', cwd: '/r' });
      const bad = { inputTokens: null, outputTokens: 1 } as unknown as {
        inputTokens: number;
        outputTokens: number;
      };
      expect(() => store.commitTurn(session.id, 1, [message('lost')], bad)).toThrow(/NOT NULL/);
      expect(store.loadTurns(session.id)).toEqual([]);
      expect(store.sessionUsage(session.id).records).toBe(0);
    });
  });
});
