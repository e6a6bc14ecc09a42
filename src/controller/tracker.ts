import { describeCall } from '../agent/describe-call.js';
import type { AgentEvent } from '../agent/events.js';
import type { BatchView, SubagentView } from './types.js';

/** Separates the agents of an asking chain in labels: `main › researcher › explore`. */
export const CHAIN_SEPARATOR = ' › ';

/**
 * What the controller learns from the runtime's events alone: the subagent tree with each child's
 * current step, tokens and queue cause, coordinated batches, and how full the main context is.
 */
export class EventTracker {
  private readonly subagents = new Map<string, SubagentView>();
  private readonly batches = new Map<string, BatchView>();
  contextTokens = 0;

  list(): SubagentView[] {
    return [...this.subagents.values()].map((s) => ({
      ...s,
      ...(s.fleet ? { fleet: { ...s.fleet, dependsOn: [...s.fleet.dependsOn] } } : {}),
    }));
  }

  batchList(): BatchView[] {
    return [...this.batches.values()].map((b) => ({ ...b, taskIds: [...b.taskIds] }));
  }

  /** Labels from the root down to `agent`; an unknown agent id is shown as itself under main. */
  chain(agent: string): string[] {
    const labels: string[] = [];
    let current: string | undefined = agent;
    const seen = new Set<string>();
    while (current !== undefined && current !== 'main' && !seen.has(current)) {
      seen.add(current);
      const task = this.subagents.get(current);
      const name = task ? (task.profile ?? 'subagent') : current;
      labels.unshift(task?.worker ? `${name}@${task.worker}` : name);
      current = task?.parent;
    }
    return ['main', ...labels];
  }

  label(agent: string): string {
    return this.chain(agent).join(CHAIN_SEPARATOR);
  }

  /** True when `agent` is, or descends from, a background task. */
  inBackground(agent: string): boolean {
    let current: string | undefined = agent;
    const seen = new Set<string>();
    while (current !== undefined && current !== 'main' && !seen.has(current)) {
      seen.add(current);
      const task = this.subagents.get(current);
      if (!task) return false;
      if (task.background) return true;
      current = task.parent;
    }
    return false;
  }

  /** Applies one event; true when something a client shows changed. */
  apply(event: AgentEvent, time: number): boolean {
    if (event.type.startsWith('batch_')) return this.applyBatch(event, time);
    switch (event.type) {
      case 'subagent_start': {
        const waitsFor = event.fleet?.dependsOn ?? [];
        this.subagents.set(event.taskId, {
          id: event.taskId,
          parent: event.agent,
          label: '',
          profile: event.profile,
          description: event.description,
          background: event.background,
          // A fleet item with dependencies waits for them before its first turn.
          state: waitsFor.length > 0 ? 'queued' : 'running',
          ...(waitsFor.length > 0
            ? { queue: { position: 0, cause: `dependencies: ${waitsFor.join(', ')}` } }
            : {}),
          step: null,
          startedAt: time,
          inputTokens: 0,
          outputTokens: 0,
          costUsd: null,
          ...(event.fleet ? { fleet: { ...event.fleet, dependsOn: [...waitsFor] } } : {}),
        });
        this.relabel(event.taskId);
        if (event.batchId) this.join(event.batchId, 'batch', event.taskId, time);
        if (event.fleet) this.join(event.fleet.id, 'fleet', event.taskId, time);
        return true;
      }
      case 'subagent_queued':
        return this.update(event.taskId, {
          state: 'queued',
          queue: { position: event.position, cause: event.cause },
        });
      case 'subagent_end': {
        const changed = this.update(event.taskId, { state: event.status, step: null, endedAt: time });
        this.settleFleets(time);
        return changed;
      }
      case 'subagent_worker': {
        const changed = this.update(event.taskId, { worker: event.worker });
        for (const task of this.subagents.values()) this.relabel(task.id);
        return changed;
      }
      case 'turn_start':
        return this.update(event.agent, { state: 'running', queue: undefined });
      case 'tool_call_start':
        return this.update(event.agent, { step: describeCall(event.tool, event.input) });
      case 'tool_call_end':
        return this.update(event.agent, { step: null });
      case 'usage': {
        if (event.agent === 'main') {
          this.contextTokens = event.usage.inputTokens;
          return true;
        }
        const task = this.subagents.get(event.agent);
        if (!task) return false;
        return this.update(event.agent, {
          inputTokens: task.inputTokens + event.usage.inputTokens,
          outputTokens: task.outputTokens + event.usage.outputTokens,
          costUsd: event.costUsd === null ? task.costUsd : (task.costUsd ?? 0) + event.costUsd,
        });
      }
      default:
        return false;
    }
  }

  private join(id: string, kind: BatchView['kind'], taskId: string, time: number): void {
    const group = this.batches.get(id) ?? { id, kind, status: 'open', taskIds: [], startedAt: time };
    if (!group.taskIds.includes(taskId)) group.taskIds.push(taskId);
    this.batches.set(id, group);
  }

  /** A fleet ends when every item is terminal: `failed` when any item did not complete. */
  private settleFleets(time: number): void {
    for (const group of this.batches.values()) {
      if (group.kind !== 'fleet' || group.endedAt !== undefined) continue;
      const states = group.taskIds.map((id) => this.subagents.get(id)?.state);
      if (states.some((state) => state === undefined || state === 'queued' || state === 'running')) continue;
      group.status = states.every((state) => state === 'completed') ? 'completed' : 'failed';
      group.endedAt = time;
    }
  }

  private relabel(taskId: string): void {
    const task = this.subagents.get(taskId);
    if (task) task.label = this.label(taskId);
  }

  private update(taskId: string, patch: Partial<SubagentView>): boolean {
    const task = this.subagents.get(taskId);
    if (!task) return false;
    Object.assign(task, patch);
    return true;
  }

  /** Batch events are the coordinator's; only their common fields are read, so new kinds need no change here. */
  private applyBatch(event: AgentEvent, time: number): boolean {
    const fields = event as unknown as Record<string, unknown>;
    const id = fields.batchId;
    if (typeof id !== 'string') return false;
    const batch = this.batches.get(id) ?? {
      id,
      kind: 'batch' as const,
      status: 'open',
      taskIds: [],
      startedAt: time,
    };
    const status = typeof fields.status === 'string' ? fields.status : event.type.slice('batch_'.length);
    batch.status = status;
    const ids = [
      ...(Array.isArray(fields.taskIds) ? fields.taskIds : []),
      ...(typeof fields.taskId === 'string' ? [fields.taskId] : []),
    ].filter((t): t is string => typeof t === 'string');
    for (const taskId of ids) if (!batch.taskIds.includes(taskId)) batch.taskIds.push(taskId);
    if (['completed', 'reconciled', 'end', 'ended', 'closed'].includes(status)) batch.endedAt = time;
    this.batches.set(id, batch);
    return true;
  }
}
