import type { ControllerState, SubagentView } from '../../../controller/types.js';
import type { GraphItem } from './graph-layout.js';

/** A subagent of a fleet carries its dependencies; other dispatches have none. */
type MaybeFleetTask = SubagentView & { dependsOn?: readonly string[] };

export function graphItem(task: MaybeFleetTask): GraphItem {
  return {
    id: task.id,
    label: task.profile ? `${task.profile}: ${task.description}` : task.description,
    state: task.state,
    dependsOn: task.dependsOn ?? [],
    cause: task.state === 'queued' ? task.queue?.cause : undefined,
  };
}

/** The groups worth drawing as a graph: every batch (or fleet) of two or more tasks, newest first. */
export function graphsOf(
  state: Pick<ControllerState, 'batches' | 'subagents'>,
): { id: string; title: string; items: GraphItem[] }[] {
  const byId = new Map(state.subagents.map((task) => [task.id, task]));
  return state.batches
    .map((batch) => ({
      id: batch.id,
      title: `Batch ${batch.id} · ${batch.status}`,
      items: batch.taskIds
        .map((id) => byId.get(id))
        .filter((task): task is SubagentView => task !== undefined)
        .map(graphItem),
    }))
    .filter((graph) => graph.items.length >= 2)
    .reverse();
}
