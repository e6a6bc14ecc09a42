import { type AnyMessage, methods } from '@agentclientprotocol/sdk';

type RequestId = string | number | null;

/** A session's request, received and not yet taken effect. */
interface Received {
  readonly id: RequestId;
  readonly done: Promise<void>;
  settle(): void;
}

/**
 * Messages of one session take effect in the order they arrive. The SDK starts handlers out of order (it tries
 * them one `await` each, so one late in its list runs after a message received just behind it): a cancel or a
 * mode switch handled there could miss the prompt sent just before it, or act on the prompt sent after it.
 * This sees each message as it is read, before any handler:
 * - a cancel cancels the prompt running and every prompt received before it but not started yet, never a
 *   later one;
 * - a handler that waits for `ready` runs after every request of its session received before it took effect
 *   (a prompt once its turn started, any other once answered): a switch written before a prompt applies
 *   before that prompt starts, one written after it meets the running turn.
 */
export class ArrivalOrder {
  /** Per session: prompts received so far, and how many had been received at its last cancel. */
  private readonly received = new Map<string, number>();
  private readonly cancelledThrough = new Map<string, number>();
  /** A prompt request's place among its session's prompts, until its handler takes it. */
  private readonly places = new Map<RequestId, { sessionId: string; place: number }>();
  /** Per session, its requests not yet taken effect, in arrival order. */
  private readonly pending = new Map<string, Received[]>();
  private readonly bySession = new Map<RequestId, string>();

  constructor(private readonly cancelRunning: (sessionId: string) => void) {}

  /** Sees one incoming message, in the order they arrive. */
  observe(message: AnyMessage): void {
    if (!('method' in message)) return;
    const sessionId = (message.params as { sessionId?: unknown } | undefined)?.sessionId;
    if (typeof sessionId !== 'string') return;
    if ('id' in message) this.track(sessionId, message.id);
    if (message.method === methods.agent.session.prompt && 'id' in message) {
      const place = (this.received.get(sessionId) ?? 0) + 1;
      this.received.set(sessionId, place);
      this.places.set(message.id, { sessionId, place });
    } else if (message.method === methods.agent.session.cancel) {
      this.cancelledThrough.set(sessionId, this.received.get(sessionId) ?? 0);
      this.cancelRunning(sessionId);
    }
  }

  /** Resolves once every request of the same session received before this one has taken effect. */
  async ready(requestId: RequestId): Promise<void> {
    const sessionId = this.bySession.get(requestId);
    const queue = sessionId === undefined ? undefined : this.pending.get(sessionId);
    if (!queue) return;
    const place = queue.findIndex((r) => r.id === requestId);
    await Promise.all(queue.slice(0, place).map((r) => r.done));
  }

  /** A request took effect (a prompt's turn started, or it was answered): later ones may go. */
  settled(requestId: RequestId): void {
    const sessionId = this.bySession.get(requestId);
    if (sessionId === undefined) return;
    this.bySession.delete(requestId);
    const queue = this.pending.get(sessionId) ?? [];
    const place = queue.findIndex((r) => r.id === requestId);
    if (place < 0) return;
    queue[place].settle();
    queue.splice(place, 1);
    if (queue.length === 0) this.pending.delete(sessionId);
  }

  /** Called when a prompt's handler starts: true when a cancel arrived after it but before this. */
  cancelledBeforeStart(requestId: RequestId): boolean {
    const entry = this.places.get(requestId);
    if (!entry) return false;
    this.places.delete(requestId);
    return entry.place <= (this.cancelledThrough.get(entry.sessionId) ?? 0);
  }

  /** The incoming stream, observed message by message. */
  tap(readable: ReadableStream<AnyMessage>): ReadableStream<AnyMessage> {
    return readable.pipeThrough(
      new TransformStream<AnyMessage, AnyMessage>({
        transform: (message, controller) => {
          this.observe(message);
          controller.enqueue(message);
        },
      }),
    );
  }

  /** The outgoing stream: every response settles its request, whichever way it was answered. */
  tapAnswers(writable: WritableStream<AnyMessage>): WritableStream<AnyMessage> {
    const writer = writable.getWriter();
    return new WritableStream<AnyMessage>({
      write: (message) => {
        if (!('method' in message) && 'id' in message) this.settled(message.id);
        return writer.write(message);
      },
      close: () => writer.close(),
      abort: (reason) => writer.abort(reason),
    });
  }

  private track(sessionId: string, id: RequestId): void {
    let settle = () => {};
    const done = new Promise<void>((resolve) => {
      settle = resolve;
    });
    const queue = this.pending.get(sessionId) ?? [];
    queue.push({ id, done, settle });
    this.pending.set(sessionId, queue);
    this.bySession.set(id, sessionId);
  }
}
