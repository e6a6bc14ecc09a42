import { EFFORTS } from '../../../provider/route.js';
import type { SlashCommand } from '../types.js';

/** `/effort` shows the reasoning effort; `/effort <level>` sets it. */
export const effortCommand: SlashCommand = {
  name: 'effort',
  summary: 'show or set the reasoning effort',
  args: `[${EFFORTS.join('|')}]`,
  complete: (_session, partial) => EFFORTS.filter((level) => level.startsWith(partial)),
  run({ session, args }) {
    if (args === '') {
      return { text: `effort: ${session.runtime.effort ?? 'default'}\nlevels: ${EFFORTS.join(', ')}` };
    }
    const result = session.setEffort(args);
    return { text: result.message, isError: !result.ok };
  },
};
