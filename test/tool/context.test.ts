import { mkdtempSync, realpathSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { createTodoStore, createToolContext } from '../../src/tool/context.js';

describe('createToolContext', () => {
  it('fills in defaults around the given root, resolved through symlinks', () => {
    const base = realpathSync(mkdtempSync(path.join(tmpdir(), 'cadre-ctx-')));
    try {
      symlinkSync(base, path.join(base, 'alias'));
      const ctx = createToolContext({ root: path.join(base, 'alias') });
      expect(ctx.root).toBe(base);
      expect(ctx).toMatchObject({ agent: 'main', sessionId: 'local' });
      expect(ctx.signal.aborted).toBe(false);
      expect(ctx.jobs.list()).toEqual([]);
      expect(ctx.todos.get()).toEqual([]);
    } finally {
      rmSync(base, { recursive: true, force: true });
    }
  });

  it('keeps the parts it is given', () => {
    const controller = new AbortController();
    const todos = createTodoStore([{ content: 'x', status: 'pending' }]);
    const ctx = createToolContext({
      root: '/',
      agent: 'reviewer#1',
      sessionId: 's1',
      signal: controller.signal,
      todos,
    });
    expect(ctx).toMatchObject({ agent: 'reviewer#1', sessionId: 's1', signal: controller.signal, todos });
  });

  it('gives each context its own todo list and shell jobs', () => {
    const first = createToolContext({ root: '/' });
    const second = createToolContext({ root: '/' });
    first.todos.set([{ content: 'only here', status: 'pending' }]);
    expect(second.todos.get()).toEqual([]);
    expect(first.jobs).not.toBe(second.jobs);
  });

  it('hands out copies, so callers cannot change the stored list', () => {
    const store = createTodoStore();
    const items = [{ content: 'a', status: 'pending' as const }];
    store.set(items);
    items[0].content = 'changed';
    store.get()[0].content = 'changed too';
    expect(store.get()).toEqual([{ content: 'a', status: 'pending' }]);
  });
});
