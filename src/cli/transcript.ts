import { describeCall, oneLine } from '../agent/describe-call.js';
import type { AgentEvent } from '../agent/events.js';

interface Writer {
  write(chunk: string): unknown;
}

const MAX_OUTPUT_LINES = 12;

function indent(text: string): string {
  const lines = text.replace(/\n+$/, '').split('\n');
  const shown =
    lines.length > MAX_OUTPUT_LINES
      ? [...lines.slice(0, MAX_OUTPUT_LINES), `… (${lines.length - MAX_OUTPUT_LINES} more lines)`]
      : lines;
  return shown.map((l) => `    │ ${l}`).join('\n');
}

/** A readable, line-oriented transcript of runtime events (the demo and plain logs). */
export class TranscriptPrinter {
  private inText = false;

  constructor(private readonly out: Writer) {}

  private endText(): void {
    if (this.inText) this.out.write('\n');
    this.inText = false;
  }

  event(event: AgentEvent): void {
    const who = event.agent === 'main' ? '' : `[${event.agent}] `;
    switch (event.type) {
      case 'text_delta':
        if (!this.inText) this.out.write(`${who}● `);
        this.inText = true;
        this.out.write(event.text);
        break;
      case 'tool_call_start':
        this.endText();
        this.out.write(`${who}▸ ${describeCall(event.tool, event.input)}\n`);
        break;
      case 'tool_call_end':
        this.out.write(`${indent(event.isError ? `error: ${event.output}` : event.output)}\n`);
        break;
      case 'permission_denied':
        this.endText();
        this.out.write(`${who}✗ denied: ${event.decision.reason}\n`);
        break;
      case 'retry':
        this.endText();
        this.out.write(`${who}↻ ${event.cause}; retrying in ${(event.delayMs / 1000).toFixed(1)} s\n`);
        break;
      case 'subagent_start':
        this.endText();
        this.out.write(
          `${who}⇢ subagent ${event.taskId} (${event.profile ?? 'default'}): ${oneLine(event.description)}\n`,
        );
        break;
      case 'subagent_end':
        this.endText();
        this.out.write(`${who}⇠ subagent ${event.taskId} ${event.status}\n`);
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
