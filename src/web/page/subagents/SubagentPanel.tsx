import { useEffect, useState } from 'preact/hooks';
import type { BatchView, SubagentView } from '../../../controller/types.js';
import { formatDuration } from '../tools/ToolCard.js';
import { graphsOf } from './graph-of.js';
import { TaskGraph } from './TaskGraph.js';

/** Renders again once a second while `active`, so elapsed times move without events. */
function useTicking(active: boolean): void {
  const [, setTick] = useState(0);
  useEffect(() => {
    if (!active) return;
    const timer = setInterval(() => setTick((n) => n + 1), 1000);
    return () => clearInterval(timer);
  }, [active]);
}

const WAITS_FOR: Record<string, string> = {
  slots: 'a free subagent slot',
  writers: 'a writer slot',
  writer: 'a writer slot',
  batch: 'its batch’s limit',
};

function queueText(queue: NonNullable<SubagentView['queue']>): string {
  // Position 0: not in the scheduler's queue (a fleet item waiting for its dependencies).
  const position = queue.position > 0 ? ` #${queue.position}` : '';
  return `queued${position}, waiting for ${WAITS_FOR[queue.cause] ?? queue.cause}`;
}

const tokens = (n: number) =>
  n >= 10_000 ? `${(n / 1000).toFixed(0)}k` : n >= 1000 ? `${(n / 1000).toFixed(1)}k` : `${n}`;

/** How many finished subagents stay listed under the live ones. */
const RECENT = 8;

interface Props {
  subagents: SubagentView[];
  batches: BatchView[];
  kill(taskId: string): void;
}

/** Running and queued subagents (profile, step, elapsed, tokens, queue cause, Kill), batches as graphs. */
export function SubagentPanel({ subagents, batches, kill }: Props) {
  const live = subagents.filter((task) => task.state === 'running' || task.state === 'queued');
  const done = subagents
    .filter((task) => !live.includes(task))
    .slice(-RECENT)
    .reverse();
  useTicking(live.length > 0);
  const now = Date.now();
  const graphs = graphsOf({ subagents, batches });
  const row = (task: SubagentView) => {
    const elapsed = (task.endedAt ?? now) - task.startedAt;
    const running = task.state === 'running' || task.state === 'queued';
    return (
      <li
        class={`subagent state-${task.state}`}
        key={task.id}
        aria-label={`${task.label}: ${task.description}`}
      >
        <div class="subagent-head">
          <span class="subagent-label">{task.label}</span>
          {task.background && <span class="badge">background</span>}
          <span class={`badge badge-state state-${task.state}`}>{task.state}</span>
          {running && (
            <button
              type="button"
              class="danger small"
              title={`Kill ${task.id}`}
              onClick={() => kill(task.id)}
            >
              Kill
            </button>
          )}
        </div>
        <div class="subagent-desc">{task.description}</div>
        <div class="subagent-meta dim">
          <span>{task.id.slice(0, 8)}</span>
          <span>{formatDuration(Math.max(0, elapsed))}</span>
          <span>
            {tokens(task.inputTokens)} in / {tokens(task.outputTokens)} out
          </span>
          {task.costUsd !== null && <span>${task.costUsd.toFixed(4)}</span>}
        </div>
        {task.state === 'queued' && task.queue && <div class="subagent-queue">{queueText(task.queue)}</div>}
        {task.state === 'running' && task.step && <div class="subagent-step">{task.step}</div>}
      </li>
    );
  };
  return (
    <section class="panel" aria-labelledby="subagents-title">
      <h2 id="subagents-title">Subagents</h2>
      {subagents.length === 0 && <p class="dim">None yet.</p>}
      {live.length > 0 && <ul class="subagents">{live.map(row)}</ul>}
      {graphs.map((graph) => (
        <TaskGraph key={graph.id} title={graph.title} items={graph.items} />
      ))}
      {done.length > 0 && (
        <details class="recent">
          <summary>Finished ({done.length})</summary>
          <ul class="subagents">{done.map(row)}</ul>
        </details>
      )}
    </section>
  );
}
