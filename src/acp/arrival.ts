import { type AnyMessage, methods } from '@agentclientprotocol/sdk';

type RequestId = string | number | null;

/**
 * `session/cancel` applied in the order messages arrive. The SDK starts handlers out of order (it tries
 * them one `await` each, so one late in its list runs after a message received just behind it): a cancel
 * handled there could end the prompt sent after it, or miss the prompt sent just before it. This sees each
 * message as it is read, before any handler: a cancel cancels the prompt running and every prompt
 * received before it but not started yet, never a later one.
 */
export class ArrivalOrder {
  /** Per session: prompts received so far, and how many had been received at its last cancel. */
  private readonly received = new Map<string, number>();
  private readonly cancelledThrough = new Map<string, number>();
  /** A prompt request's place among its session's prompts, until its handler takes it. */
  private readonly places = new Map<RequestId, { sessionId: string; place: number }>();

  constructor(private readonly cancelRunning: (sessionId: string) => void) {}

  /** Sees one incoming message, in the order they arrive. */
  observe(message: AnyMessage): void {
    if (!('method' in message)) return;
    const sessionId = (message.params as { sessionId?: unknown } | undefined)?.sessionId;
    if (typeof sessionId !== 'string') return;
    if (message.method === methods.agent.session.prompt && 'id' in message) {
      const place = (this.received.get(sessionId) ?? 0) + 1;
      this.received.set(sessionId, place);
      this.places.set(message.id, { sessionId, place });
    } else if (message.method === methods.agent.session.cancel) {
      this.cancelledThrough.set(sessionId, this.received.get(sessionId) ?? 0);
      this.cancelRunning(sessionId);
    }
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
}
