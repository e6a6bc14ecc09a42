import type { SlashCommand } from '../types.js';

/** `/help`: every command with one line each, then the profiles `/<profile> <task>` can run. */
export const helpCommand: SlashCommand = {
  name: 'help',
  summary: 'list the commands',
  args: '',
  run({ session }) {
    const usage = (name: string, args: string) => `/${name}${args ? ` ${args}` : ''}`;
    const commands = session.commands();
    const width = Math.max(...commands.map((c) => usage(c.name, c.args).length), '/<profile> <task>'.length);
    const lines = commands.map((c) => `${usage(c.name, c.args).padEnd(width)}  ${c.summary}`);
    lines.push(`${'/<profile> <task>'.padEnd(width)}  run a profile as a subagent on a task`);
    const profiles = session.profiles().map((p) => p.name);
    if (profiles.length > 0) lines.push('', `profiles: ${profiles.join(', ')}`);
    return { text: lines.join('\n') };
  },
};
