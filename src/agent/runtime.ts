import { realpathSync } from 'node:fs';
import type { ModelMessage } from 'ai';
import { ConfigError, type LoadedConfig } from '../config/load.js';
import type { McpManager, McpServerStatus } from '../mcp/manager.js';
import type { SafetyFloor } from '../permission/decide.js';
import { callFromSpec } from '../permission/explain.js';
import type { CadrePermissionGate } from '../permission/gate.js';
import type { PermissionCall, PermissionDecision, PermissionGate } from '../permission/types.js';
import {
  type ActivationState,
  activateProfile,
  deactivateProfile,
  type EffectiveView,
  effectiveView,
  type LayerChange,
  overrideSettings,
  selectPrompt,
} from '../profile/activation.js';
import { type InstructionsFile, instructionsSection } from '../profile/instructions.js';
import { type ProfileRegistry, profileNames } from '../profile/load.js';
import { isImportedSource } from '../profile/model-routing.js';
import type { PromptSet } from '../profile/prompts.js';
import { createLanguageModel } from '../provider/model.js';
import { addUsage, contextWindowOf, costOf, type TokenUsage, ZERO_USAGE } from '../provider/pricing.js';
import {
  describeRoute,
  type Effort,
  type ModelParams,
  type ModelRoute,
  resolveModelReference,
} from '../provider/route.js';
import { closeSandbox, openSandbox, type ShellSandbox } from '../sandbox/sandbox.js';
import { sandboxSettings } from '../sandbox/settings.js';
import type { SessionRecord, SessionStore } from '../session/store.js';
import { recordingToolCalls } from '../session/tool-call-recorder.js';
import { createSkillTool } from '../skill/tool.js';
import { parentReserved } from '../subagent/claimed-tools.js';
import {
  type Coordination,
  coordinatorContract,
  resolveCoordination,
} from '../subagent/dispatch-strategy.js';
import { createFleetTool } from '../subagent/fleet-tool.js';
import { SubagentManager } from '../subagent/manager.js';
import type { LiveTask } from '../subagent/task-record.js';
import { createTaskStatusTool, createTaskTool } from '../subagent/task-tool.js';
import type { WriterSandbox } from '../subagent/writer-sandbox.js';
import { createTodoStore, createToolContext } from '../tool/context.js';
import { createPlanEnterTool } from '../tool/plan-enter.js';
import { createPlanExitTool } from '../tool/plan-exit.js';
import type { PlanMode } from '../tool/plan-mode.js';
import { createQuestionTool } from '../tool/question.js';
import { builtinTools } from '../tool/registry.js';
import { prewarmShell } from '../tool/shell-process.js';
import type { AnyTool, TodoItem, ToolContext } from '../tool/tool.js';
import type { ApprovalRecord } from './approval-asker.js';
import { attachmentCalls, mentionedFiles, withAttachments } from './attachments.js';
import {
  CompactionBackoff,
  compactIfNeeded,
  compactionSplit,
  transcriptOf,
  withSummary,
} from './compaction.js';
import type { CriticVerdict } from './critic.js';
import type { EmitEvent } from './events.js';
import { composeGate, type GateInputs, gateOptionsFor, readOperatorFile } from './gate-options.js';
import { warmModelPath, warmNodeInternals, warmWhileWaiting } from './idle-warmup.js';
import { type LoopResult, runAgentLoop } from './loop.js';
import { type ModelCaller, sdkModelCaller, type ToolSpec } from './model-stream.js';
import compactionPrompt from './prompts/compaction.txt';
import planModeReminder from './prompts/mode-plan.txt';
import reviewModeReminder from './prompts/mode-review.txt';
import defaultSystemPrompt from './prompts/system.txt';
import type { SessionReview } from './session-review.js';
import { SessionRoles } from './session-roles.js';
import { type Asker, headlessAsker, type PermissionDenialRecord, runToolCalls } from './tool-runner.js';
import { toolSpecsFor } from './tool-specs.js';
import { headlessUser, type UserChannel } from './user-channel.js';

export interface RuntimeFlags {
  agent?: string;
  /** `--prompt NAME`: the prompt layer selected at start (SPEC 4.1). */
  prompt?: string;
  model?: string;
  provider?: string;
  safety: SafetyFloor;
  permissions?: string;
  yes: boolean;
  maxTurns?: number;
  continue?: boolean;
  resume?: string;
}

/** One profile run on one task outside a model turn (`cadre subagent try|run`, `/<profile> <task>`). */
export interface DelegateRequest {
  profile: string;
  task: string;
  /** The readonly runner (`try`): no write-class tool reaches the model, whatever the profile says. */
  readOnly?: boolean;
  /** Level 5 of SPEC 7.6: the model used where no per-profile config, profile or default chose one. */
  model?: string;
  maxSteps?: number;
}

export interface RuntimeOptions {
  loaded: LoadedConfig;
  profiles: ProfileRegistry;
  prompts: PromptSet;
  mainRoute: ModelRoute;
  flags: RuntimeFlags;
  env: NodeJS.ProcessEnv;
  emit: EmitEvent;
  /** AGENTS.md / CLAUDE.md files for the main agent's system prompt (issue 16, B11). */
  instructions?: readonly InstructionsFile[];
  /**
   * Answers asks; absent means no user is present (headless). With it the session is live: a turn ends
   * without waiting for background work, whose results start a turn of their own (SPEC 7.3).
   */
  ask?: Asker;
  /**
   * Overrides the trust the config was loaded with (`loaded.projectTrusted`: the trusted roots or
   * `--trust-project`); until trusted, project allow rules never reach outside the project root.
   */
  projectTrusted?: boolean;
  /** Answers `question` and plan approvals; absent: the headless answers (SPEC 5). */
  user?: UserChannel;
  /** The directory the session was started from, for its record (default: the project root). */
  cwd?: string;
  store: SessionStore;
  /** The OS sandbox of every shell command; default: the one the config and `--safety` call for. */
  sandbox?: ShellSandbox;
  /** Replaces the writer view of the sandbox (tests of the worktree logic alone). */
  writerSandbox?: WriterSandbox;
  /** Replaces the SDK-backed model caller (tests of the core without HTTP). */
  modelCaller?: (route: ModelRoute, params: ModelParams) => Promise<ModelCaller>;
}

const DEFAULT_MAX_TURNS = 100;
/** Decided once while the first model call is out (its answer is not used). */
const WARM_BASH_CALL: PermissionCall = {
  tool: 'bash',
  subject: { kind: 'bash', command: 'cd src && ls -la | wc -l > out.txt' },
  safety: 'write',
  agent: 'main',
};
/** A model call unanswered this long leaves the process idle: long enough for the request to be written. */
const PARSER_WARM_DELAY_MS = 100;
/** How long the first turn waits for MCP servers still connecting; the rest join at a later turn. */
const MCP_STARTUP_GRACE_MS = 5000;

/** The prompt layer's mode drives a standing reminder (SPEC 4.1). */
const MODE_REMINDERS: Record<string, string> = {
  plan: planModeReminder.trim(),
  review: reviewModeReminder.trim(),
};

/**
 * One session of the main agent: the layered profile/prompt state, the permission gate and tool list it
 * implies, the model route, and the conversation. Every client (headless, TUI, web, ACP) drives this.
 */
export class AgentRuntime {
  readonly projectRoot: string;
  readonly permissionDenials: PermissionDenialRecord[] = [];
  private state: ActivationState;
  private view!: EffectiveView;
  private route!: ModelRoute;
  private gate!: CadrePermissionGate;
  /**
   * Every tool the session has, by name (calls to ones withheld from the model still get the gate's
   * reasoned denial); one live map, so a run picks up MCP changes.
   */
  private readonly toolMap = new Map<string, AnyTool>();
  private parserWarmed = false;
  private tools: AnyTool[] = [];
  private specs: ToolSpec[] = [];
  /** The MCP revision the tool list was computed at (issue 16, A5). */
  private mcpRevision = 0;
  /** The first turn waits a little for MCP servers; later ones take whatever is connected. */
  private mcpStartupWaited = false;
  private messages: ModelMessage[];
  private usage: TokenUsage = ZERO_USAGE;
  private cost: number | null = null;
  private turn: number;
  private currentSession: SessionRecord;
  private context: ToolContext;
  private readonly approvals: string[];
  private readonly lifetime = new AbortController();
  private mcp?: McpManager;
  private profiles: ProfileRegistry;
  private prompts: PromptSet;
  private planMode = false;
  private readonly user: UserChannel;
  /** The gate the loop holds: always the current composition, so plan mode applies mid-turn. */
  private readonly liveGate: PermissionGate = {
    visibleTools: (tools) => this.gate.visibleTools(tools),
    decide: (call) => this.gate.decide(call),
    approve: (rule) => this.gate.approve(rule),
  };
  readonly subagents: SubagentManager;
  private coordination?: Coordination;
  /** Who answers asks: the user, else `approval_provider` (when set and allowed), else the headless denial. */
  private readonly asker: Asker;
  /**
   * `approval_provider`'s asker when set (and allowed): with a user present, a client routes to it the
   * asks of background work, which no user is waiting on (issue 16 B7).
   */
  readonly approvalAsker: Asker | undefined;
  /** Critic, approval and session review (SPEC 4.3). */
  private readonly roles: SessionRoles;

  private constructor(
    private readonly options: RuntimeOptions,
    session: SessionRecord,
    history: ModelMessage[],
  ) {
    this.projectRoot = realpathSync(options.loaded.projectRoot);
    this.currentSession = session;
    this.profiles = options.profiles;
    this.prompts = options.prompts;
    this.user = options.user ?? headlessUser(options.flags.yes);
    this.roles = new SessionRoles({
      loaded: options.loaded,
      env: options.env,
      projectRoot: this.projectRoot,
      emit: options.emit,
      currentRoute: () => this.route,
      call: (agent, route, system, request, signal) => this.roleCall(agent, route, system, request, signal),
    });
    this.approvalAsker = this.roles.approvalAsker();
    this.asker = options.ask ?? this.approvalAsker ?? headlessAsker;
    this.messages = history;
    this.turn = options.store.lastTurn(session.id) ?? 0;
    this.approvals = options.store.approvals(session.id);
    this.sandbox = options.sandbox ?? this.openSandbox();
    this.context = createToolContext({
      root: this.projectRoot,
      agent: 'main',
      sessionId: session.id,
      sandbox: this.sandbox,
    });
    this.state = { base: { prompt: defaultSystemPrompt } };
    const runtime = this;
    this.subagents = new SubagentManager({
      projectRoot: this.projectRoot,
      sandbox: this.sandbox,
      config: options.loaded.config,
      env: options.env,
      get profiles() {
        return runtime.profiles;
      },
      mainRoute: options.mainRoute,
      get parentSessionId() {
        return runtime.currentSession.id;
      },
      store: options.store,
      parentGate: () => this.gate,
      childGateOptions: (profile) => gateOptionsFor({ ...this.gateInputs(), profile }),
      emit: options.emit,
      ask: this.asker,
      onDenied: (record) => this.permissionDenials.push(record),
      approvals: () => this.approvals,
      onApproved: (rule) => this.rememberApproval(rule),
      mcpTools: () => this.mcp?.tools() ?? [],
      modelCaller: (route, params) => this.modelCallerFor(route, params),
      parentMessages: () => this.messages,
      sessionSignal: this.lifetime.signal,
      writerSandbox: options.writerSandbox,
      mayDispatch: (name) => this.mayDispatch(name),
      instructions: options.instructions,
    });
    this.operator = options.flags.permissions ? readOperatorFile(options.flags.permissions) : undefined;
  }

  private readonly operator: { file: string; text: string } | undefined;
  /** A failed compaction is not retried every turn (issue 16, A8). */
  private readonly compactionBackoff = new CompactionBackoff();
  readonly sandbox: ShellSandbox;

  /** Throws ConfigError when the config requires bwrap and it does not work; warns once when unconfined. */
  private openSandbox(): ShellSandbox {
    const { loaded, flags, env, emit } = this.options;
    const settings = sandboxSettings(loaded, flags.safety, env);
    const { sandbox, warning } = openSandbox(settings, this.projectRoot, loaded.config.sandbox ?? 'auto');
    if (warning) emit({ type: 'warning', agent: 'main', message: warning });
    return sandbox;
  }

  private async modelCallerFor(route: ModelRoute, params: ModelParams): Promise<ModelCaller> {
    if (this.options.modelCaller) return this.options.modelCaller(route, params);
    return sdkModelCaller(await createLanguageModel(route), route, params);
  }

  /** Each configured MCP server and its state (connecting, connected, reconnecting, failed). */
  mcpStatus(): McpServerStatus[] {
    return this.mcp?.status() ?? [];
  }

  /** Settles once every MCP server has connected or failed (for callers that must have them all). */
  mcpSettled(): Promise<void> {
    return this.mcp?.ready ?? Promise.resolve();
  }

  /** Connects the configured MCP servers in the background; their tools join once connected. */
  async connectMcp(): Promise<void> {
    const servers = this.options.loaded.config.mcp_servers;
    if (!servers || Object.keys(servers).length === 0) return;
    const { startMcp } = await import('../mcp/manager.js');
    this.mcp = startMcp(servers, {
      cwd: this.projectRoot,
      onWarning: (message) => this.options.emit({ type: 'warning', agent: 'main', message }),
      signal: this.lifetime.signal,
    });
  }

  /** Opens or continues a session and applies `--agent`. Throws ConfigError for bad usage (exit 2). */
  static start(options: RuntimeOptions): AgentRuntime {
    const { store, flags, loaded } = options;
    let session: SessionRecord | undefined;
    if (flags.resume) {
      session = store.getSession(flags.resume);
      if (!session)
        throw new ConfigError(`unknown session "${flags.resume}" (see the session_id of an earlier run)`);
    } else if (flags.continue) {
      session = store.lastSession(realpathSync(loaded.projectRoot));
      if (!session) throw new ConfigError(`no earlier session to continue in ${loaded.projectRoot}`);
    }
    const created = session === undefined;
    session ??= store.createSession({
      projectRoot: realpathSync(loaded.projectRoot),
      cwd: options.cwd ?? realpathSync(loaded.projectRoot),
      agent: flags.agent,
      model: options.mainRoute.model,
    });
    try {
      const runtime = new AgentRuntime(options, session, store.loadMessages(session.id));
      if (flags.prompt) {
        const selected = runtime.selectPrompt(flags.prompt);
        if (!selected.ok) throw new ConfigError(selected.message);
      }
      if (flags.agent) {
        const change = runtime.activateProfile(flags.agent);
        if (!change.ok) throw new ConfigError(change.message);
      } else {
        runtime.recompute();
      }
      runtime.resolveCoordination();
      return runtime;
    } catch (error) {
      // A start that fails (bad operator file, malformed rule) leaves no empty session for --continue to find.
      if (created) store.deleteSession(session.id);
      throw error;
    }
  }

  /**
   * `subagent_dispatch_strategy` against the profiles this session may really dispatch (SPEC 8): throws
   * ConfigError for `full` without both tiers; warnings for the rest.
   */
  private resolveCoordination(): void {
    const coordination = resolveCoordination({
      configured: this.options.loaded.config.subagent_dispatch_strategy,
      profiles: [...this.profiles.profiles.values()],
      dispatchable: (profile) => this.mayDispatch(profile.name),
      toolsOf: (profile) => this.subagents.toolNamesOf(profile),
    });
    for (const message of coordination.warnings)
      this.options.emit({ type: 'warning', agent: 'main', message });
    this.coordination = coordination;
    this.subagents.setCoordination(coordination);
  }

  /** The coordination in force (SPEC 8). */
  get dispatchStrategy(): Coordination['strategy'] {
    return this.coordination?.strategy ?? 'off';
  }

  get session(): SessionRecord {
    return this.currentSession;
  }

  get activeProfile(): string | undefined {
    return this.view.activeProfile;
  }

  get activePrompt(): string | undefined {
    return this.view.activePrompt;
  }

  get effort(): Effort | undefined {
    return this.view.effort;
  }

  /** The floor in force: `--safety`, or read-only while plan mode is on. */
  get safety(): SafetyFloor {
    return this.planMode ? 'read-only' : this.options.flags.safety;
  }

  get inPlanMode(): boolean {
    return this.planMode;
  }

  get todos(): TodoItem[] {
    return this.context.todos.get();
  }

  /** The conversation as the model will see it next (plain JSON). */
  get conversation(): readonly ModelMessage[] {
    return this.messages;
  }

  get loadedConfig(): LoadedConfig {
    return this.options.loaded;
  }

  get profileRegistry(): ProfileRegistry {
    return this.profiles;
  }

  get promptSet(): PromptSet {
    return this.prompts;
  }

  get modelRoute(): ModelRoute {
    return this.route;
  }

  get systemPrompt(): string {
    return this.systemText();
  }

  get toolNames(): string[] {
    return this.tools.map((t) => t.name);
  }

  /** Tokens and cost of the session so far, the subagents' rolled up with the main agent's (SPEC 7.4). */
  get totals(): { usage: TokenUsage; costUsd: number | null } {
    let usage = this.usage;
    let costUsd = this.cost;
    for (const task of this.subagents.list()) {
      usage = addUsage(usage, task.usage);
      if (task.costUsd !== null) costUsd = (costUsd ?? 0) + task.costUsd;
    }
    return { usage, costUsd };
  }

  knownProfiles(): string[] {
    return profileNames(this.profiles);
  }

  /** `/agent <name>`: unknown names leave everything as it was. */
  activateProfile(name: string): LayerChange {
    return this.applyChange(activateProfile(this.state, name, this.profiles));
  }

  /** `/agent off`: prompt body, denies, model, effort and temperature come back in one step. */
  deactivateProfile(): void {
    this.state = deactivateProfile(this.state);
    this.recompute();
  }

  /** `/prompt <name>` or `/prompt default`. */
  selectPrompt(name: string): LayerChange {
    return this.applyChange(selectPrompt(this.state, name, this.prompts.prompts));
  }

  /**
   * `/model <alias|name>` and `/effort <level>`: set on the top layer (see overrideSettings). A model
   * reference that cannot be routed (an alias whose key is not set) changes nothing.
   */
  override(settings: { model?: string; effort?: Effort }): { ok: true } | { ok: false; message: string } {
    const previous = this.state;
    this.state = overrideSettings(this.state, settings);
    try {
      this.recompute();
      return { ok: true };
    } catch (error) {
      this.state = previous;
      this.recompute();
      if (error instanceof ConfigError) return { ok: false, message: error.message };
      throw error;
    }
  }

  /**
   * `/agents reload`: new profile and prompt sets. The active profile (and prompt) stay on in their new
   * definition when they still exist, else they are turned off; the `task` enum follows from the next turn.
   */
  reloadProfiles(profiles: ProfileRegistry, prompts: PromptSet): string[] {
    const notes: string[] = [];
    this.profiles = profiles;
    this.prompts = prompts;
    const { profileLayer, promptLayer } = this.state;
    let state = this.state;
    if (profileLayer) {
      const fresh = profiles.profiles.get(profileLayer.name);
      state = deactivateProfile(state);
      if (fresh) state = { ...state, profileLayer: fresh };
      else notes.push(`profile "${profileLayer.name}" no longer exists: /agent off`);
    }
    if (promptLayer) {
      const fresh = prompts.prompts.get(promptLayer.name);
      state = { ...state, promptLayer: fresh };
      if (!fresh) notes.push(`prompt "${promptLayer.name}" no longer exists: /prompt default`);
    }
    this.state = state;
    this.recompute();
    try {
      this.resolveCoordination();
    } catch (error) {
      if (!(error instanceof ConfigError)) throw error;
      notes.push(`${error.message}; the coordination in force is kept`);
    }
    return notes;
  }

  /** `/why <tool>(<input>)`: the current gate's decision with its trace, as `permissions explain` prints it. */
  explain(spec: string): Promise<PermissionDecision> {
    return this.gate.decide(callFromSpec(spec));
  }

  /** Background results (or other queued reminders) the main agent has not seen yet. */
  hasPendingReminders(): boolean {
    return this.subagents.pendingReminders().length > 0;
  }

  /**
   * `/clear`: a fresh conversation in a new session record; layers, approvals and running subagents stay.
   */
  clear(): SessionRecord {
    const previous = this.currentSession;
    const session = this.options.store.createSession({
      projectRoot: previous.projectRoot,
      cwd: previous.cwd,
      agent: this.view.activeProfile,
      model: this.route.model,
    });
    for (const rule of this.approvals) this.options.store.addApproval(session.id, rule);
    this.currentSession = session;
    this.messages = [];
    this.turn = 0;
    this.context = { ...this.context, sessionId: session.id, todos: createTodoStore() };
    return session;
  }

  /** `/compact`: summarize the older part of the conversation now; undefined when there is too little. */
  async compactNow(signal: AbortSignal): Promise<{ before: number; after: number } | undefined> {
    const split = compactionSplit(this.messages);
    if (split === undefined) return undefined;
    const summary = await this.summarize(transcriptOf(this.messages.slice(0, split)), signal);
    const before = this.messages.length;
    this.messages = withSummary(summary.trim(), this.messages.slice(split));
    this.options.emit({
      type: 'compaction',
      agent: 'main',
      messagesBefore: before,
      messagesAfter: this.messages.length,
    });
    return { before, after: this.messages.length };
  }

  private readonly planModeHost: PlanMode = {
    active: () => this.planMode,
    enter: () => this.setPlanMode(true),
    exit: () => this.setPlanMode(false),
  };

  private setPlanMode(active: boolean): void {
    this.planMode = active;
    this.recompute();
    this.options.emit({ type: 'plan_mode', agent: 'main', active });
  }

  private applyChange(change: LayerChange): LayerChange {
    if (change.ok) {
      this.state = change.state;
      this.recompute();
      for (const warning of change.warnings)
        this.options.emit({ type: 'warning', agent: 'main', message: warning });
    }
    return change;
  }

  /** The one place the effective session is derived from the layers (SPEC 4.1). */
  private recompute(): void {
    const { loaded, flags, env, mainRoute } = this.options;
    const view = effectiveView(this.state, this.profiles);
    // An explicit --model beats the active profile's model for the main agent (issue 16, B3).
    this.route =
      view.model && !flags.model
        ? resolveModelReference(
            view.model,
            mainRoute,
            loaded.config,
            env,
            isImportedSource(this.state.profileLayer?.source),
          )
        : mainRoute;
    this.view = view;
    this.gate = composeGate({
      ...this.gateInputs(),
      safety: this.safety,
      profile: this.state.profileLayer,
      prompt: this.state.promptLayer,
      approvals: this.approvals,
    });
    this.warnOnce(this.gate.warnings);
    const universe = this.universe();
    const visible = new Set(this.gate.visibleTools(universe));
    this.toolMap.clear();
    for (const tool of universe) this.toolMap.set(tool.name, tool);
    this.mcpRevision = this.mcp?.revision() ?? 0;
    this.tools = universe.filter((t) => visible.has(t.name));
    this.specs = toolSpecsFor(this.tools);
  }

  /**
   * The tool list for the next model call. MCP changes (a server connected, died or came back) are taken
   * in here, between turns only, so the list stays byte-identical while the MCP set is unchanged.
   */
  private specsAtTurnBoundary(): ToolSpec[] {
    if (this.mcp && this.mcp.revision() !== this.mcpRevision) this.recompute();
    return this.specs;
  }

  private universe(): AnyTool[] {
    const skills = this.profiles.skills;
    const skillTools = skills.length > 0 ? [createSkillTool(() => this.profiles.skills)] : [];
    const task = createTaskTool(this.subagents, this.usableProfiles());
    return [
      ...parentReserved(
        builtinTools(this.projectRoot),
        (claim) => this.subagents.schedulerState.reserveMomentarily(claim),
        this.projectRoot,
      ),
      ...skillTools,
      task,
      createTaskStatusTool(this.subagents),
      createFleetTool(this.subagents),
      createQuestionTool(this.user),
      createPlanEnterTool(this.planModeHost),
      createPlanExitTool(this.planModeHost, this.user),
      ...(this.mcp?.tools() ?? []),
    ];
  }

  /** Profiles the `task` tool may name: those no rule denies as `task(<name>)` (SPEC 7.1). */
  private usableProfiles() {
    return [...this.profiles.profiles.values()].filter((profile) => this.mayDispatch(profile.name));
  }

  private mayDispatch(name: string): boolean {
    return (
      this.gate.decideAnalysed({
        call: { tool: 'task', subject: { kind: 'name', value: name }, safety: 'read', agent: 'main' },
      }).action !== 'deny'
    );
  }

  private systemText(): string {
    const environment = `Environment: the project root is ${this.projectRoot}; platform ${process.platform}.`;
    const mode = MODE_REMINDERS[this.view.mode] ?? '';
    const contract = this.coordination ? coordinatorContract(this.coordination) : '';
    const instructions = instructionsSection(this.options.instructions ?? []);
    return [this.view.systemPrompt, instructions, mode, contract, this.view.skillCatalog, environment]
      .filter((s) => s !== '')
      .join('\n\n');
  }

  /** Runs one user message to completion; files it names with `@path` are attached through a gated `read`. */
  async prompt(text: string, signal: AbortSignal = new AbortController().signal): Promise<LoopResult> {
    return this.runTurn({ role: 'user', content: await this.attachMentionedFiles(text, signal) }, signal);
  }

  /** Each `@path` file read as the main agent would read it (the gate decides, asks reach the user). */
  private async attachMentionedFiles(text: string, signal: AbortSignal): Promise<string> {
    const paths = mentionedFiles(text, this.projectRoot);
    if (paths.length === 0) return text;
    const outcomes = await runToolCalls(attachmentCalls(paths), {
      agent: 'main',
      tools: this.toolMap,
      gate: this.liveGate,
      ask: this.asker,
      context: { ...this.context, signal },
      emit: this.options.emit,
      onDenied: (record) => this.permissionDenials.push(record),
      onApproved: (rule) => this.rememberApproval(rule),
    });
    return withAttachments(text, outcomes);
  }

  /**
   * A turn nobody typed: the pending reminders (background results) are delivered and the main agent
   * goes on from them (SPEC 7.3). Nothing pending: nothing runs.
   */
  resume(signal: AbortSignal = new AbortController().signal): Promise<LoopResult> {
    return this.runTurn(undefined, signal);
  }

  private async runTurn(userMessage: ModelMessage | undefined, signal: AbortSignal): Promise<LoopResult> {
    const { store, emit } = this.options;
    if (!userMessage && !this.hasPendingReminders()) {
      return { text: '', messages: this.messages, usage: ZERO_USAGE, turns: 0, stopReason: 'completed' };
    }
    const route = this.route;
    const params: ModelParams = { effort: this.view.effort, temperature: this.view.temperature };
    const callModel = await this.modelCallerFor(route, params);
    if (this.mcp && !this.mcpStartupWaited) {
      // Fast servers make the first turn; one that hangs delays it by the grace at most (SPEC 14).
      this.mcpStartupWaited = true;
      await this.mcp.readyWithin(MCP_STARTUP_GRACE_MS);
      this.recompute();
    }
    const runSignal = AbortSignal.any([signal, this.lifetime.signal]);
    const turnBase = this.turn;
    const session = this.currentSession;
    if (userMessage) store.appendMessages(session.id, [userMessage], turnBase);
    emit({
      type: 'session_start',
      agent: 'main',
      sessionId: session.id,
      model: describeRoute(route),
      profile: this.view.activeProfile,
    });
    if (userMessage) await this.roles.beforePrompt(userMessage);
    // Kept current turn by turn: subagents dispatched mid-run build their facts pack from it.
    if (userMessage) this.messages = [...this.messages, userMessage];
    let result: LoopResult;
    try {
      result = await this.runLoop(route, callModel, runSignal, turnBase);
      this.messages = result.messages;
      this.turn = turnBase + result.turns;
      if (userMessage) result = await this.criticPass(userMessage, result, route, callModel, runSignal);
    } catch (error) {
      store.updateSession(session.id, { status: 'failed' });
      throw error;
    }
    store.updateSession(session.id, {
      status:
        result.stopReason === 'completed'
          ? 'completed'
          : result.stopReason === 'cancelled'
            ? 'cancelled'
            : 'failed',
      agent: this.view.activeProfile ?? null,
      model: route.model,
    });
    return result;
  }

  /**
   * Runs a profile as a real isolated subagent on `task` (SPEC 11) through the same dispatch, scheduler
   * and task record as the `task` tool. The conversation keeps the task and the child's final answer,
   * not the child's working context. Rejects with a SubagentError when the task cannot start.
   */
  async delegate(request: DelegateRequest, signal: AbortSignal): Promise<LiveTask> {
    const { store } = this.options;
    // MCP grants are checked against the live tool set, waited for as at the start of a prompt.
    await this.mcp?.readyWithin(MCP_STARTUP_GRACE_MS);
    const task = await this.subagents.runToEnd(
      { prompt: request.task, agent: request.profile, max_steps: request.maxSteps },
      AbortSignal.any([signal, this.lifetime.signal]),
      { readOnlyRunner: request.readOnly, defaultModel: request.model },
    );
    const answer =
      task.state === 'completed'
        ? (task.result ?? '')
        : `[${request.profile} ${task.state.replace('_', ' ')}: ${task.error ?? 'no reason given'}]`;
    const added: ModelMessage[] = [
      { role: 'user', content: request.task },
      { role: 'assistant', content: answer },
    ];
    store.appendMessages(this.session.id, added, this.turn);
    this.turn += 1;
    this.messages = [...this.messages, ...added];
    store.updateSession(this.session.id, { status: task.state === 'completed' ? 'completed' : 'failed' });
    return task;
  }

  /**
   * The bash parser's WASM, the warm sandbox server, what other tools load on first use, the tools' input
   * schemas, Node's stream internals a reply passes and the provider SDK's request and reply path are
   * loaded while a model call keeps the process waiting (issue 17): a call unanswered for a little while,
   * so the request leaves first and a model that answers at once never shares the main thread with them;
   * the tools' first calls load what was not warmed, and a run that ends on a quick answer (`cadre -p hi`)
   * starts no sandbox.
   */
  private warmingWith(callModel: ModelCaller, route: ModelRoute): ModelCaller {
    const bash = this.tools.some((t) => t.name === 'bash');
    const warms = this.tools.filter((t) => t.warm !== undefined);
    if (this.parserWarmed || (!bash && warms.length === 0)) return callModel;
    return warmWhileWaiting(
      callModel,
      () => {
        this.parserWarmed = true;
        if (bash) {
          // A whole decision on a command of the usual shape: the analyser's modules, the parser's WASM and
          // the code of the gate's first bash decision are loaded and compiled now, not on the first call.
          this.gate.decide(WARM_BASH_CALL).catch(() => undefined);
          // The first bash call then finds its warm sandbox server started.
          prewarmShell(this.sandbox);
        }
        // Failures are left to the tool's first call to report.
        for (const tool of warms) tool.warm?.().catch(() => undefined);
        // Each tool's input schema is built by its first use, which a first call's turn would pay for: the
        // (failing) parse of an empty input builds it and runs its parser's code once.
        for (const tool of this.tools) tool.schema.safeParse({});
        // Only cadre's own SDK caller answers the canned reply without a network (its streams include those
        // warmNodeInternals makes); an injected caller is left alone.
        const warmed = this.options.modelCaller
          ? warmNodeInternals()
          : warmModelPath(callModel, { system: this.systemText(), tools: this.specs }, route.type);
        warmed.catch(() => undefined);
      },
      PARSER_WARM_DELAY_MS,
    );
  }

  private runLoop(
    route: ModelRoute,
    callModel: ModelCaller,
    runSignal: AbortSignal,
    turnBase: number,
  ): Promise<LoopResult> {
    const { store, emit, flags } = this.options;
    return runAgentLoop({
      agent: 'main',
      callModel: this.warmingWith(callModel, route),
      system: this.systemText(),
      messages: this.messages,
      toolSpecs: () => this.specsAtTurnBoundary(),
      tools: {
        tools: this.toolMap,
        gate: this.liveGate,
        ask: this.asker,
        context: { ...this.context, signal: runSignal },
        onDenied: (record) => this.permissionDenials.push(record),
        onApproved: (rule) => this.rememberApproval(rule),
      },
      maxTurns: flags.maxTurns ?? DEFAULT_MAX_TURNS,
      emit: recordingToolCalls(emit, store, { agent: 'main', sessionId: this.session.id, turnBase }),
      signal: runSignal,
      compact: (messages, lastInputTokens) =>
        compactIfNeeded(messages, lastInputTokens, {
          contextWindow: route.contextWindow ?? contextWindowOf(route.model),
          summarize: (transcript) => this.summarize(transcript, runSignal),
          backoff: this.compactionBackoff,
        }).catch((error: unknown) => {
          // Compaction is an optimisation: when it fails the run goes on with the whole conversation.
          emit({
            type: 'warning',
            agent: 'main',
            message: `context compaction failed, continuing without it: ${(error as Error).message}`,
          });
          return undefined;
        }),
      escalation: this.escalation(),
      reminders: {
        pending: () => this.subagents.pendingReminders(),
        delivered: (ids) => this.subagents.remindersDelivered(ids),
        // A live session ends the turn and is resumed by the result; a headless run waits for it.
        wait: async (s) =>
          this.options.ask ? this.hasPendingReminders() : this.subagents.waitForReminders(s),
      },
      costOf: (usage) => costOf(route.model, usage),
      onTurnCommitted: (added, turn, usage) => {
        const cost = costOf(route.model, usage);
        store.commitTurn(this.currentSession.id, turnBase + turn, added, {
          ...usage,
          costUsd: cost ?? undefined,
        });
        this.messages = [...this.messages, ...added];
        this.usage = addUsage(this.usage, usage);
        if (cost !== null) this.cost = (this.cost ?? 0) + cost;
      },
    });
  }

  /** "Always allow": kept for the session (and its subagents), in every recomputed gate and in the store. */
  /** What every gate of this session is composed from, besides the layer state and approvals. */
  private gateInputs(): GateInputs {
    const { loaded, flags } = this.options;
    return {
      loaded,
      root: this.projectRoot,
      safety: flags.safety,
      yes: flags.yes,
      // With approval_provider the asks reach its asker instead of being denied in the gate.
      headless: !this.options.ask && !flags.yes && this.asker === headlessAsker,
      operator: this.operator,
      projectTrusted: this.options.projectTrusted ?? this.options.loaded.projectTrusted,
    };
  }

  /** Composition warnings (a project rule lifting a global deny, …) reach the user once per session. */
  private warnOnce(warnings: readonly string[]): void {
    for (const message of warnings) {
      if (this.warned.has(message)) continue;
      this.warned.add(message);
      this.options.emit({ type: 'warning', agent: 'main', message });
    }
  }

  private readonly warned = new Set<string>();

  private rememberApproval(rule: string): void {
    if (!this.approvals.includes(rule)) this.approvals.push(rule);
    this.gate.approve(rule);
    this.options.store.addApproval(this.currentSession.id, rule);
  }

  /** Context compaction runs on `summarization_provider`, else the model in use. */
  private async summarize(transcript: string, signal: AbortSignal): Promise<string> {
    const route = this.roles.route('summarization_provider') ?? this.route;
    const result = await this.roleCall('summarizer', route, compactionPrompt, transcript, signal);
    if (result.stopReason !== 'completed') throw new Error(`context compaction failed: ${result.error}`);
    return result.text;
  }

  /** One toolless model call of a role (SPEC 4.3): bookkeeping, so only retries and problems are shown. */
  private async roleCall(
    agent: string,
    route: ModelRoute,
    system: string,
    request: string,
    signal: AbortSignal,
  ): Promise<LoopResult> {
    return runAgentLoop({
      agent,
      callModel: await this.modelCallerFor(route, {}),
      system,
      messages: [{ role: 'user', content: request }],
      toolSpecs: [],
      tools: { tools: new Map(), gate: this.gate, ask: headlessAsker, context: this.context },
      maxTurns: 1,
      emit: (event) => {
        if (event.type === 'retry' || event.type === 'warning' || event.type === 'error')
          this.options.emit(event);
      },
      signal,
      costOf: (usage) => costOf(route.model, usage),
    });
  }

  /**
   * The critic reads the final answer before it is returned; on a rejection the main agent gets one more
   * run with the critique, whose answer stands (SPEC 4.3, issue 16 B7).
   */
  private async criticPass(
    userMessage: ModelMessage,
    result: LoopResult,
    route: ModelRoute,
    callModel: ModelCaller,
    signal: AbortSignal,
  ): Promise<LoopResult> {
    const verdict = await this.roles.judge(userMessage, result, signal);
    if (verdict?.verdict !== 'reject') return result;
    const critique = this.roles.revisionMessage(verdict);
    const turnBase = this.turn;
    this.options.store.appendMessages(this.currentSession.id, [critique], turnBase);
    this.messages = [...this.messages, critique];
    const revised = await this.runLoop(route, callModel, signal, turnBase);
    this.messages = revised.messages;
    this.turn = turnBase + revised.turns;
    return { ...revised, turns: result.turns + revised.turns, usage: addUsage(result.usage, revised.usage) };
  }

  /** The critic's verdict on the last answer (`critic` in the JSON result); undefined when off. */
  get critic(): CriticVerdict | undefined {
    return this.roles.critic;
  }

  /** Asks `approval_provider` decided; undefined when no approval provider answers this session's asks. */
  get approvalRecords(): ApprovalRecord[] | undefined {
    return this.asker !== headlessAsker && this.options.ask === undefined ? this.roles.approvals : undefined;
  }

  /**
   * With `session_review: true`, `review_provider` (else the main provider) reviews what the session
   * changed in the project (SPEC 4.3); undefined when the review is off or could not run.
   */
  reviewSession(signal: AbortSignal = new AbortController().signal): Promise<SessionReview | undefined> {
    return this.roles.review(signal);
  }

  /** One turn on `escalation_provider` after repeated unusable tool input, when that role is configured. */
  private escalation() {
    const route = this.roles.route('escalation_provider', true);
    if (!route) return undefined;
    const params: ModelParams = { effort: this.view.effort, temperature: this.view.temperature };
    return { afterTurns: 2, label: describeRoute(route), caller: () => this.modelCallerFor(route, params) };
  }

  /** Cancels what is still running, waits for it to be recorded, then releases processes and servers. */
  close(): Promise<void> {
    this.closing ??= (async () => {
      this.subagents.cancelAll('the session was closed');
      await this.subagents.settled();
      await this.subagents.closeBackend();
      this.lifetime.abort(new Error('session closed'));
      this.context.jobs.killAll();
      if (!this.options.sandbox) closeSandbox(this.sandbox);
      await this.mcp?.close();
      await this.roles.dispose();
    })();
    return this.closing;
  }

  private closing?: Promise<void>;
}
