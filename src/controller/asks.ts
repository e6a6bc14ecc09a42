import { randomUUID } from 'node:crypto';
import type { Asker } from '../agent/tool-runner.js';
import type { PlanVerdict, QuestionAnswer, UserChannel } from '../agent/user-channel.js';
import type { AskAnswer } from '../permission/types.js';
import type { EventTracker } from './tracker.js';
import type { ControllerOnlyEvent, PendingAsk, UserAnswer } from './types.js';

type NewAsk = { id: string; agent: string } & (
  | Pick<Extract<PendingAsk, { kind: 'permission' }>, 'kind' | 'permission'>
  | Pick<Extract<PendingAsk, { kind: 'question' }>, 'kind' | 'question' | 'options'>
  | Pick<Extract<PendingAsk, { kind: 'plan' }>, 'kind' | 'plan'>
);

interface Waiting {
  ask: PendingAsk;
  settle(answer: UserAnswer, by: 'user' | 'cancelled'): void;
}

const CANCELLED: UserAnswer = {
  kind: 'deny_feedback',
  feedback: 'the run that asked was interrupted before anyone answered',
};

/** Which answers fit which ask. */
const FITS: Record<PendingAsk['kind'], ReadonlySet<UserAnswer['kind']>> = {
  permission: new Set(['allow_once', 'always', 'deny', 'deny_feedback']),
  question: new Set(['answer', 'deny', 'deny_feedback']),
  plan: new Set(['allow_once', 'always', 'deny', 'deny_feedback']),
};

/**
 * Every ask of the session — permission asks, questions and plan approvals, from the main agent or a
 * subagent at any depth — queued in order for whichever client answers first (SPEC 6.6). An ask whose
 * agent's run is cancelled is withdrawn and answered deny, so an interrupt takes the interrupted turn's
 * asks (and its foreground children's) with it while a background child's ask stays pending.
 */
export class AskBroker {
  private readonly pending = new Map<string, Waiting>();

  constructor(
    private readonly tracker: EventTracker,
    private readonly emit: (event: ControllerOnlyEvent) => void,
    private readonly now: () => number,
  ) {}

  list(): PendingAsk[] {
    return [...this.pending.values()].map((w) => w.ask);
  }

  get size(): number {
    return this.pending.size;
  }

  readonly asker: Asker = async (ask, signal) => {
    const answer = await this.open(
      { id: ask.id, agent: ask.agent, kind: 'permission', permission: ask },
      signal,
    );
    return toPermissionAnswer(answer, ask.suggestedRule);
  };

  readonly user: UserChannel = {
    question: async (request, signal): Promise<QuestionAnswer> => {
      const answer = await this.open(
        {
          id: randomUUID(),
          agent: request.agent,
          kind: 'question',
          question: request.question,
          options: request.options,
        },
        signal,
      );
      if (answer.kind === 'answer') return { kind: 'answer', text: answer.text };
      return {
        kind: 'declined',
        reason:
          answer.kind === 'deny_feedback'
            ? `the user declined to answer: ${answer.feedback}`
            : 'the user declined to answer',
      };
    },
    approvePlan: async (request, signal): Promise<PlanVerdict> => {
      const answer = await this.open(
        { id: randomUUID(), agent: request.agent, kind: 'plan', plan: request.plan },
        signal,
      );
      if (answer.kind === 'allow_once' || answer.kind === 'always') return { approved: true };
      return {
        approved: false,
        reason:
          answer.kind === 'deny_feedback' ? `the user said: ${answer.feedback}` : 'the user rejected it',
      };
    },
  };

  /** A client's answer; refused (nothing changes) for an unknown id or an answer that does not fit. */
  answer(askId: string, answer: UserAnswer): { ok: true } | { ok: false; message: string } {
    const waiting = this.pending.get(askId);
    if (!waiting) {
      const open = [...this.pending.keys()].join(', ') || '(none)';
      return { ok: false, message: `no pending ask "${askId}"; pending: ${open}` };
    }
    if (!FITS[waiting.ask.kind].has(answer.kind)) {
      return {
        ok: false,
        message: `a ${waiting.ask.kind} ask cannot be answered "${answer.kind}"; expected one of ${[...FITS[waiting.ask.kind]].join(', ')}`,
      };
    }
    waiting.settle(answer, 'user');
    return { ok: true };
  }

  /** Withdraws every pending ask (the session is closing). */
  cancelAll(): void {
    for (const waiting of [...this.pending.values()]) waiting.settle(CANCELLED, 'cancelled');
  }

  private open(fields: NewAsk, signal: AbortSignal): Promise<UserAnswer> {
    if (signal.aborted) return Promise.resolve(CANCELLED);
    const chain = this.tracker.chain(fields.agent);
    const ask = {
      ...fields,
      chain,
      label: this.tracker.label(fields.agent),
      background: this.tracker.inBackground(fields.agent),
      openedAt: this.now(),
    } as PendingAsk;
    return new Promise<UserAnswer>((resolve) => {
      const onAbort = () => waiting.settle(CANCELLED, 'cancelled');
      const waiting: Waiting = {
        ask,
        settle: (answer, by) => {
          if (!this.pending.delete(ask.id)) return;
          signal.removeEventListener('abort', onAbort);
          this.emit({ type: 'ask_closed', askId: ask.id, answer, by });
          resolve(answer);
        },
      };
      this.pending.set(ask.id, waiting);
      signal.addEventListener('abort', onAbort, { once: true });
      this.emit({ type: 'ask_opened', ask });
    });
  }
}

function toPermissionAnswer(answer: UserAnswer, suggestedRule: string): AskAnswer {
  switch (answer.kind) {
    case 'always':
      return { kind: 'always', pattern: answer.pattern ?? suggestedRule };
    case 'answer':
      return { kind: 'deny_feedback', feedback: answer.text };
    default:
      return answer;
  }
}
