import type { BatchView, ControllerState, SubagentView } from '../../../controller/types.js';
import type { GraphItem } from './graph-layout.js';

/**
 * One subagent as a node. A fleet item's dependencies name items of its fleet (`itemTask` maps an item id
 * to its task id); a claim wait names the holding task already.
 */
export function graphItem(task: SubagentView, itemTask: ReadonlyMap<string, string> = new Map()): GraphItem {
  const what = task.fleet ? `${task.fleet.item}` : task.description;
  return {
    id: task.id,
    label: task.profile ? `${task.profile}: ${what}` : what,
    state: task.state,
    dependsOn: (task.fleet?.dependsOn ?? []).flatMap((item) => itemTask.get(item) ?? []),
    cause: task.state === 'queued' ? task.queue?.cause : undefined,
  };
}

const TITLE: Record<BatchView['kind'], string> = { batch: 'Batch', fleet: 'Fleet' };

/** The groups worth drawing as a graph: every batch or fleet of two or more tasks, newest first. */
export function graphsOf(
  state: Pick<ControllerState, 'batches' | 'subagents'>,
): { id: string; title: string; items: GraphItem[] }[] {
  const byId = new Map(state.subagents.map((task) => [task.id, task]));
  return state.batches
    .map((group) => {
      const tasks = group.taskIds
        .map((id) => byId.get(id))
        .filter((task): task is SubagentView => task !== undefined);
      const itemTask = new Map(tasks.flatMap((task) => (task.fleet ? [[task.fleet.item, task.id]] : [])));
      return {
        id: group.id,
        title: `${TITLE[group.kind] ?? 'Batch'} ${group.id} · ${group.status}`,
        items: tasks.map((task) => graphItem(task, itemTask)),
      };
    })
    .filter((graph) => graph.items.length >= 2)
    .reverse();
}
