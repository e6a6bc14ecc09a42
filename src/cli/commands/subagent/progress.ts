import type { AgentEvent } from '../../../agent/events.js';
import type { LiveTask } from '../../../subagent/task-record.js';

interface Writer {
  write(chunk: string): unknown;
}

const INPUT_SHOWN = 100;

function briefInput(input: unknown): string {
  const text = JSON.stringify(input) ?? '';
  return text.length > INPUT_SHOWN ? `${text.slice(0, INPUT_SHOWN)}…` : text;
}

/**
 * Progress of a `subagent try|run` on stderr, one line per step, so stdout carries only the answer: start
 * (runner, tier, model), queueing, each tool call, each denial, and the end.
 */
export function progressPrinter(
  stderr: Writer,
  runner: 'readonly' | 'normal',
  taskOf: (id: string) => LiveTask | undefined,
): (event: AgentEvent) => void {
  const label = (id: string) => taskOf(id)?.profile ?? 'subagent';
  return (event) => {
    switch (event.type) {
      case 'subagent_start': {
        const task = taskOf(event.taskId);
        stderr.write(
          `cadre: ${label(event.taskId)}: task ${event.taskId}, ${runner} runner, ${task?.tier ?? '?'} tier, model ${task?.model ?? '?'}\n`,
        );
        break;
      }
      case 'subagent_queued':
        stderr.write(
          `cadre: ${label(event.taskId)}: queued, position ${event.position} (waiting for ${event.cause})\n`,
        );
        break;
      case 'tool_call_start':
        stderr.write(`cadre: ${label(event.agent)}: ${event.tool} ${briefInput(event.input)}\n`);
        break;
      case 'permission_denied':
        stderr.write(`cadre: ${label(event.agent)}: ${event.tool} denied: ${event.decision.reason}\n`);
        break;
      case 'subagent_end':
        // A failure is reported once, by the summary.
        if (event.status === 'completed') stderr.write(`cadre: ${label(event.taskId)}: completed\n`);
        break;
      default:
        break;
    }
  };
}
