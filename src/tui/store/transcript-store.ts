import type { ModelMessage } from 'ai';
import { describeCall } from '../../agent/describe-call.js';
import type { AgentEvent } from '../../agent/events.js';
import type {
  ControllerEvent,
  ControllerState,
  SequencedEvent,
  TurnOutcome,
} from '../../controller/types.js';
import { splitSettled } from '../markdown/render.js';
import type { ToolCardView } from '../render/tool-card.js';
import { replayItems } from './replay.js';

/** One finished entry of the transcript: printed once (ink's Static), re-printed only on resize. */
export type TranscriptItem =
  | { kind: 'user'; id: number; text: string }
  | { kind: 'markdown'; id: number; text: string }
  | { kind: 'reasoning'; id: number; text: string }
  | { kind: 'tool'; id: number; card: ToolCardView; expanded: boolean }
  | { kind: 'line'; id: number; tone: 'info' | 'dim' | 'warn' | 'error' | 'ok'; text: string }
  | { kind: 'block'; id: number; text: string; isError: boolean }
  | { kind: 'welcome'; id: number };

/** What is still changing below the transcript: the answer being streamed and the tools running now. */
export interface LiveView {
  /** The main agent's text not settled into finished blocks yet (the last markdown block). */
  text: string;
  /** Reasoning of the current step, shown dimmed and collapsed. */
  reasoning: string;
  running: ToolCardView[];
}

type Listener = () => void;

/** What `/help` adds in this view: its own command and keys, beside the session's commands. */
const VIEW_HELP = [
  '/expand [N]        print tool result N (default: the last) in full',
  'keys: enter send · shift+enter, alt+enter or \\ then enter: new line · tab complete · up/down history',
  '      esc interrupt · ctrl+c clear, twice quit · ctrl+o expand the last result · ctrl+d quit when empty',
].join('\n');

type ItemInput = TranscriptItem extends infer T ? (T extends { id: number } ? Omit<T, 'id'> : never) : never;

/**
 * The view model of one session: the controller's events folded into finished transcript items, the live
 * tail and the latest state snapshot. It decides nothing about the session; it only arranges what happened
 * for display. Listeners are told at most once per tick, so a burst of deltas costs one render.
 */
export class TranscriptStore {
  private items: TranscriptItem[] = [];
  private live: LiveView = { text: '', reasoning: '', running: [] };
  private running = new Map<string, ToolCardView>();
  private nextId = 1;
  private cardCount = 0;
  private listeners = new Set<Listener>();
  private scheduled = false;
  private version = 0;
  private quitRequested = false;

  constructor(private state: ControllerState) {}

  subscribe = (listener: Listener): (() => void) => {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  };

  /** Changes with every update; what React's useSyncExternalStore compares. */
  getVersion = (): number => this.version;

  get snapshot(): { items: readonly TranscriptItem[]; live: LiveView; state: ControllerState } {
    return { items: this.items, live: this.live, state: this.state };
  }

  /** `/quit` ran: the view should end. */
  get quit(): boolean {
    return this.quitRequested;
  }

  private changed(): void {
    this.version++;
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      for (const listener of [...this.listeners]) listener();
    });
  }

  private push(item: ItemInput): void {
    this.items = [...this.items, { ...item, id: this.nextId++ } as TranscriptItem];
  }

  /** Adds an entry the view makes itself (the welcome line, a local command's answer). */
  add(item: ItemInput): void {
    this.push(item);
    this.changed();
  }

  /** A resumed conversation, shown as it went. */
  replay(messages: readonly ModelMessage[]): void {
    for (const item of replayItems(messages)) {
      if (item.kind === 'tool') this.push({ ...item, card: { ...item.card, number: ++this.cardCount } });
      else this.push(item);
    }
    this.changed();
  }

  apply({ event }: SequencedEvent): void {
    this.fold(event);
    this.changed();
  }

  private label(agent: string): string {
    return this.state.subagents.find((s) => s.id === agent)?.label ?? agent;
  }

  /** Text and reasoning so far become finished items (a tool call or the end of a turn closes them). */
  private flush(): void {
    if (this.live.reasoning.trim() !== '') this.push({ kind: 'reasoning', text: this.live.reasoning.trim() });
    if (this.live.text.trim() !== '') this.push({ kind: 'markdown', text: this.live.text });
    this.live = { ...this.live, text: '', reasoning: '' };
  }

  private fold(event: ControllerEvent): void {
    switch (event.type) {
      case 'state':
        this.state = event.state;
        return;
      // Asks open and close between snapshots too; the modal follows them at once.
      case 'ask_opened':
        if (!this.state.asks.some((a) => a.id === event.ask.id))
          this.state = { ...this.state, asks: [...this.state.asks, event.ask] };
        return;
      case 'ask_closed':
        this.state = { ...this.state, asks: this.state.asks.filter((a) => a.id !== event.askId) };
        return;
      case 'turn_started':
        this.flush();
        if (event.origin === 'background')
          this.push({ kind: 'line', tone: 'dim', text: 'background work finished; continuing' });
        else if (event.input !== null) this.push({ kind: 'user', text: event.input });
        return;
      case 'turn_ended':
        this.endTurn(event.outcome);
        return;
      case 'command_output': {
        if (event.text.trim() === '') return;
        const text =
          event.command === 'help' && !event.isError ? `${event.text}\n\n${VIEW_HELP}` : event.text;
        this.push({ kind: 'block', text, isError: event.isError });
        return;
      }
      case 'notice':
        this.push({ kind: 'line', tone: 'info', text: event.message });
        return;
      case 'session_changed':
        this.push({ kind: 'line', tone: 'dim', text: `new session ${event.sessionId}` });
        return;
      default:
        if ('agent' in event) this.foldAgent(event);
    }
  }

  private endTurn(outcome: TurnOutcome): void {
    this.flush();
    for (const card of this.running.values())
      this.push({ kind: 'tool', card: { ...card, status: 'error' }, expanded: false });
    this.running.clear();
    this.live = { text: '', reasoning: '', running: [] };
    if (outcome.stopReason === 'cancelled') this.push({ kind: 'line', tone: 'warn', text: 'Interrupted' });
    else if (outcome.stopReason === 'failed' || outcome.stopReason === 'model_error')
      this.push({ kind: 'line', tone: 'error', text: outcome.error ?? 'the turn failed' });
    else if (outcome.stopReason === 'max_turns')
      this.push({ kind: 'line', tone: 'warn', text: 'stopped: the turn cap was reached' });
    if (outcome.quit) this.quitRequested = true;
  }

  private foldAgent(event: AgentEvent): void {
    const main = event.agent === 'main';
    switch (event.type) {
      case 'text_delta': {
        if (!main) return;
        const { settled, pending } = splitSettled(this.live.text + event.text);
        if (settled !== '') this.push({ kind: 'markdown', text: settled });
        this.live = { ...this.live, text: pending };
        return;
      }
      case 'reasoning_delta':
        if (main) this.live = { ...this.live, reasoning: this.live.reasoning + event.text };
        return;
      case 'tool_call_start': {
        if (!main) return;
        this.flush();
        const card: ToolCardView = {
          number: ++this.cardCount,
          title: describeCall(event.tool, event.input),
          tool: event.tool,
          input: event.input,
          status: 'running',
        };
        this.running.set(event.callId, card);
        this.live = { ...this.live, running: [...this.running.values()] };
        return;
      }
      case 'tool_call_end': {
        if (!main) return;
        const card = this.running.get(event.callId);
        if (!card) return;
        this.running.delete(event.callId);
        this.push({
          kind: 'tool',
          card: {
            ...card,
            status: event.isError ? 'error' : 'ok',
            output: event.output,
            durationMs: event.durationMs,
          },
          expanded: false,
        });
        this.live = { ...this.live, running: [...this.running.values()] };
        return;
      }
      case 'permission_denied': {
        // The main agent's denied call shows as its tool card, in red, with the reason.
        if (main) return;
        const who = `[${this.label(event.agent)}] `;
        this.push({
          kind: 'line',
          tone: 'error',
          text: `${who}denied ${describeCall(event.tool, event.input)}: ${event.decision.reason}`,
        });
        return;
      }
      case 'retry':
        this.push({
          kind: 'line',
          tone: 'warn',
          text: `${event.cause}; retrying in ${(event.delayMs / 1000).toFixed(1)} s (attempt ${event.attempt}/${event.maxAttempts})`,
        });
        return;
      case 'warning':
        this.push({
          kind: 'line',
          tone: 'warn',
          text: main ? event.message : `[${this.label(event.agent)}] ${event.message}`,
        });
        return;
      case 'error':
        this.flush();
        this.push({
          kind: 'line',
          tone: 'error',
          text: main ? event.message : `[${this.label(event.agent)}] ${event.message}`,
        });
        return;
      case 'compaction':
        if (main)
          this.push({
            kind: 'line',
            tone: 'dim',
            text: `context compacted: ${event.messagesBefore} messages → ${event.messagesAfter}`,
          });
        return;
      case 'subagent_start':
        this.flush();
        this.push({
          kind: 'line',
          tone: 'dim',
          text: `subagent ${event.taskId.slice(0, 8)} (${event.profile ?? 'general'})${event.background ? ' in the background' : ''}: ${event.description}`,
        });
        return;
      case 'subagent_end': {
        const tone = event.status === 'completed' ? 'ok' : event.status === 'cancelled' ? 'warn' : 'error';
        const detail = event.error ? `: ${event.error}` : '';
        this.push({
          kind: 'line',
          tone,
          text: `subagent ${event.taskId.slice(0, 8)} ${event.status.replace('_', ' ')}${detail}`,
        });
        return;
      }
      default:
        return;
    }
  }

  /** The number of the last tool card whose result was collapsed, for Ctrl+O. */
  lastCardNumber(): number | null {
    for (let i = this.items.length - 1; i >= 0; i--) {
      const item = this.items[i];
      if (item.kind === 'tool') return item.card.number;
    }
    return null;
  }

  /** Prints tool card `number` again below, in full. False when there is no such card. */
  expand(number: number): boolean {
    const item = this.items.find(
      (i): i is Extract<TranscriptItem, { kind: 'tool' }> => i.kind === 'tool' && i.card.number === number,
    );
    if (item === undefined) return false;
    this.push({ kind: 'tool', card: item.card, expanded: true });
    this.changed();
    return true;
  }
}
