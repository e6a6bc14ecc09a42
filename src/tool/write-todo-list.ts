import { z } from 'zod';
import { lazySchema } from '../util/lazy-schema.js';
import { BUILT_INPUT_SCHEMAS } from './built-input-schemas.js';
import { ok } from './result.js';
import type { TodoItem, Tool } from './tool.js';

const schema = lazySchema(() =>
  z.object({
    todos: z
      .array(
        z.object({
          content: z.string().min(1).describe('What to do, one short imperative sentence'),
          status: z
            .enum(['pending', 'in_progress', 'completed'])
            .describe('pending, in_progress (one item at a time) or completed'),
        }),
      )
      .describe('The complete list; it replaces the previous one'),
  }),
);

export type WriteTodoListInput = z.output<typeof schema>;

const MARKS: Record<TodoItem['status'], string> = { pending: '[ ]', in_progress: '[~]', completed: '[x]' };

export function renderTodos(todos: TodoItem[]): string {
  if (todos.length === 0) return 'Todo list cleared.';
  const done = todos.filter((todo) => todo.status === 'completed').length;
  const lines = todos.map((todo) => `${MARKS[todo.status]} ${todo.content}`);
  return `Todo list (${done}/${todos.length} completed):\n${lines.join('\n')}`;
}

export const writeTodoListTool: Tool<WriteTodoListInput> = {
  name: 'write_todo_list',
  description:
    'Replace the session todo list. Keep one item in_progress while working; mark items completed when done.',
  schema,
  inputJsonSchema: BUILT_INPUT_SCHEMAS.write_todo_list,
  safety: 'read',
  subject: () => ({ kind: 'none' }),
  async execute(input, ctx) {
    const todos = input.todos.map(({ content, status }) => ({ content, status }));
    ctx.todos.set(todos);
    return ok(renderTodos(todos));
  },
};
