import type { UserAnswer } from '../controller/types.js';
import type { SessionPort } from './app.js';

/**
 * The view's session while the controller is still opening (issue 17: the first frame is drawn before the
 * runtime, SQLite and the tools are loaded). Prompts sent meanwhile reach the controller in order once it
 * is open; nothing can be running or asking before then, so an interrupt or an answer does nothing.
 */
export class PendingSession<S extends SessionPort> implements SessionPort {
  private session?: S;
  private readonly ready: Promise<S>;

  constructor(opening: Promise<S>) {
    this.ready = opening.then((session) => {
      this.session = session;
      return session;
    });
    // A failed open is reported by whoever awaits `opening`; prompts sent meanwhile just never start.
    this.ready.catch(() => undefined);
  }

  /** Not open yet: the view holds the keys that need the session (see `SessionPort.opening`). */
  get opening(): boolean {
    return this.session === undefined;
  }

  submit(text: string): { outcome: Promise<{ quit?: boolean }> } {
    if (this.session) return this.session.submit(text);
    return { outcome: this.ready.then((session) => session.submit(text).outcome) };
  }

  interrupt(): boolean {
    return this.session?.interrupt() ?? false;
  }

  answer(askId: string, answer: UserAnswer): { ok: boolean } {
    return this.session?.answer(askId, answer) ?? { ok: false };
  }

  commands(): readonly { name: string; summary: string; args: string }[] {
    return this.session?.commands() ?? [];
  }

  complete(line: string): string[] {
    return this.session?.complete(line) ?? [];
  }
}
