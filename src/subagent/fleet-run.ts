import { randomBytes } from 'node:crypto';
import { type FleetInput, type PlannedItem, preflightFleet } from './fleet-plan.js';
import { type LiveTask, TERMINAL_STATES } from './task-record.js';
import type { TaskInput } from './task-tool.js';

/** What the fleet result says of an item: a task state, or `skipped` (never started). */
export type ItemState = LiveTask['state'] | 'skipped';

const FAILED: ReadonlySet<string> = new Set(['failed', 'timed_out']);

/**
 * One `fleet` in flight (SPEC 10): its items' tasks, the gates that hold an item until its dependencies
 * have completed, and fail_fast. Items are tasks of the manager from the start, so batches, the
 * scheduler and `cadre tasks` see them all.
 */
export class FleetRun {
  readonly id = `f-${randomBytes(4).toString('hex')}`;
  readonly tasks = new Map<string, LiveTask>();
  /** The first item that failed, once one has. */
  private firstFailure: string | undefined;
  /** Its result was given to the model (task_status or a reminder). */
  delivered = false;
  /** Every item is registered: gates may look their dependencies up. */
  private opened!: () => void;
  private readonly ready = new Promise<void>((resolve) => {
    this.opened = resolve;
  });
  private aborted: string | undefined;

  constructor(
    readonly items: readonly PlannedItem[],
    readonly failFast: boolean,
    readonly background: boolean,
    /** Cancels a task that has not started yet, with the reason (fail_fast). */
    private readonly skip: (task: LiveTask, reason: string) => void,
  ) {}

  /** Registers an item's task; a failure of it may stop what has not started (fail_fast). */
  add(item: PlannedItem, task: LiveTask): void {
    this.tasks.set(item.id, task);
    task.finished.then(() => {
      if (!FAILED.has(task.state) || task.skipped) return;
      this.firstFailure ??= item.id;
      if (!this.failFast) return;
      for (const other of this.tasks.values())
        if (other.state === 'queued') this.skip(other, `skipped: fail_fast after "${item.id}" failed`);
    });
  }

  /**
   * Resolves when `item` may start: undefined, or why it is skipped (a dependency that did not complete,
   * or fail_fast after a failure).
   */
  async gate(item: PlannedItem): Promise<string | undefined> {
    await this.ready;
    if (this.aborted) return `skipped: ${this.aborted}`;
    for (const dep of item.depends_on ?? []) {
      const task = this.tasks.get(dep);
      if (!task) continue;
      await task.finished;
      if (task.state !== 'completed') return `skipped: dependency "${dep}" ${stateOf(task)}`;
    }
    if (this.failFast && this.firstFailure) return `skipped: fail_fast after "${this.firstFailure}" failed`;
    return undefined;
  }

  /** Every item is launched: the gates may open. */
  open(): void {
    this.opened();
  }

  /** The fleet could not be launched whole: what was launched is skipped. */
  abort(reason: string): void {
    this.aborted = reason;
    this.opened();
  }

  done(): boolean {
    return [...this.tasks.values()].every((t) => TERMINAL_STATES.has(t.state));
  }

  /** Waits for every item. */
  async finished(): Promise<void> {
    await Promise.all([...this.tasks.values()].map((t) => t.finished));
  }

  /** One line per item while it runs: state and, for a waiting one, what it waits for. */
  progress(whereIs: (task: LiveTask) => string): string {
    const lines = this.items.map((item) => {
      const task = this.tasks.get(item.id);
      if (!task) return `[${item.id}] not started`;
      const waiting =
        task.state === 'queued' &&
        (item.depends_on ?? []).some((d) => !TERMINAL_STATES.has(this.tasks.get(d)?.state ?? 'completed'))
          ? `waiting for ${(item.depends_on ?? []).join(', ')}`
          : whereIs(task);
      return `[${item.id}] task ${task.id}: ${waiting}`;
    });
    const finished = [...this.tasks.values()].filter((t) => TERMINAL_STATES.has(t.state)).length;
    return `Fleet ${this.id}: ${finished} of ${this.items.length} items finished.\n${lines.join('\n')}`;
  }

  /** The fleet's result: every item with its state, answer or error, tokens and cost. */
  resultText(text: (task: LiveTask) => string): string {
    const counts = new Map<string, number>();
    const entries = this.items.map((item) => {
      const task = this.tasks.get(item.id) as LiveTask;
      const state = stateOf(task);
      counts.set(state, (counts.get(state) ?? 0) + 1);
      if (task.skipped) return `[${item.id}] ${task.error ?? 'skipped'}`;
      const cost = task.costUsd === null ? 'cost unknown' : `$${task.costUsd.toFixed(4)}`;
      const head = `[${item.id}] ${state} (task ${task.id}; ${task.usage.inputTokens} input + ${task.usage.outputTokens} output tokens; ${cost})`;
      const body = task.state === 'completed' ? text(task) : `${task.error ?? 'no reason given'}`;
      return `${head}\n${body}`;
    });
    const summary = [...counts].map(([state, n]) => `${n} ${state}`).join(', ');
    return `Fleet ${this.id}: ${this.items.length} items; ${summary}.\n\n${entries.join('\n\n')}`;
  }
}

/** An item's state in words: `skipped` for one that never started. */
export function stateOf(task: LiveTask): ItemState {
  return task.skipped ? 'skipped' : task.state;
}

/** A fleet item (SPEC 10) as it is launched: its fleet, its normalized claim, and the gate of its dependencies. */
export interface FleetItemLaunch {
  id: string;
  item: string;
  background: boolean;
  claim?: string[];
  gate: () => Promise<string | undefined>;
  /** The item ids it waits for (shown by views as the fleet's graph). */
  dependsOn?: string[];
}

/** What running a fleet needs of the subagent manager. */
export interface FleetHost {
  projectRoot: string;
  profileNames(): ReadonlySet<string>;
  /** Whether the dispatching agent may run this profile (no `task(<name>)` deny). */
  mayDispatch(name: string): boolean;
  /** Launches one item as a task (the same path as `task`); an error when it cannot start at all. */
  launch(
    input: TaskInput,
    signal: AbortSignal,
    item: FleetItemLaunch,
  ): Promise<{ task: LiveTask } | { error: string }>;
  /** Stops a task that has not started, saying why. */
  cancel(task: LiveTask, reason: string): void;
  /** A completed item's answer as the model sees it (long ones excerpted). */
  text(task: LiveTask): string;
}

/** Preflight, then every item launched at once (each held by its gate); undefined result = error text. */
export async function startFleet(
  host: FleetHost,
  input: FleetInput,
  signal: AbortSignal,
): Promise<{ fleet: FleetRun } | { error: string }> {
  const planned = preflightFleet(input, host.projectRoot, host.profileNames());
  if (!planned.ok) return { error: planned.error };
  const denied = planned.items.filter((i) => {
    const name = i.agent ?? i.profile;
    return name !== undefined && !host.mayDispatch(name);
  });
  if (denied.length > 0)
    return {
      error: `fleet refused; nothing was started: ${denied.map((i) => `item "${i.id}" names agent "${i.agent ?? i.profile}", which a task(${i.agent ?? i.profile}) rule denies`).join('; ')}`,
    };
  const background = input.background === true;
  const fleet = new FleetRun(planned.items, input.fail_fast === true, background, (task, reason) =>
    host.cancel(task, reason),
  );
  for (const item of planned.items) {
    const launched = await host.launch(
      {
        prompt: item.prompt,
        agent: item.agent ?? item.profile,
        description: `${item.id}: ${item.prompt.replace(/\s+/g, ' ').slice(0, 60)}`,
        write_paths: item.write_paths,
        tools: item.tools,
        max_steps: item.max_steps,
        model: item.model,
        effort: item.effort,
        background,
      },
      signal,
      {
        id: fleet.id,
        item: item.id,
        background,
        claim: item.claim,
        gate: () => fleet.gate(item),
        dependsOn: item.depends_on ?? [],
      },
    );
    if ('error' in launched) {
      fleet.abort(`fleet ${fleet.id} could not start item "${item.id}"`);
      return { error: `fleet item "${item.id}" cannot start: ${launched.error}` };
    }
    fleet.add(item, launched.task);
  }
  fleet.open();
  return { fleet };
}
