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
