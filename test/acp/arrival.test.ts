import type { AnyMessage } from '@agentclientprotocol/sdk';
import { describe, expect, it } from 'vitest';
import { ArrivalOrder } from '../../src/acp/arrival.js';

const prompt = (id: number, sessionId = 's'): AnyMessage => ({
  jsonrpc: '2.0',
  id,
  method: 'session/prompt',
  params: { sessionId, prompt: [] },
});
const cancel = (sessionId = 's'): AnyMessage => ({
  jsonrpc: '2.0',
  method: 'session/cancel',
  params: { sessionId },
});

describe('session/cancel in arrival order', () => {
  it.each<{ name: string; messages: AnyMessage[]; cancelled: number[]; running: string[] }>([
    {
      name: 'a cancel before a prompt leaves it alone',
      messages: [cancel(), prompt(1)],
      cancelled: [],
      running: ['s'],
    },
    {
      name: 'a cancel after a prompt not started yet cancels it',
      messages: [prompt(1), cancel()],
      cancelled: [1],
      running: ['s'],
    },
    {
      name: 'only the prompts received before the cancel',
      messages: [prompt(1), prompt(2), cancel(), prompt(3)],
      cancelled: [1, 2],
      running: ['s'],
    },
    {
      name: 'another session’s cancel changes nothing here',
      messages: [prompt(1), cancel('t')],
      cancelled: [],
      running: ['t'],
    },
    {
      name: 'messages without a session are passed over',
      messages: [
        { jsonrpc: '2.0', id: 9, method: 'initialize', params: {} },
        { jsonrpc: '2.0', id: 1, result: {} },
      ],
      cancelled: [],
      running: [],
    },
  ])('$name', ({ messages, cancelled, running }) => {
    const cancelRunning: string[] = [];
    const order = new ArrivalOrder((sessionId) => cancelRunning.push(sessionId));
    for (const message of messages) order.observe(message);
    const ids = messages.flatMap((m) =>
      'id' in m && 'method' in m && m.method === 'session/prompt' ? [m.id] : [],
    );
    expect(ids.filter((id) => order.cancelledBeforeStart(id))).toEqual(cancelled);
    expect(cancelRunning).toEqual(running);
  });

  it('asks once per prompt: its handler has taken it', () => {
    const order = new ArrivalOrder(() => {});
    order.observe(prompt(1));
    order.observe(cancel());
    expect(order.cancelledBeforeStart(1)).toBe(true);
    expect(order.cancelledBeforeStart(1)).toBe(false);
  });
});

const setMode = (id: number, sessionId = 's'): AnyMessage => ({
  jsonrpc: '2.0',
  id,
  method: 'session/set_mode',
  params: { sessionId, modeId: 'reviewer' },
});

describe('requests of one session take effect in arrival order', () => {
  /** Which handlers have passed `ready`, after the listed requests settled (in that order). */
  async function passed(messages: AnyMessage[], settle: number[]): Promise<number[]> {
    const order = new ArrivalOrder(() => {});
    for (const message of messages) order.observe(message);
    const through: number[] = [];
    for (const message of messages)
      if ('id' in message && typeof message.id === 'number') {
        const id = message.id;
        void order.ready(id).then(() => through.push(id));
      }
    for (const id of settle) order.settled(id);
    // `ready` resolves in promise callbacks: let every one that can run do so.
    await new Promise((resolve) => setImmediate(resolve));
    return through.sort();
  }

  it.each<{ name: string; messages: AnyMessage[]; settle: number[]; through: number[] }>([
    {
      name: 'a prompt behind a mode switch waits for the switch to be answered',
      messages: [setMode(1), prompt(2)],
      settle: [],
      through: [1],
    },
    {
      name: 'once the switch is answered the prompt goes',
      messages: [setMode(1), prompt(2)],
      settle: [1],
      through: [1, 2],
    },
    {
      name: 'a switch behind a prompt waits for its turn to start',
      messages: [prompt(1), setMode(2)],
      settle: [],
      through: [1],
    },
    {
      name: 'every earlier request, not only the last',
      messages: [setMode(1), setMode(2), prompt(3)],
      settle: [2],
      through: [1],
    },
    {
      name: 'another session’s requests are not waited for',
      messages: [setMode(1, 't'), prompt(2)],
      settle: [],
      through: [1, 2],
    },
    {
      name: 'a cancel is not a request: nothing waits for it',
      messages: [cancel(), prompt(1)],
      settle: [],
      through: [1],
    },
  ])('$name', async ({ messages, settle, through }) => {
    expect(await passed(messages, settle)).toEqual(through);
  });

  it('a response written to the client settles its request, an agent request does not', async () => {
    const order = new ArrivalOrder(() => {});
    order.observe(setMode(1));
    order.observe(prompt(2));
    const written: AnyMessage[] = [];
    const writer = order
      .tapAnswers(new WritableStream<AnyMessage>({ write: (m) => void written.push(m) }))
      .getWriter();
    let started = false;
    const ready = order.ready(2).then(() => {
      started = true;
    });
    await writer.write({ jsonrpc: '2.0', id: 1, method: 'session/request_permission', params: {} });
    await new Promise((resolve) => setImmediate(resolve));
    expect(started).toBe(false);
    await writer.write({ jsonrpc: '2.0', id: 1, error: { code: -32602, message: 'bad params' } });
    await ready;
    expect(started).toBe(true);
    expect(written).toHaveLength(2);
  });
});
