import { z } from 'zod';
import type { UserChannel } from '../agent/user-channel.js';
import { lazySchema } from '../util/lazy-schema.js';
import { BUILT_INPUT_SCHEMAS } from './built-input-schemas.js';
import { fail, ok } from './result.js';
import type { Tool } from './tool.js';

const schema = lazySchema(() =>
  z.object({
    question: z.string().min(1).describe('One clear question for the user'),
    options: z
      .array(z.string().min(1))
      .min(2)
      .optional()
      .describe('Possible answers to choose from, when the choice is closed'),
  }),
);

export type QuestionInput = z.output<typeof schema>;

/** `question` (SPEC 5): the model asks the user and waits for the answer; headless it is refused. */
export function createQuestionTool(user: UserChannel): Tool<QuestionInput> {
  return {
    name: 'question',
    description:
      'Ask the user a question and wait for the answer. Use it only when you cannot go on without their decision.',
    schema,
    inputJsonSchema: BUILT_INPUT_SCHEMAS.question,
    safety: 'read',
    subject: () => ({ kind: 'none' }),
    async execute(input, ctx) {
      const answer = await user.question(
        { agent: ctx.agent, question: input.question, options: input.options },
        ctx.signal,
      );
      return answer.kind === 'answer'
        ? ok(`The user answered: ${answer.text}`)
        : fail(`The question was not answered: ${answer.reason}.`);
    },
  };
}
