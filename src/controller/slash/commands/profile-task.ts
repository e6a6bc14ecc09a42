import type { SlashCommand } from '../types.js';

/**
 * `/<profile> <task>`: the profile runs as a real isolated subagent; the conversation keeps the task and
 * the child's final answer, not its working context (SPEC 11). Runs as a turn: an interrupt cancels it.
 */
export function profileTaskCommand(profile: string): SlashCommand {
  return {
    name: profile,
    summary: `run the ${profile} profile as a subagent on a task`,
    args: '<task>',
    turn: (args) => args !== '',
    async run({ session, args, signal }) {
      if (args === '') return { text: `usage: /${profile} <task>`, isError: true };
      const task = await session.runtime.delegate({ profile, task: args }, signal);
      if (task.state === 'completed') return { text: task.result ?? '', stopReason: 'completed' };
      return {
        text: `${profile} subagent ${task.state.replace('_', ' ')}: ${task.error ?? 'no reason given'}`,
        isError: true,
        stopReason: task.state === 'cancelled' ? 'cancelled' : 'model_error',
      };
    },
  };
}
