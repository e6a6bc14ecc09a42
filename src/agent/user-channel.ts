/**
 * What the model may ask the person driving the session, beyond permission asks: a `question`, and the
 * approval of a plan at `plan_exit`. A live session answers through its controller; a headless run has
 * nobody to answer (see headlessUser).
 */
export interface UserChannel {
  question(request: QuestionRequest, signal: AbortSignal): Promise<QuestionAnswer>;
  approvePlan(request: PlanRequest, signal: AbortSignal): Promise<PlanVerdict>;
}

export interface QuestionRequest {
  /** 'main' or the asking subagent's id. */
  agent: string;
  question: string;
  options?: string[];
}

export type QuestionAnswer = { kind: 'answer'; text: string } | { kind: 'declined'; reason: string };

export interface PlanRequest {
  agent: string;
  plan: string;
}

export type PlanVerdict = { approved: true } | { approved: false; reason: string };

/** No user is present: questions are refused, and a plan is approved only under `--yes` (SPEC 5). */
export function headlessUser(yes: boolean): UserChannel {
  return {
    async question() {
      return {
        kind: 'declined',
        reason:
          'no user is present to answer (headless run): decide with what you know, and state your assumptions in your answer',
      };
    },
    async approvePlan() {
      return yes
        ? { approved: true }
        : {
            approved: false,
            reason:
              'no user is present to approve the plan (headless run; pass --yes to approve plans): present the plan as your final answer instead',
          };
    },
  };
}
