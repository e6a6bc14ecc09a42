import { describeRoute } from '../../../provider/route.js';
import type { SlashCommand } from '../types.js';

/** `/model` shows the model and the aliases; `/model <alias|name>` switches it (SPEC 4.2). */
export const modelCommand: SlashCommand = {
  name: 'model',
  summary: 'show the model, or switch to a providers alias or a model name on the current provider',
  args: '[alias|name]',
  complete: (session, partial) =>
    Object.keys(session.runtime.loadedConfig.config.providers ?? {}).filter((a) => a.startsWith(partial)),
  run({ session, args }) {
    if (args === '') {
      const aliases = Object.keys(session.runtime.loadedConfig.config.providers ?? {});
      return {
        text: `model: ${describeRoute(session.runtime.modelRoute)}\naliases: ${aliases.join(', ') || '(none configured)'}`,
      };
    }
    const result = session.setModel(args);
    return { text: result.message, isError: !result.ok };
  },
};
