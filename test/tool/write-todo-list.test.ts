import { describe, expect, it } from 'vitest';
import { createToolContext } from '../../src/tool/context.js';
import { writeTodoListTool } from '../../src/tool/write-todo-list.js';
import { run } from './fixture.js';

describe('write_todo_list', () => {
  it('stores the list in ctx.todos and answers with it rendered', async () => {
    const ctx = createToolContext({ root: '/' });
    const todos = [
      { content: 'Read the spec', status: 'completed' },
      { content: 'Write the tools', status: 'in_progress' },
      { content: 'Write the report', status: 'pending' },
    ];
    expect(await run(writeTodoListTool, { todos }, ctx)).toEqual({
      output: 'Todo list (1/3 completed):\n[x] Read the spec\n[~] Write the tools\n[ ] Write the report',
    });
    expect(ctx.todos.get()).toEqual(todos);
  });

  it('replaces the previous list, and an empty list clears it', async () => {
    const ctx = createToolContext({ root: '/' });
    await run(writeTodoListTool, { todos: [{ content: 'a', status: 'pending' }] }, ctx);
    expect(await run(writeTodoListTool, { todos: [] }, ctx)).toEqual({ output: 'Todo list cleared.' });
    expect(ctx.todos.get()).toEqual([]);
  });

  it.each([
    [{}],
    [{ todos: 'do things' }],
    [{ todos: [{ content: 'a', status: 'done' }] }],
    [{ todos: [{ content: '', status: 'pending' }] }],
    [{ todos: [{ status: 'pending' }] }],
  ])('schema rejects %j', (input) => {
    expect(writeTodoListTool.schema.safeParse(input).success).toBe(false);
  });

  it('is a read-class tool without a subject', () => {
    expect(writeTodoListTool.safety).toBe('read');
    expect(writeTodoListTool.subject({ todos: [] })).toEqual({ kind: 'none' });
  });
});
