import type { SlashCommand } from '../types.js';

/** `/kill <id-prefix>`: cancels one running or queued subagent (SPEC 7.4). */
export const killCommand: SlashCommand = {
  name: 'kill',
  summary: 'cancel a running subagent by id or unique id prefix',
  args: '<id-prefix>',
  complete: (session, partial) =>
    session
      .snapshot()
      .subagents.filter((t) => t.state === 'running' || t.state === 'queued')
      .map((t) => t.id)
      .filter((id) => id.startsWith(partial)),
  run({ session, args }) {
    if (args === '') return { text: 'usage: /kill <id-prefix> (see /tasks)', isError: true };
    const result = session.runtime.subagents.kill(args);
    return result.ok ? { text: `cancelling ${result.taskId}` } : { text: result.message, isError: true };
  },
};
