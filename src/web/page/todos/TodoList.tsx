import type { TodoItem } from '../../../tool/tool.js';

const MARK = { pending: '○', in_progress: '◐', completed: '●' } as const;

/** The agent's todo list (write_todo_list), carried across profile switches with the conversation. */
export function TodoList({ todos }: { todos: TodoItem[] }) {
  if (todos.length === 0) return null;
  return (
    <section class="panel" aria-labelledby="todos-title">
      <h2 id="todos-title">Todo</h2>
      <ul class="todos">
        {todos.map((todo, index) => (
          // biome-ignore lint/suspicious/noArrayIndexKey: the list is replaced whole; an item is its place in it
          <li key={index} class={`todo todo-${todo.status}`}>
            <span aria-hidden="true">{MARK[todo.status]}</span>{' '}
            <span class="sr-only">{todo.status.replace('_', ' ')}: </span>
            {todo.content}
          </li>
        ))}
      </ul>
    </section>
  );
}
