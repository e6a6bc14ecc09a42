import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { warmNodeInternals, warmWhileWaiting } from '../../src/agent/idle-warmup.js';
import type { ModelCaller, ModelRequest, ModelStreamPart } from '../../src/agent/model-stream.js';

const request: ModelRequest = {
  system: '',
  messages: [],
  tools: [],
  signal: new AbortController().signal,
};

/** A model whose answer parts are each released by the test. */
function heldModel() {
  const releases: ((part: ModelStreamPart) => void)[] = [];
  const next = () => new Promise<ModelStreamPart>((resolve) => releases.push(resolve));
  const caller: ModelCaller = async function* () {
    for (;;) {
      const part = await next();
      yield part;
      if (part.type === 'finish' || part.type === 'error') return;
    }
  };
  return {
    caller,
    /** Sends a part once the stream is waiting for it. */
    async send(part: ModelStreamPart) {
      // Microtasks only: waiting on (fake) timers would move the clock the test is about.
      for (let i = 0; i < 100 && releases.length === 0; i++) await Promise.resolve();
      const release = releases.shift();
      if (!release) throw new Error('the model stream was not waiting for a part');
      release(part);
    },
  };
}

const finish: ModelStreamPart = {
  type: 'finish',
  usage: { inputTokens: 1, outputTokens: 1, cachedInputTokens: 0, reasoningTokens: 0 },
  finishReason: 'stop',
  assistant: [],
};

async function drain(stream: AsyncIterable<ModelStreamPart>): Promise<string[]> {
  const types: string[] = [];
  for await (const part of stream) types.push(part.type);
  return types;
}

describe('warmWhileWaiting', () => {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('does not warm when the model answers before the delay', async () => {
    const model = heldModel();
    const warm = vi.fn();
    const caller = warmWhileWaiting(model.caller, warm, 100);
    const done = drain(caller(request));
    await vi.advanceTimersByTimeAsync(50);
    await model.send({ type: 'text', text: 'hi' });
    await vi.advanceTimersByTimeAsync(200);
    await model.send(finish);
    expect(await done).toEqual(['text', 'finish']);
    expect(warm).not.toHaveBeenCalled();
  });

  it('a start-up warning is not an answer: the wait still counts', async () => {
    const model = heldModel();
    const warm = vi.fn();
    const done = drain(warmWhileWaiting(model.caller, warm, 100)(request));
    await model.send({ type: 'warning', message: 'unsupported setting' });
    await vi.advanceTimersByTimeAsync(150);
    expect(warm).toHaveBeenCalledTimes(1);
    await model.send(finish);
    expect(await done).toEqual(['warning', 'finish']);
  });

  it('warms once, at the first call left waiting, and not again on later calls', async () => {
    const model = heldModel();
    const warm = vi.fn();
    const caller = warmWhileWaiting(model.caller, warm, 100);
    const fast = drain(caller(request));
    await model.send(finish);
    await fast;
    await vi.advanceTimersByTimeAsync(500);
    expect(warm).not.toHaveBeenCalled();
    const slow = drain(caller(request));
    await vi.advanceTimersByTimeAsync(100);
    expect(warm).toHaveBeenCalledTimes(1);
    await model.send(finish);
    await slow;
    const later = drain(caller(request));
    await vi.advanceTimersByTimeAsync(500);
    await model.send(finish);
    await later;
    expect(warm).toHaveBeenCalledTimes(1);
  });
});

describe('warmNodeInternals', () => {
  it('runs a reply-shaped stream to its end and leaves no rejection behind', async () => {
    const unhandled: unknown[] = [];
    const record = (reason: unknown) => unhandled.push(reason);
    process.on('unhandledRejection', record);
    try {
      await expect(warmNodeInternals()).resolves.toBeUndefined();
      await new Promise((resolve) => setImmediate(resolve));
      expect(unhandled).toEqual([]);
    } finally {
      process.off('unhandledRejection', record);
    }
  });
});
