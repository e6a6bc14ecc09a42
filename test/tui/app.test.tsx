import { render } from 'ink-testing-library';
import { describe, expect, it } from 'vitest';
import type {
  ControllerEvent,
  ControllerState,
  SequencedEvent,
  UserAnswer,
} from '../../src/controller/types.js';
import { App, type SessionPort } from '../../src/tui/app.js';
import { ProjectFiles } from '../../src/tui/input/file-index.js';
import { PromptHistory } from '../../src/tui/input/history.js';
import { TranscriptStore } from '../../src/tui/store/transcript-store.js';
import { PLAIN_THEME } from '../../src/tui/theme.js';

const STATE: ControllerState = {
  seq: 0,
  sessionId: 's1',
  projectRoot: '/p',
  status: 'idle',
  turn: null,
  profile: null,
  prompt: null,
  planMode: false,
  safety: 'full',
  model: { label: 'scripted-model', model: 'scripted-model', alias: null, contextWindow: 100_000 },
  effort: null,
  usage: { inputTokens: 0, outputTokens: 0 },
  costUsd: 0,
  contextTokens: 0,
  subagents: [],
  batches: [],
  asks: [],
  queue: [],
  todos: [],
};

class FakeSession implements SessionPort {
  submitted: string[] = [];
  answers: [string, UserAnswer][] = [];
  interrupts = 0;
  submit(text: string) {
    this.submitted.push(text);
    return { outcome: Promise.resolve({ quit: text === '/quit' }) };
  }
  interrupt() {
    this.interrupts++;
    return true;
  }
  answer(askId: string, answer: UserAnswer) {
    this.answers.push([askId, answer]);
    return { ok: true };
  }
  commands() {
    return [
      { name: 'agent', summary: 'switch profile', args: '<name>|off' },
      { name: 'agents', summary: 'list profiles', args: '' },
    ];
  }
  complete(line: string) {
    return ['/agent', '/agents'].filter((c) => c.startsWith(line));
  }
}

let seq = 0;
const ev = (event: ControllerEvent): SequencedEvent => ({ seq: ++seq, time: 0, event });

async function tick() {
  await new Promise((r) => setImmediate(r));
  await new Promise((r) => setImmediate(r));
}

function setup() {
  const session = new FakeSession();
  const store = new TranscriptStore(STATE);
  const ui = render(
    <App
      session={session}
      store={store}
      theme={PLAIN_THEME}
      history={PromptHistory.inMemory(['earlier'])}
      files={new ProjectFiles('/nonexistent')}
    />,
  );
  return { session, store, ui };
}

describe('App', () => {
  it('types, sends on Enter and shows the streamed answer', async () => {
    const { session, store, ui } = setup();
    ui.stdin.write('hello');
    await tick();
    expect(ui.lastFrame()).toContain('> hello');
    ui.stdin.write('\r');
    await tick();
    expect(session.submitted).toEqual(['hello']);
    store.apply(ev({ type: 'turn_started', turnId: 't', origin: 'user', input: 'hello' }));
    store.apply(ev({ type: 'text_delta', agent: 'main', text: 'Here:\n\n```ts\nconst a = 1;\n```\n\nDone' }));
    await tick();
    const frame = ui.lastFrame() ?? '';
    expect(frame).toContain('const a = 1;');
    expect(frame).toContain('Done');
    ui.unmount();
  });

  it('answers an ask with a number key', async () => {
    const { session, store, ui } = setup();
    store.apply(
      ev({
        type: 'state',
        state: {
          ...STATE,
          asks: [
            {
              id: 'a1',
              agent: 'main',
              chain: ['main'],
              label: 'main',
              background: false,
              openedAt: 0,
              kind: 'permission',
              permission: {
                id: 'p',
                agent: 'main',
                tool: 'bash',
                input: { command: 'rm -rf build' },
                suggestedRule: 'bash(rm *)',
                decision: {
                  action: 'ask',
                  layer: 'x',
                  safety: 'destructive',
                  reason: 'ask: destructive',
                  trace: [],
                },
              },
            },
          ],
        },
      }),
    );
    await tick();
    expect(ui.lastFrame()).toContain('bash(rm -rf build)');
    ui.stdin.write('3');
    await tick();
    expect(session.answers).toEqual([['a1', { kind: 'deny' }]]);
    ui.unmount();
  });

  it('walks history with Up', async () => {
    const { ui } = setup();
    ui.stdin.write('\u001b[A');
    await tick();
    expect(ui.lastFrame()).toContain('> earlier');
    ui.unmount();
  });

  it('completes slash commands with Tab', async () => {
    const { ui } = setup();
    ui.stdin.write('/age');
    await tick();
    expect(ui.lastFrame()).toContain('switch profile');
    ui.stdin.write('\t');
    await tick();
    expect(ui.lastFrame()).toContain('> /agent ');
    ui.unmount();
  });
});
