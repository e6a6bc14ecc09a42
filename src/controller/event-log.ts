import type { ControllerEvent, SequencedEvent } from './types.js';

export type EventListener = (event: SequencedEvent) => void;

/**
 * The controller's event stream: sequence ids, a bounded replay buffer and fan-out to several
 * subscribers. A subscriber that throws is dropped; it never breaks the session or the other clients.
 */
export class EventLog {
  private readonly buffer: SequencedEvent[] = [];
  private readonly listeners = new Set<EventListener>();
  private seq = 0;

  constructor(
    private readonly capacity: number,
    private readonly now: () => number,
  ) {}

  get lastSeq(): number {
    return this.seq;
  }

  append(event: ControllerEvent): SequencedEvent {
    const entry: SequencedEvent = { seq: ++this.seq, time: this.now(), event };
    this.buffer.push(entry);
    if (this.buffer.length > this.capacity) this.buffer.splice(0, this.buffer.length - this.capacity);
    for (const listener of [...this.listeners]) {
      try {
        listener(entry);
      } catch {
        this.listeners.delete(listener);
      }
    }
    return entry;
  }

  /** Every event after `seq`, or undefined when some of them have left the buffer (the client resyncs). */
  since(seq: number): SequencedEvent[] | undefined {
    if (seq >= this.seq) return [];
    const oldest = this.buffer[0]?.seq ?? this.seq + 1;
    if (seq < oldest - 1 || seq < 0) return undefined;
    return this.buffer.slice(seq - oldest + 1);
  }

  listen(listener: EventListener): () => void {
    this.listeners.add(listener);
    return () => {
      this.listeners.delete(listener);
    };
  }
}
