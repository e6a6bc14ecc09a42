import type { ModelMessage } from 'ai';
import { describe, expect, it } from 'vitest';
import { useTempStore } from './temp-store.js';

const turnOne: ModelMessage[] = [
  { role: 'user', content: 'List the files' },
  {
    role: 'assistant',
    content: [
      { type: 'text', text: 'Looking.' },
      { type: 'tool-call', toolCallId: 'call-1', toolName: 'list_dir', input: { path: '.' } },
    ],
  },
  {
    role: 'tool',
    content: [
      {
        type: 'tool-result',
        toolCallId: 'call-1',
        toolName: 'list_dir',
        output: { type: 'text', value: 'src/\ntest/' },
      },
    ],
  },
];

const turnTwo: ModelMessage[] = [
  {
    role: 'assistant',
    content: [{ type: 'text', text: 'Two directories.' }],
    providerOptions: { anthropic: { cacheControl: { type: 'ephemeral' } } },
  },
];

describe('messages table', () => {
  const temp = useTempStore();

  it('round-trips ModelMessages in the order appended, with their turns', () => {
    const { store } = temp();
    const session = store.createSession({ projectRoot: '/r', cwd: '/r' });
    store.appendMessages(session.id, turnOne, 1);
    store.appendMessages(session.id, turnTwo, 2);

    expect(store.loadMessages(session.id)).toEqual([...turnOne, ...turnTwo]);
    expect(store.loadTurns(session.id).map((stored) => stored.turn)).toEqual([1, 1, 1, 2]);
    expect(store.lastTurn(session.id)).toBe(2);
  });

  it('keeps each session’s messages separate', () => {
    const { store } = temp();
    const first = store.createSession({ projectRoot: '/r', cwd: '/r' });
    const second = store.createSession({ projectRoot: '/r', cwd: '/r' });
    store.appendMessages(first.id, turnOne, 1);
    store.appendMessages(second.id, turnTwo, 1);
    store.appendMessages(first.id, turnTwo, 2);

    expect(store.loadMessages(first.id)).toEqual([...turnOne, ...turnTwo]);
    expect(store.loadMessages(second.id)).toEqual(turnTwo);
  });

  it('reports no last turn and no messages for a fresh session', () => {
    const { store } = temp();
    const session = store.createSession({ projectRoot: '/r', cwd: '/r' });
    expect(store.loadMessages(session.id)).toEqual([]);
    expect(store.lastTurn(session.id)).toBeNull();
  });

  it('titles the session from the first user message, on one line and truncated, and keeps it', () => {
    const { store } = temp();
    const session = store.createSession({ projectRoot: '/r', cwd: '/r' });
    const long = `Fix the\n  parser ${'x'.repeat(200)}`;
    store.appendMessages(session.id, [{ role: 'user', content: [{ type: 'text', text: long }] }], 1);
    store.appendMessages(session.id, [{ role: 'user', content: 'a later message' }], 2);

    const title = store.getSession(session.id)?.title ?? '';
    expect(title.startsWith('Fix the parser xxx')).toBe(true);
    expect(title).toHaveLength(80);
    expect(title.endsWith('…')).toBe(true);
  });

  it('stores binary image data as base64 the ai SDK accepts back', () => {
    const { store } = temp();
    const session = store.createSession({ projectRoot: '/r', cwd: '/r' });
    const bytes = new Uint8Array([137, 80, 78, 71]);
    store.appendMessages(
      session.id,
      [
        {
          role: 'user',
          content: [
            { type: 'image', image: bytes, mediaType: 'image/png' },
            { type: 'image', image: Buffer.from(bytes) },
            { type: 'image', image: new URL('https://example.com/a.png') },
          ],
        },
      ],
      1,
    );
    const [message] = store.loadMessages(session.id);
    expect(message.content).toEqual([
      { type: 'image', image: 'iVBORw==', mediaType: 'image/png' },
      { type: 'image', image: 'iVBORw==' },
      { type: 'image', image: 'https://example.com/a.png' },
    ]);
  });

  it('rejects a turn that cannot be serialised without storing any of it', () => {
    const { store } = temp();
    const session = store.createSession({ projectRoot: '/r', cwd: '/r' });
    store.appendMessages(session.id, turnOne, 1);
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    const broken: ModelMessage[] = [
      ...turnTwo,
      { role: 'assistant', content: [{ type: 'tool-call', toolCallId: 'c', toolName: 't', input: cyclic }] },
    ];
    expect(() => store.appendMessages(session.id, broken, 2)).toThrow();
    expect(store.loadMessages(session.id)).toEqual(turnOne);
  });

  it('refuses messages for an unknown session', () => {
    expect(() => temp().store.appendMessages('ghost', turnOne, 1)).toThrow(/FOREIGN KEY/);
  });
});
