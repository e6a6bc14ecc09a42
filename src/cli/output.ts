import type { ApprovalRecord } from '../agent/approval-asker.js';
import type { CriticVerdict } from '../agent/critic.js';
import type { AgentEvent } from '../agent/events.js';
import { reviewText, type SessionReview } from '../agent/session-review.js';
import type { PermissionDenialRecord } from '../agent/tool-runner.js';
import type { TokenUsage } from '../provider/pricing.js';
import type { WriterReport } from '../subagent/reconciliation.js';

export type OutputFormat = 'text' | 'json' | 'stream-json';

export interface SubagentSummary {
  id: string;
  profile: string | null;
  description: string;
  status: string;
  background: boolean;
  session_id: string | null;
  model: string;
  usage: { input_tokens: number; output_tokens: number };
  cost_usd: number | null;
  /** The coordinator batch it ran in (SPEC 8). */
  batch_id?: string;
  /** The fleet and item it ran (SPEC 10); `skipped`: it never started. */
  fleet_id?: string;
  fleet_item?: string;
  skipped?: boolean;
}

export interface RunSummary {
  result: string;
  session_id: string;
  is_error: boolean;
  error?: string;
  stop_reason: string;
  num_turns: number;
  duration_ms: number;
  model: string;
  usage: {
    input_tokens: number;
    output_tokens: number;
    cached_input_tokens: number;
    reasoning_tokens: number;
  };
  cost_usd: number | null;
  subagents: SubagentSummary[];
  permission_denials: PermissionDenialRecord[];
  /** Asks `approval_provider` decided, each with its reason (SPEC 4.3); present when it is set. */
  approvals?: ApprovalRecord[];
  /** `critic_provider`'s verdict on the answer; present when it is set. */
  critic?: CriticVerdict;
  /** `review_provider`'s findings on the session's diff; present with `session_review: true`. */
  review?: SessionReview;
  /** `cadre subagent run` of a readwrite profile: where it wrote and what is left of its worktree (SPEC 9). */
  writer?: WriterReport;
}

export function usageJson(usage: TokenUsage): RunSummary['usage'] {
  return {
    input_tokens: usage.inputTokens,
    output_tokens: usage.outputTokens,
    cached_input_tokens: usage.cachedInputTokens,
    reasoning_tokens: usage.reasoningTokens,
  };
}

interface Writer {
  write(chunk: string): unknown;
}

/** Turns runtime events into one of the headless output formats (SPEC 1). */
export class HeadlessPrinter {
  constructor(
    private readonly format: OutputFormat,
    private readonly stdout: Writer,
    private readonly stderr: Writer,
  ) {}

  event(event: AgentEvent): void {
    if (this.format === 'stream-json') {
      this.stdout.write(`${JSON.stringify(event)}\n`);
      return;
    }
    // Text and json keep stdout for the answer; what the user should still see goes to stderr.
    switch (event.type) {
      case 'retry':
        this.stderr.write(
          `cadre: model call failed (${event.cause}); retrying in ${(event.delayMs / 1000).toFixed(1)} s (retry ${event.attempt} of ${event.maxAttempts - 1})\n`,
        );
        break;
      case 'warning':
        this.stderr.write(`cadre: warning: ${event.message}\n`);
        break;
      case 'error':
        this.stderr.write(`cadre: ${event.message}\n`);
        break;
      case 'critic': {
        const { verdict } = event;
        const critique = verdict.critique ? `\n${verdict.critique}` : '';
        this.stderr.write(`cadre: critic (${verdict.provider}): ${verdict.verdict}${critique}\n`);
        break;
      }
      case 'review':
        this.stderr.write(`cadre: ${reviewText(event.review)}\n`);
        break;
      default:
        break;
    }
  }

  summary(summary: RunSummary): void {
    if (this.format === 'json') {
      this.stdout.write(`${JSON.stringify(summary)}\n`);
    } else if (this.format === 'stream-json') {
      this.stdout.write(`${JSON.stringify({ type: 'result', ...summary })}\n`);
    } else {
      if (summary.result)
        this.stdout.write(summary.result.endsWith('\n') ? summary.result : `${summary.result}\n`);
      if (summary.is_error && summary.error) this.stderr.write(`cadre: ${summary.error}\n`);
    }
  }
}
