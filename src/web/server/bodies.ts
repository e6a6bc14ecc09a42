import { z } from 'zod';

/** Request bodies, one schema each: anything else is a 400 that leaves the session as it was. */
export const SubmitBody = z.object({ text: z.string().trim().min(1, 'text is empty').max(200_000) }).strict();

export const AnswerBody = z
  .object({
    askId: z.string().min(1),
    answer: z.discriminatedUnion('kind', [
      z.object({ kind: z.literal('allow_once') }).strict(),
      z.object({ kind: z.literal('always'), pattern: z.string().min(1).optional() }).strict(),
      z.object({ kind: z.literal('deny') }).strict(),
      z
        .object({ kind: z.literal('deny_feedback'), feedback: z.string().trim().min(1, 'feedback is empty') })
        .strict(),
      z.object({ kind: z.literal('answer'), text: z.string() }).strict(),
    ]),
  })
  .strict();

/** `null` or `default`: no profile (`/agent off`). */
export const ProfileBody = z.object({ name: z.string().min(1).nullable() }).strict();

export const KillBody = z.object({ taskId: z.string().regex(/^[\w.-]+$/, 'not a task id') }).strict();

export const CancelQueuedBody = z.object({ promptId: z.string().min(1) }).strict();

export const ReopenBody = z.object({ sessionId: z.string().min(1) }).strict();
