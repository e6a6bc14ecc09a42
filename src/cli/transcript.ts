import { describeCall, oneLine } from '../agent/describe-call.js';
import type { AgentEvent } from '../agent/events.js';

interface Writer {
  write(chunk: string): unknown;
}

const MAX_OUTPUT_LINES = 12;

function indent(text: string, who = '', maxLines = MAX_OUTPUT_LINES): string {
  const lines = text.replace(/\n+$/, '').split('\n');
  const shown =
    lines.length > maxLines
      ? [...lines.slice(0, maxLines), `… (${lines.length - maxLines} more lines)`]
      : lines;
  return shown.map((l) => `${who}    │ ${l}`).join('\n');
}

/** A readable, line-oriented transcript of runtime events (the demo and plain logs). */
export class TranscriptPrinter {
  /** The agent whose streamed text is being printed, if any: parallel subagents interleave. */
  private textAgent: string | undefined;
  /** Subagents are labelled by profile name (with the id's start when two share one). */
  private readonly labels = new Map<string, string>();

  constructor(private readonly out: Writer) {}

  private endText(): void {
    if (this.textAgent !== undefined) this.out.write('\n');
    this.textAgent = undefined;
  }

  private label(agent: string): string {
    if (agent === 'main') return '';
    return `[${this.labels.get(agent) ?? agent}] `;
  }

  event(event: AgentEvent): void {
    const who = this.label(event.agent);
    switch (event.type) {
      case 'text_delta':
        if (this.textAgent !== event.agent) {
          this.endText();
          this.out.write(`${who}● `);
        }
        this.textAgent = event.agent;
        this.out.write(event.text);
        break;
      case 'tool_call_start':
        this.endText();
        this.out.write(`${who}▸ ${describeCall(event.tool, event.input)}\n`);
        break;
      case 'tool_call_end':
        this.endText();
        this.out.write(`${indent(event.isError ? `error: ${event.output}` : event.output, who)}\n`);
        break;
      case 'permission_denied':
        this.endText();
        this.out.write(`${who}✗ denied: ${event.decision.reason}\n`);
        break;
      case 'retry':
        this.endText();
        this.out.write(`${who}↻ ${event.cause}; retrying in ${(event.delayMs / 1000).toFixed(1)} s\n`);
        break;
      case 'subagent_start': {
        this.endText();
        const name = event.profile ?? 'default';
        const taken = [...this.labels.values()].includes(name);
        this.labels.set(event.taskId, taken ? `${name} ${event.taskId.slice(0, 6)}` : name);
        const batch = event.batchId ? ` in batch ${event.batchId}` : '';
        this.out.write(`${who}⇢ subagent ${event.taskId} (${name})${batch}: ${oneLine(event.description)}\n`);
        break;
      }
      case 'subagent_queued':
        this.endText();
        this.out.write(
          `${who}… ${this.label(event.taskId)}queued, position ${event.position}: waiting for ${event.cause}\n`,
        );
        break;
      case 'subagent_isolation':
        this.endText();
        this.out.write(
          event.isolation === 'worktree'
            ? `${this.label(event.taskId)}works in its own worktree ${event.worktree} on branch ${event.branch}\n`
            : `${this.label(event.taskId)}works serialized in the parent checkout\n`,
        );
        break;
      case 'subagent_worker':
        this.endText();
        this.out.write(`${this.label(event.taskId)}runs on worker ${event.worker}\n`);
        break;
      case 'subagent_end':
        this.endText();
        this.out.write(`${who}⇠ ${this.label(event.taskId)}${event.status}\n`);
        break;
      case 'batch_reconciled':
        this.endText();
        this.out.write(
          `${who}═ batch ${event.batchId} reconciled; the model receives:\n${indent(event.text, who, 40)}\n`,
        );
        break;
      case 'warning':
      case 'error':
        this.endText();
        this.out.write(`${who}! ${event.message}\n`);
        break;
      case 'turn_end':
      case 'done':
        this.endText();
        break;
      default:
        break;
    }
  }
}
