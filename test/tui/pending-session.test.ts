import { describe, expect, it } from 'vitest';
import type { UserAnswer } from '../../src/controller/types.js';
import type { SessionPort } from '../../src/tui/app.js';
import { PendingSession } from '../../src/tui/pending-session.js';

class RecordingSession implements SessionPort {
  submitted: string[] = [];
  submit(text: string) {
    this.submitted.push(text);
    return { outcome: Promise.resolve({ quit: text === '/quit' }) };
  }
  interrupt() {
    return true;
  }
  answer(_askId: string, _answer: UserAnswer) {
    return { ok: true };
  }
  commands() {
    return [{ name: 'agent', summary: 'switch profile', args: '<name>|off' }];
  }
  complete(line: string) {
    return ['/agent'].filter((c) => c.startsWith(line));
  }
}

function deferred<T>() {
  let resolve: (value: T) => void = () => undefined;
  let reject: (error: unknown) => void = () => undefined;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

describe('PendingSession: the view session while the controller opens', () => {
  it('sends prompts given before the session opened in order once it is open, and later ones directly', async () => {
    const opening = deferred<RecordingSession>();
    const pending = new PendingSession(opening.promise);
    const first = pending.submit('one').outcome;
    const second = pending.submit('/quit').outcome;
    expect(pending.opening).toBe(true);
    const session = new RecordingSession();
    opening.resolve(session);
    expect(await first).toEqual({ quit: false });
    expect(await second).toEqual({ quit: true });
    expect(pending.opening).toBe(false);
    await pending.submit('three').outcome;
    expect(session.submitted).toEqual(['one', '/quit', 'three']);
  });

  it('has nothing to interrupt, answer, list or complete before the session is open', async () => {
    const opening = deferred<RecordingSession>();
    const pending = new PendingSession(opening.promise);
    expect(pending.interrupt()).toBe(false);
    expect(pending.answer('a1', { kind: 'deny' })).toEqual({ ok: false });
    expect(pending.commands()).toEqual([]);
    expect(pending.complete('/ag')).toEqual([]);
    opening.resolve(new RecordingSession());
    await opening.promise;
    await Promise.resolve();
    expect(pending.interrupt()).toBe(true);
    expect(pending.commands().map((c) => c.name)).toEqual(['agent']);
    expect(pending.complete('/ag')).toEqual(['/agent']);
  });

  it('rejects prompts sent before a session that fails to open, without an unhandled rejection', async () => {
    const opening = deferred<RecordingSession>();
    const pending = new PendingSession(opening.promise);
    const outcome = pending.submit('one').outcome;
    opening.reject(new Error('the store is locked'));
    await expect(outcome).rejects.toThrow('the store is locked');
    await expect(opening.promise).rejects.toThrow('the store is locked');
    expect(pending.opening).toBe(true);
  });
});
