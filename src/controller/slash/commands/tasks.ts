import type { SlashCommand } from '../types.js';

function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(1)} s`;
}

/** `/tasks`: every subagent of the session with its state, step, elapsed time and tokens. */
export const tasksCommand: SlashCommand = {
  name: 'tasks',
  summary: 'list the subagents of this session: state, current step, elapsed time, tokens',
  args: '',
  run({ session }) {
    const { subagents } = session.snapshot();
    if (subagents.length === 0) return { text: 'No subagents in this session.' };
    const now = Date.now();
    const lines = subagents.map((t) => {
      const elapsed = seconds((t.endedAt ?? now) - t.startedAt);
      const where =
        t.state === 'queued' && t.queue
          ? `queued (position ${t.queue.position}, waiting for ${t.queue.cause})`
          : t.state === 'running'
            ? `running${t.step ? `: ${t.step}` : ''}`
            : t.state.replace('_', ' ');
      const mode = t.background ? 'background' : 'foreground';
      return `${t.id}  ${t.label}  ${mode}  ${where}  ${elapsed}  ${t.inputTokens}+${t.outputTokens} tokens\n    ${t.description}`;
    });
    return { text: lines.join('\n') };
  },
};
