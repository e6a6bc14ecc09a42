import type { ModelMessage } from 'ai';
import { type LoopResult, runAgentLoop } from '../agent/loop.js';
import type { ToolSpec } from '../agent/model-stream.js';
import { toolSpecsFor } from '../agent/tool-specs.js';
import { grantMcpTools, type McpGrant } from '../mcp/grants.js';
import { instructionsSection } from '../profile/instructions.js';
import type { Profile, Tier } from '../profile/types.js';
import { addUsage, costOf, type TokenUsage } from '../provider/pricing.js';
import type { ModelParams, ModelRoute } from '../provider/route.js';
import { forcedSkillSections } from '../skill/catalog.js';
import { createToolContext } from '../tool/context.js';
import { builtinTools } from '../tool/registry.js';
import type { AnyTool } from '../tool/tool.js';
import { claimAware } from './claimed-tools.js';
import type { SubagentHost } from './host.js';
import { recordingOwnWrites } from './own-writes.js';
import { parentFactsPack } from './parent-facts.js';
import defaultSubagentPrompt from './prompts/default.txt';
import type { ClaimDeadlockError, Lease } from './scheduler.js';
import type { LiveTask } from './task-record.js';
import type { TaskInput } from './task-tool.js';
import { subagentToolNames } from './tiers.js';
import type { PreparedWriter } from './writer.js';

/** Everything one child run is made of, decided at dispatch. */
export interface ChildRun {
  task: LiveTask;
  profile: Profile | undefined;
  route: ModelRoute;
  params: ModelParams;
  input: TaskInput;
  /** The readonly runner (`cadre subagent try`): only read-class tools, whatever the tier would give. */
  readOnlyRunner?: boolean;
}

/** Built-in tools of the tier, narrowed by profile and call, rooted at `root`. */
export function childBuiltins(
  { task, profile, input }: Pick<ChildRun, 'task' | 'profile' | 'input'>,
  root: string,
): AnyTool[] {
  const names = subagentToolNames({
    tier: task.tier as Tier,
    allow: profile?.subagentAllow,
    deny: profile?.subagentDeny,
    callTools: input.tools,
  });
  return builtinTools(root).filter((t) => names.includes(t.name));
}

/**
 * What decides a child's MCP tools, as plain data: its profile's grant, its tier, the call's `tools`,
 * and `readOnly` (only tools that declare `readOnlyHint`). A remote job carries it to the worker's servers.
 */
export interface McpChoice {
  grant: McpGrant;
  tier: Tier;
  callTools?: readonly string[];
  readOnly: boolean;
}

/** The MCP tools of `live` a child gets under `choice`; grant problems go to `warn`. */
export function childMcpTools(
  live: readonly AnyTool[],
  choice: McpChoice,
  warn: (message: string) => void,
): AnyTool[] {
  const granted = grantMcpTools(choice.grant, choice.tier, live);
  for (const warning of granted.warnings) warn(warning);
  return granted.tools
    .filter((t) => !choice.callTools || choice.callTools.includes(t.name))
    .filter((t) => !choice.readOnly || t.safety === 'read');
}

/** The MCP choice of a child: `readMcpOnly` for an isolated writer and the readonly runner. */
export function mcpChoice(
  { task, profile, input }: Pick<ChildRun, 'task' | 'profile' | 'input'>,
  readMcpOnly: boolean,
): McpChoice {
  return { grant: profile?.mcp, tier: task.tier as Tier, callTools: input.tools, readOnly: readMcpOnly };
}

/**
 * Built-in tools of the tier (narrowed by profile and call), rooted at `root`, plus granted MCP tools.
 * With `readMcpOnly`, only MCP tools that declare `readOnlyHint`: an isolated writer's (MCP servers run in
 * the root process against the parent checkout, SPEC 9) and the readonly runner's.
 */
export function childTools(
  host: SubagentHost,
  child: Pick<ChildRun, 'task' | 'profile' | 'input'>,
  root: string,
  readMcpOnly: boolean,
): AnyTool[] {
  const mcp = childMcpTools(host.mcpTools(), mcpChoice(child, readMcpOnly), (warning) =>
    host.emit({
      type: 'warning',
      agent: child.task.id,
      message: `profile ${child.profile?.name ?? 'default'}: ${warning}`,
    }),
  );
  return [...childBuiltins(child, root), ...mcp];
}

/** The child's gate: its own composition under the parent's ceiling, rooted at the checkout it works in. */
export function childGate(host: SubagentHost, profile: Profile | undefined, root: string) {
  const gate = host.parentGate().narrowFor({ ...host.childGateOptions(profile), root });
  for (const rule of host.approvals()) gate.approve(rule);
  return gate;
}

/** The child's first message: its prompt, after the parent's facts pack when its profile asks for one. */
export function childFirstMessage(host: SubagentHost, { profile, input }: ChildRun): ModelMessage {
  // The child sees none of the parent's conversation, except the facts pack its profile asks for.
  const facts = profile?.parentFacts ? parentFactsPack(host.parentMessages()) : '';
  return { role: 'user', content: facts ? `${facts}\n\n${input.prompt}` : input.prompt };
}

/** The child's system prompt: its profile's (or the default), forced skills, instructions, a writer's preamble. */
export function childSystem(host: SubagentHost, { profile }: ChildRun, prepared: PreparedWriter): string {
  return [
    profile?.prompt || defaultSubagentPrompt,
    ...forcedSkillSections(profile?.skills ?? [], host.profiles.skills),
    profile?.instructions ? instructionsSection(host.instructions ?? []) : '',
    prepared.preamble,
  ]
    .filter(Boolean)
    .join('\n\n');
}

/** How many turns the child may take, and how the cap is named when it is hit. */
export function childTurns({ task, profile, input }: ChildRun): { maxTurns: number; label: string } {
  if (task.tier === 'toolless')
    return { maxTurns: 1, label: 'a toolless subagent answers in one model call' };
  const maxSteps = input.max_steps ?? profile?.maxTurns ?? 25;
  return { maxTurns: maxSteps, label: `max_steps ${maxSteps}` };
}

/** A tooled child's own session in the store, holding its first message; the parent's for a toolless one. */
export function openChildSession(
  host: SubagentHost,
  { task, route }: ChildRun,
  cwd: string,
  firstMessage: ModelMessage,
): string {
  if (task.tier === 'toolless') return host.parentSessionId;
  const session = host.store.createSession({
    projectRoot: host.projectRoot,
    cwd,
    parentId: host.parentSessionId,
    agent: task.profile ?? undefined,
    model: route.model,
  });
  task.childSessionId = session.id;
  host.store.updateTask(task.id, { childSessionId: session.id });
  host.store.appendMessages(session.id, [firstMessage], 0);
  return session.id;
}

/** One committed turn of a child: its usage and cost on the task, its messages in its session. */
export function recordChildTurn(
  host: SubagentHost,
  { task, route }: ChildRun,
  added: ModelMessage[],
  turn: number,
  usage: TokenUsage,
): void {
  const cost = costOf(route.model, usage);
  task.usage = addUsage(task.usage, usage);
  if (cost !== null) task.costUsd = (task.costUsd ?? 0) + cost;
  if (task.childSessionId) {
    host.store.commitTurn(task.childSessionId, turn, added, { ...usage, costUsd: cost ?? undefined });
  }
}

/**
 * An isolated writer's shell calls, each followed by carrying its commits onto its branch (SPEC 9): the
 * branch follows the writer as it goes, so a crash mid-run leaves it at the writer's last commit.
 */
function followingCommits(tools: AnyTool[], follow: (() => Promise<void>) | undefined): AnyTool[] {
  if (!follow) return tools;
  return tools.map((tool) =>
    tool.name !== 'bash'
      ? tool
      : {
          ...tool,
          async execute(input, ctx) {
            try {
              return await tool.execute(input, ctx);
            } finally {
              await follow();
            }
          },
        },
  );
}

/** Runs the child's agent loop in its own session, in the checkout `prepared` gives it. */
export async function runChildLoop(
  host: SubagentHost,
  child: ChildRun,
  prepared: PreparedWriter,
  signal: AbortSignal,
  lease?: Lease,
  onDeadlock: (error: ClaimDeadlockError) => void = () => undefined,
): Promise<LoopResult> {
  const { task, profile, route, params } = child;
  const firstMessage = childFirstMessage(host, child);
  const gate = childGate(host, profile, prepared.root);
  const tools = new Map<string, AnyTool>();
  let mcpSeen: readonly AnyTool[] | undefined;
  let specs: ToolSpec[] = [];
  // Rebuilt at a turn boundary when the session's MCP set changed (a list change, a reconnect, a server
  // that finished starting), so a child works with the tools the session has now, under its own grants.
  const specsAtTurnBoundary = (): ToolSpec[] => {
    const mcpNow = host.mcpTools();
    if (mcpSeen && mcpSeen.length === mcpNow.length && mcpSeen.every((t, i) => t === mcpNow[i])) return specs;
    mcpSeen = mcpNow;
    const own = childTools(
      host,
      child,
      prepared.root,
      prepared.worktree !== undefined || child.readOnlyRunner === true,
    );
    const recorded = prepared.ownWrites
      ? recordingOwnWrites(own, prepared.ownWrites.own, prepared.root, prepared.ownWrites.top)
      : followingCommits(own, prepared.follow);
    const current = lease ? claimAware(recorded, lease, prepared.root, onDeadlock) : recorded;
    const visible = new Set(gate.visibleTools(current));
    tools.clear();
    for (const tool of current) tools.set(tool.name, tool);
    specs = toolSpecsFor(current.filter((t) => visible.has(t.name)));
    return specs;
  };
  specsAtTurnBoundary();
  const sessionId = openChildSession(host, child, prepared.root, firstMessage);
  // Background shell jobs are the child's own: it cannot read or kill the parent's.
  const context = createToolContext({
    root: prepared.root,
    agent: task.id,
    sessionId,
    signal,
    sandbox: prepared.sandbox ?? host.sandbox,
  });
  const turns = childTurns(child);
  try {
    return await runAgentLoop({
      agent: task.id,
      callModel: await host.modelCaller(route, params),
      system: childSystem(host, child, prepared),
      messages: [firstMessage],
      toolSpecs: specsAtTurnBoundary,
      tools: {
        tools,
        gate,
        ask: host.ask,
        context,
        onDenied: (record) => host.onDenied(record),
        onApproved: (rule) => host.onApproved(rule),
      },
      maxTurns: turns.maxTurns,
      turnCapLabel: turns.label,
      emit: host.emit,
      signal,
      costOf: (usage) => costOf(route.model, usage),
      onTurnCommitted: (added, turn, usage) => recordChildTurn(host, child, added, turn, usage),
    });
  } finally {
    context.jobs.killAll();
  }
}
