import type { PermissionAsk } from '../permission/types.js';
import type { Asker } from './tool-runner.js';

/** One ask `approval_provider` decided (`approvals` in the JSON result, issue 16 B7). */
export interface ApprovalRecord {
  agent: string;
  tool: string;
  input: unknown;
  approved: boolean;
  reason: string;
  /** The `providers` alias that decided. */
  provider: string;
}

const NOT_APPROVABLE =
  'no user is present to approve it (headless run; neither --yes nor approval_provider approves a path outside the project or code cadre cannot see: only an allow rule does)';

const ANSWER =
  /^[\s*#>_`-]*(approved|approve|allowed|allow|denied|deny|rejected|reject)\b[\s*_`]*[:=-]?\s*(.*)$/i;

/** `APPROVE: reason` / `DENY: reason` on the first non-empty line; anything else is no decision (a deny). */
export function parseApproval(reply: string): { approved: boolean; reason: string } {
  const first = reply.trim().split(/\r?\n/)[0] ?? '';
  const match = ANSWER.exec(first);
  if (!match)
    return { approved: false, reason: `the approval model gave no decision: ${first.slice(0, 200)}` };
  const approved = /^(approved?|allow(ed)?)$/i.test(match[1]);
  return { approved, reason: match[2].trim() || (approved ? 'approved' : 'denied') };
}

/** What the approval model reads about one ask. */
export function approvalRequest(ask: PermissionAsk): string {
  return JSON.stringify(
    { agent: ask.agent, tool: ask.tool, input: ask.input, why_asked: ask.decision.reason },
    null,
    2,
  );
}

export interface ApprovalAskerDeps {
  provider: string;
  /** One call of the approval model; rejects when it fails. */
  decide: (request: string, signal: AbortSignal) => Promise<string>;
  record: (record: ApprovalRecord) => void;
}

/**
 * Answers the asks no user can answer (headless) through `approval_provider`. Only what `--yes` could
 * approve reaches the model: an outside-project path or code cadre cannot see gets the headless denial,
 * and floors and deny rules never ask at all. A failed or unclear answer denies.
 */
export function approvalAsker(deps: ApprovalAskerDeps): Asker {
  return async (ask, signal) => {
    if (ask.decision.yesApprovable !== true) return { kind: 'deny_feedback', feedback: NOT_APPROVABLE };
    let verdict: { approved: boolean; reason: string };
    try {
      verdict = parseApproval(await deps.decide(approvalRequest(ask), signal));
    } catch (error) {
      verdict = { approved: false, reason: `the approval model failed: ${(error as Error).message}` };
    }
    deps.record({
      agent: ask.agent,
      tool: ask.tool,
      input: ask.input,
      approved: verdict.approved,
      reason: verdict.reason,
      provider: deps.provider,
    });
    if (verdict.approved) return { kind: 'allow_once' };
    return {
      kind: 'deny_feedback',
      feedback: `approval_provider ${deps.provider} denied it: ${verdict.reason}`,
    };
  };
}
