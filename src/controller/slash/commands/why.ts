import { formatExplain } from '../../../permission/explain.js';
import type { SlashCommand } from '../types.js';

/** `/why <tool>(<input>)`: the decision and trace of the session's current gate, as `permissions explain`. */
export const whyCommand: SlashCommand = {
  name: 'why',
  summary: 'explain how a tool call would be decided, layer by layer',
  args: '<tool>(<input>)',
  async run({ session, args }) {
    if (args === '') return { text: 'usage: /why <tool>(<input>), e.g. /why bash(git push)', isError: true };
    const decision = await session.runtime.explain(args);
    return { text: formatExplain(decision) };
  },
};
