import { getEventListeners } from 'node:events';
import { describe, expect, it } from 'vitest';
import { abortableSleep, untilAborted } from '../../src/util/abort.js';

/** Node's own count of listeners on an EventTarget, so a leak is observable. */
function listenerCount(signal: AbortSignal): number {
  return getEventListeners(signal, 'abort').length;
}

describe('untilAborted', () => {
  it('resolves with the value and removes its listener', async () => {
    const controller = new AbortController();
    for (let i = 0; i < 50; i++) expect(await untilAborted(Promise.resolve(i), controller.signal)).toBe(i);
    expect(listenerCount(controller.signal)).toBe(0);
  });

  it('resolves undefined when the signal aborts first', async () => {
    const controller = new AbortController();
    const waiting = untilAborted(new Promise(() => {}), controller.signal);
    controller.abort();
    expect(await waiting).toBeUndefined();
  });

  it('passes a rejection through and removes its listener', async () => {
    const controller = new AbortController();
    await expect(untilAborted(Promise.reject(new Error('boom')), controller.signal)).rejects.toThrow('boom');
    expect(listenerCount(controller.signal)).toBe(0);
  });
});

describe('abortableSleep', () => {
  it('leaves no listener behind after sleeping', async () => {
    const controller = new AbortController();
    for (let i = 0; i < 20; i++) await abortableSleep(0, controller.signal);
    expect(listenerCount(controller.signal)).toBe(0);
  });

  it('rejects with the reason when aborted', async () => {
    const controller = new AbortController();
    const sleeping = abortableSleep(60_000, controller.signal);
    controller.abort(new Error('stop'));
    await expect(sleeping).rejects.toThrow('stop');
  });
});
