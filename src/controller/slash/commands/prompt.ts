import type { SlashCommand } from '../types.js';

/** `/prompt <name>` selects a prompt file, `/prompt default` clears the layer, `/prompt` lists (SPEC 4.1). */
export const promptCommand: SlashCommand = {
  name: 'prompt',
  summary: 'select a prompt file (its body, denies and mode), or default to clear it',
  args: '<name>|default',
  complete: (session, partial) =>
    ['default', ...session.prompts().map((p) => p.name)].filter((n) => n.startsWith(partial)),
  run({ session, args }) {
    if (args === '') {
      const prompts = session.prompts();
      const active = prompts.some((p) => p.active);
      const lines = [
        `${active ? ' ' : '*'} default`,
        ...prompts.map(
          (p) => `${p.active ? '*' : ' '} ${p.name}${p.description ? `  ${p.description}` : ''}`,
        ),
      ];
      return { text: `Prompts:\n${lines.join('\n')}` };
    }
    const result = session.setPrompt(args === 'default' ? null : args);
    return { text: result.message, isError: !result.ok };
  },
};
