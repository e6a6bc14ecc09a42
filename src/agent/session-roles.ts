import type { ModelMessage } from 'ai';
import type { LoadedConfig } from '../config/load.js';
import { type RoleKey, resolveRoles } from '../profile/roles.js';
import { aliasRoute, type ModelRoute } from '../provider/route.js';
import { type ApprovalRecord, approvalAsker } from './approval-asker.js';
import { type CriticVerdict, criticRequest, critiqueMessage, messageText, parseVerdict } from './critic.js';
import type { EmitEvent } from './events.js';
import type { LoopResult } from './loop.js';
import approvalPrompt from './prompts/approval.txt';
import criticPrompt from './prompts/critic.txt';
import sessionReviewPrompt from './prompts/session-review.txt';
import { reviewRequest, type SessionReview, WorkTreeSnapshot } from './session-review.js';
import type { Asker } from './tool-runner.js';

export interface RoleHost {
  loaded: LoadedConfig;
  env: NodeJS.ProcessEnv;
  projectRoot: string;
  emit: EmitEvent;
  /** The main agent's route now (roles that fall back to `provider` follow an active profile's model). */
  currentRoute(): ModelRoute;
  /** One toolless model call on `route` under `system`. */
  call(
    agent: string,
    route: ModelRoute,
    system: string,
    request: string,
    signal: AbortSignal,
  ): Promise<LoopResult>;
}

/**
 * The built-in roles beside the main loop (SPEC 4.3, issue 16 B7): the critic of final answers, the
 * approver of asks no user can answer, and the end-of-session reviewer. Compaction and escalation take
 * only their routes from here.
 */
export class SessionRoles {
  /** Asks `approval_provider` decided, in order. */
  readonly approvals: ApprovalRecord[] = [];
  /** The critic's verdict on the last answer; undefined when off or not reached. */
  critic?: CriticVerdict;
  private reviewBase?: Promise<WorkTreeSnapshot | undefined>;
  private readonly tasks: string[] = [];

  constructor(private readonly host: RoleHost) {}

  /** The alias a role runs on; undefined when off (or, with `onlyConfigured`, when not set itself). */
  private alias(key: RoleKey, onlyConfigured = false): string | undefined {
    const role = resolveRoles(this.host.loaded.config).routes.find((r) => r.key === key);
    if (!role?.effective || (onlyConfigured && role.via !== 'configured')) return undefined;
    return role.effective;
  }

  /** A role's route when the role is routed to a provider alias; undefined when off. */
  route(key: RoleKey, onlyConfigured = false): ModelRoute | undefined {
    const alias = this.alias(key, onlyConfigured);
    return alias === undefined ? undefined : aliasRoute(this.host.loaded.config, alias, this.host.env);
  }

  private warn(message: string): void {
    this.host.emit({ type: 'warning', agent: 'main', message });
  }

  // ── critic ────────────────────────────────────────────────────────────────────────────────────────

  /**
   * `critic_provider` reads the task and the final answer before it is returned. Returns the verdict,
   * or undefined when the critic is off, the run did not complete, or the critic failed (a warning).
   */
  async judge(
    userMessage: ModelMessage,
    result: LoopResult,
    signal: AbortSignal,
  ): Promise<CriticVerdict | undefined> {
    this.critic = undefined;
    const alias = this.host.loaded.config.critic_provider;
    const route = this.route('critic_provider', true);
    if (!alias || !route || result.stopReason !== 'completed') return undefined;
    const request = criticRequest(messageText(userMessage), result.text);
    const reply = await this.host.call('critic', route, criticPrompt, request, signal);
    if (reply.stopReason !== 'completed') {
      this.warn(`critic_provider ${alias} failed, the answer is returned unreviewed: ${reply.error}`);
      return undefined;
    }
    const parsed = parseVerdict(reply.text);
    this.critic = { ...parsed, provider: alias, model: route.model, revised: false };
    this.host.emit({ type: 'critic', agent: 'main', verdict: this.critic });
    if (parsed.verdict === 'unclear')
      this.warn(`critic_provider ${alias} named no verdict; the answer stands`);
    return this.critic;
  }

  /** The message giving the main agent its one more turn after a rejection. */
  revisionMessage(verdict: CriticVerdict): ModelMessage {
    verdict.revised = true;
    return critiqueMessage(verdict.critique);
  }

  // ── approval ──────────────────────────────────────────────────────────────────────────────────────

  /** The asker for asks no user can answer, when `approval_provider` is set (by the user or a trusted project). */
  approvalAsker(): Asker | undefined {
    const { loaded, env } = this.host;
    // An untrusted project's config cannot set it: the config loader leaves the key out (SPEC 6.4).
    const alias = loaded.config.approval_provider ?? undefined;
    if (!alias) return undefined;
    const route = aliasRoute(loaded.config, alias, env);
    if (!route) {
      this.warn(
        `approval_provider: unknown provider alias "${alias}"; asks are denied as in any headless run`,
      );
      return undefined;
    }
    return approvalAsker({
      provider: alias,
      decide: async (request, signal) => {
        const reply = await this.host.call('approval', route, approvalPrompt, request, signal);
        if (reply.stopReason !== 'completed') throw new Error(reply.error ?? reply.stopReason);
        return reply.text;
      },
      record: (record) => this.approvals.push(record),
    });
  }

  // ── session review ────────────────────────────────────────────────────────────────────────────────

  /**
   * Called before the model runs on each user message: with `session_review: true` the first one takes
   * the snapshot the review diffs against, so the review sees every change the session makes.
   */
  async beforePrompt(userMessage: ModelMessage): Promise<void> {
    if (this.host.loaded.config.session_review !== true) return;
    this.reviewBase ??= WorkTreeSnapshot.take(this.host.projectRoot).catch((error: unknown) => {
      this.warn(`session_review: cannot snapshot the project, no review: ${(error as Error).message}`);
      return undefined;
    });
    await this.reviewBase;
    this.tasks.push(messageText(userMessage));
  }

  /**
   * `review_provider` (else the main provider) reviews what the session changed (SPEC 4.3); undefined
   * when the review is off or could not run. A later prompt starts a new review period.
   */
  async review(signal: AbortSignal): Promise<SessionReview | undefined> {
    const base = await this.reviewBase;
    this.reviewBase = undefined;
    const tasks = this.tasks.splice(0);
    if (!base) return undefined;
    try {
      const { files, diff } = await base.diff();
      let review: SessionReview = { files, findings: 'no changes to review' };
      if (files.length > 0) {
        const roleRoute = this.route('review_provider');
        const route = roleRoute ?? this.host.currentRoute();
        const reply = await this.host.call(
          'review',
          route,
          sessionReviewPrompt,
          reviewRequest(tasks, diff),
          signal,
        );
        if (reply.stopReason !== 'completed') {
          this.warn(`session review failed: ${reply.error}`);
          return undefined;
        }
        review = {
          provider: roleRoute && this.alias('review_provider'),
          model: route.model,
          files,
          findings: reply.text.trim(),
        };
      }
      this.host.emit({ type: 'review', agent: 'main', review });
      return review;
    } finally {
      base.dispose();
    }
  }

  async dispose(): Promise<void> {
    (await this.reviewBase)?.dispose();
    this.reviewBase = undefined;
  }
}
