import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import stringWidth from 'string-width';
import { describe, expect, it } from 'vitest';
import { script, scriptedServer } from '../support/llm-server.js';
import { cadreTerminal, KEYS } from '../support/terminal.js';
import { cadreIn, servedProject } from './harness.js';

/** The status line: the bottom non-empty row of the screen. */
function statusLine(screen: string): string {
  const rows = screen.split('\n').filter((row) => row.trim() !== '');
  return rows[rows.length - 1] ?? '';
}

describe('cadre interactive UI in a real terminal', { timeout: 90_000 }, () => {
  it('streams an answer with a code block', async () => {
    const server = await scriptedServer(
      script().text('Here is the code:\n\n```ts\nconst answer = 42;\n```\n\nThat is all.'),
    );
    const project = servedProject(server);
    const tui = cadreTerminal(project);
    await tui.waitFor(/ask anything/);
    tui.type('show me the code\r');
    const screen = await tui.waitFor(/That is all\./);
    expect(screen).toContain('› show me the code');
    expect(screen).toContain('Here is the code:');
    // Without colour the fence stays, so code still reads as code.
    expect(screen).toMatch(/```ts\n {2}const answer = 42;\n```/);
    expect(server.requests[0].view.messages.at(-1)?.text).toBe('show me the code');
  });

  it('shows a tool card and the diff of an edit, and answers an ask with the keyboard', async () => {
    const server = await scriptedServer(
      script()
        .turn((t) => t.tool('edit', { path: 'src/a.ts', old_string: 'return 1;', new_string: 'return 2;' }))
        .text('Edited the file.'),
    );
    const project = servedProject(server, {
      files: { 'src/a.ts': 'export function f() {\n  return 1;\n}\n' },
    });
    const tui = cadreTerminal(project);
    await tui.waitFor(/ask anything/);
    tui.type('bump the number\r');
    const modal = await tui.waitFor(/1\. Allow once/);
    expect(modal).toContain('Permission · main');
    expect(modal).toContain('edit(src/a.ts)');
    expect(modal).toContain('4. Deny and tell the model why');
    tui.type('t');
    await tui.waitFor(/Decision trace/);
    tui.type(KEYS.down);
    await tui.waitFor(/› 2\. Always allow/);
    tui.type(KEYS.up);
    await tui.waitFor(/› 1\. Allow once/);
    tui.type(KEYS.enter);
    const screen = await tui.waitFor(/Edited the file\./);
    expect(screen).toContain('▸ edit src/a.ts');
    expect(screen).toContain('│ -return 1;');
    expect(screen).toContain('│ +return 2;');
    expect(readFileSync(join(project.dir, 'src/a.ts'), 'utf8')).toContain('return 2;');
  });

  it('denies with a message typed in the modal, and the model reads it', async () => {
    const server = await scriptedServer(
      script()
        .turn((t) => t.tool('bash', { command: 'rm -rf build' }))
        .text('Understood.'),
    );
    const project = servedProject(server);
    const tui = cadreTerminal(project);
    await tui.waitFor(/ask anything/);
    tui.type('clean up\r');
    await tui.waitFor(/bash\(rm -rf build\)/);
    tui.type('4');
    await tui.waitFor(/Tell the model:/);
    tui.type('keep the build folder');
    await tui.waitFor(/keep the build folder/);
    tui.type(KEYS.enter);
    await tui.waitFor(/Understood\./);
    const result = server.requests[1].view.messages.find((m) => m.role === 'tool');
    expect(result?.text).toContain('keep the build folder');
  });

  it('/agent reviewer changes the status line and the next request', async () => {
    const server = await scriptedServer(script().text('Reviewed.'));
    const project = servedProject(server, {
      files: {
        '.cadre/agents/reviewer.md':
          '---\ndescription: Reviews changes\n---\nYou are the careful reviewer persona.\n',
      },
    });
    const tui = cadreTerminal(project);
    const first = await tui.waitFor(/ask anything/);
    expect(statusLine(first)).toContain('agent default');
    tui.type('/agent reviewer\r');
    await tui.waitFor((screen) => statusLine(screen).includes('agent reviewer'));
    tui.type('look at it\r');
    await tui.waitFor(/Reviewed\./);
    expect(server.requests[0].view.system).toContain('careful reviewer persona');
  });

  it("/help lists every command with one line each, the view's own included", async () => {
    const server = await scriptedServer(script().text('unused'));
    const project = servedProject(server);
    const tui = cadreTerminal(project, [], { rows: 50 });
    await tui.waitFor(/ask anything/);
    tui.type('/help\r');
    await tui.waitFor(/\/expand \[N\]/);
    const text = tui.history();
    for (const command of [
      '/agents',
      '/agent <name>|off',
      '/prompt',
      '/tasks',
      '/kill <id-prefix>',
      '/why',
      '/model',
      '/effort',
      '/compact',
      '/clear',
      '/quit',
      '/<profile> <task>',
    ]) {
      expect(text).toContain(command);
    }
  });

  it('lists the known names for an unknown profile and keeps the state', async () => {
    const server = await scriptedServer(script().text('unused'));
    const project = servedProject(server);
    const tui = cadreTerminal(project);
    await tui.waitFor(/ask anything/);
    tui.type('/agent nosuch\r');
    const screen = await tui.waitFor(
      (s) => /unknown profile "nosuch"; known: .*explore/.test(s) && statusLine(s).includes('safety'),
    );
    expect(statusLine(screen)).toContain('agent default');
    expect(server.requests).toHaveLength(0);
  });

  it('lists close matches for an unknown slash command', async () => {
    const server = await scriptedServer(script().text('unused'));
    const project = servedProject(server);
    const tui = cadreTerminal(project);
    await tui.waitFor(/ask anything/);
    tui.type('/agnet\r');
    const screen = await tui.waitFor(/unknown command \/agnet/);
    expect(screen).toMatch(/did you mean .*\/agent/);
    expect(server.requests).toHaveLength(0);
  });

  it('refuses /kill with an unknown id prefix', async () => {
    const server = await scriptedServer(script().text('unused'));
    const project = servedProject(server);
    const tui = cadreTerminal(project);
    await tui.waitFor(/ask anything/);
    tui.type('/kill zzzz\r');
    await tui.waitFor(/Unknown task "zzzz"/);
  });

  it('Esc interrupts a slow model, and the session goes on', async () => {
    const server = await scriptedServer(
      script()
        .rule({ last_user: 'slow' })
        .turn((t) => t.delay(2000).text('too late'))
        .rule({ last_user: 'again' })
        .text('Back again.'),
    );
    const project = servedProject(server);
    const tui = cadreTerminal(project);
    await tui.waitFor(/ask anything/);
    tui.type('slow please\r');
    await tui.waitFor(/esc to interrupt/);
    tui.type(KEYS.escape);
    await tui.waitFor(/Interrupted/);
    tui.type('again\r');
    const screen = await tui.waitFor(/Back again\./);
    expect(screen).not.toContain('too late');
  });

  it('reports a provider failure mid-turn as an error line and keeps the session', async () => {
    const server = await scriptedServer(
      script()
        .rule({ last_user: 'fail' })
        .turn((t) => t.error(500, 'upstream exploded'))
        .rule({ last_user: 'recover' })
        .text('Recovered.'),
    );
    const project = servedProject(server);
    const tui = cadreTerminal(project);
    await tui.waitFor(/ask anything/);
    tui.type('fail now\r');
    await tui.waitFor(/upstream exploded/);
    tui.type('recover\r');
    await tui.waitFor(/Recovered\./);
  });

  it('shows a background subagent in the panel with its step, and removes it when done', async () => {
    const server = await scriptedServer(
      script()
        .rule({ first_user: 'count slowly' }, 'child')
        .turn((t) => t.tool('bash', { command: 'sleep 3' }))
        .text('Counted.')
        // The child's result comes back to the main agent as a new user message (a system reminder).
        .rule({ last_user: 'Counted.' }, 'main, after the child')
        .text('The subagent finished.')
        .rule({}, 'main')
        .turn((t) =>
          t.tool('task', {
            prompt: 'count slowly',
            description: 'slow count',
            agent: 'general',
            background: true,
          }),
        )
        .text('Started it.'),
    );
    const project = servedProject(server, {
      git: true,
      config: { permission: { allow: ['bash(sleep *)'] } },
    });
    const tui = cadreTerminal(project, ['--yes']);
    await tui.waitFor(/ask anything/);
    tui.type('start a background count\r');
    const panel = await tui.waitFor(/\(bg\) · bash sleep 3/);
    expect(panel).toMatch(/general \(bg\) · bash sleep 3 · \d+s/);
    await tui.waitFor(/The subagent finished\./);
    await tui.waitFor((screen) => !screen.includes('(bg) ·'));
  });

  it('keeps the screen whole when resized from 120x40 to 80x24', async () => {
    const answer = Array.from({ length: 6 }, (_, i) => `Paragraph ${i + 1} ${'word '.repeat(20)}`).join(
      '\n\n',
    );
    const server = await scriptedServer(script().text(`${answer}\n\nLast line of the answer.`));
    const project = servedProject(server);
    const tui = cadreTerminal(project, [], { cols: 120, rows: 40 });
    await tui.waitFor(/ask anything/);
    tui.type('write a lot\r');
    await tui.waitFor(/Last line of the answer\./);
    tui.type('draft that stays');
    await tui.waitFor(/draft that stays/);
    tui.resize(80, 24);
    const screen = await tui.waitFor(
      (s) =>
        s.includes('Last line of the answer.') &&
        s.includes('› draft that stays') &&
        statusLine(s).includes('agent default'),
    );
    const rows = screen.split('\n');
    expect(rows).toHaveLength(24);
    for (const row of rows) expect(stringWidth(row)).toBeLessThanOrEqual(80);
    expect(statusLine(screen)).toMatch(/^scripted-model .*\$/);
    // The answer was printed again at the new width: its paragraphs wrap within 80 columns.
    expect(tui.history()).toMatch(/Paragraph 6 (word ){10}/);
  });

  it('Ctrl+C clears the input, Tab completes a profile name, Ctrl+O prints a collapsed result in full', async () => {
    const server = await scriptedServer(
      script()
        .turn((t) => t.tool('bash', { command: 'seq 101 120' }))
        .text('Counted.'),
    );
    const project = servedProject(server, {
      files: { '.cadre/agents/scribe.md': '---\ndescription: Writes notes\n---\nYou write notes.\n' },
      config: { permission: { allow: ['bash(seq *)'] } },
    });
    const tui = cadreTerminal(project);
    await tui.waitFor(/ask anything/);
    tui.type('a draft to throw away');
    await tui.waitFor(/› a draft to throw away/);
    tui.type(KEYS.ctrlC);
    await tui.waitFor((screen) => !screen.includes('a draft to throw away'));
    tui.type('/agent scr');
    await tui.waitFor(/› \/agent scr/);
    tui.type(KEYS.tab);
    await tui.waitFor(/› \/agent scribe /);
    tui.type(KEYS.ctrlC);
    await tui.waitFor((screen) => !screen.includes('/agent scribe'));
    tui.type('count\r');
    const collapsed = await tui.waitFor(/Counted\./);
    expect(collapsed).toContain('▸ bash seq 101 120');
    expect(collapsed).toMatch(/\+\d+ lines \(ctrl\+o or \/expand 1\)/);
    expect(collapsed).not.toContain('118');
    tui.type(KEYS.ctrlO);
    await tui.waitFor(/118\n.*119\n.*120/);
  });

  it('queues a prompt typed while a turn runs and shows it as queued', async () => {
    const server = await scriptedServer(
      script()
        .rule({ last_user: 'first' })
        .turn((t) => t.delay(1500).text('First done.'))
        .rule({ last_user: 'second' })
        .text('Second done.'),
    );
    const project = servedProject(server);
    const tui = cadreTerminal(project);
    await tui.waitFor(/ask anything/);
    tui.type('first\r');
    await tui.waitFor(/esc to interrupt/);
    tui.type('second\r');
    await tui.waitFor(/queued: second/);
    await tui.waitFor(/Second done\./);
  });

  it('sends Shift+Enter, Alt+Enter and a trailing backslash as new lines, a paste as one input', async () => {
    const server = await scriptedServer(script().text('Got it.'));
    const project = servedProject(server);
    const tui = cadreTerminal(project);
    await tui.waitFor(/ask anything/);
    tui.type('one');
    tui.type(KEYS.shiftEnter);
    tui.type('two');
    tui.type(KEYS.altEnter);
    tui.type('three\\');
    tui.type(KEYS.enter);
    tui.type('\u001b[200~four\rfive\u001b[201~');
    await tui.waitFor(/five/);
    tui.type(KEYS.enter);
    await tui.waitFor(/Got it\./);
    expect(server.requests[0].view.messages.at(-1)?.text).toBe('one\ntwo\nthree\nfour\nfive');
  });

  it('recalls the last prompt with Up in a new session of the same project', async () => {
    const server = await scriptedServer(script().text('Noted.').text('Noted again.'));
    const project = servedProject(server);
    const first = cadreTerminal(project);
    await first.waitFor(/ask anything/);
    first.type('remember this prompt\r');
    await first.waitFor(/Noted\./);
    first.type(KEYS.ctrlC);
    first.type(KEYS.ctrlC);
    expect(await first.exited).toBe(0);
    const second = cadreTerminal(project);
    await second.waitFor(/ask anything/);
    second.type(KEYS.up);
    await second.waitFor(/› remember this prompt/);
  });

  it('starts with the prompt given on the command line, and /quit ends it', async () => {
    const server = await scriptedServer(script().text('Answered at once.'));
    const project = servedProject(server);
    const tui = cadreTerminal(project, ['what is this repo']);
    await tui.waitFor(/Answered at once\./);
    expect(server.requests[0].view.messages.at(-1)?.text).toBe('what is this repo');
    tui.type('/quit\r');
    expect(await tui.exited).toBe(0);
  });

  it('--prompt NAME selects the prompt layer at start, as headless does', async () => {
    const server = await scriptedServer(script().text('Planned.'));
    const project = servedProject(server, {
      files: { '.cadre/prompts/planner.md': '---\nmode: plan\n---\nYou plan before you act.\n' },
    });
    const tui = cadreTerminal(project, ['--prompt', 'planner', 'make a plan']);
    await tui.waitFor(/Planned\./);
    expect(server.requests[0].view.system).toContain('You plan before you act.');
    tui.type('/quit\r');
    expect(await tui.exited).toBe(0);
  });

  it('completes @path from project files, leaving ignored files out', async () => {
    const server = await scriptedServer(script().text('Read it.'));
    const project = servedProject(server, {
      files: { '.gitignore': 'secret/\n', 'src/widget.ts': 'export {}\n', 'secret/widget-key.txt': 'k' },
    });
    const tui = cadreTerminal(project);
    await tui.waitFor(/ask anything/);
    tui.type('look at @widg');
    const menu = await tui.waitFor(/@src\/widget\.ts/);
    expect(menu).not.toContain('widget-key');
    tui.type(KEYS.tab);
    await tui.waitFor(/› look at @src\/widget\.ts /);
    tui.type('please\r');
    // The file is attached through the main agent's gated read, shown as its card.
    const screen = await tui.waitFor(/Read it\./);
    expect(screen).toContain('▸ read src/widget.ts');
    const sent = server.requests[0].view.messages.at(-1)?.text ?? '';
    expect(sent).toMatch(
      /^look at @src\/widget\.ts please\n\n<attachment path="src\/widget\.ts">\n.*export \{\}/s,
    );
  });

  it('opens a continued session with its conversation so far', async () => {
    const server = await scriptedServer(
      script().rule({ last_user: 'first question' }).text('First answer.').rule({}).text('Second answer.'),
    );
    const project = servedProject(server);
    const headless = await cadreIn(project, ['-p', 'first question']);
    expect(headless.code).toBe(0);
    const tui = cadreTerminal(project, ['--continue']);
    const screen = await tui.waitFor(/ask anything/);
    expect(screen).toContain('› first question');
    expect(screen).toContain('First answer.');
    tui.type('second question\r');
    await tui.waitFor(/Second answer\./);
    expect(server.requests[1].view.messages.map((m) => m.text)).toContain('First answer.');
  });

  it.each([
    { when: 'read at start (a provider that is not a string)', broken: { config: { provider: 42 } } },
    {
      when: 'found only when the session opens (a malformed rule)',
      broken: { config: { permission: { allow: ['bash(('] } } },
    },
  ])(
    'stops with the headless exit-2 message for a config error $when, before drawing',
    async ({ broken }) => {
      const server = await scriptedServer(script().text('unused'));
      const project = servedProject(server, broken);
      const headless = await cadreIn(project, ['-p', 'x']);
      expect(headless.code).toBe(2);
      const tui = cadreTerminal(project);
      expect(await tui.exited).toBe(2);
      expect(tui.output()).toContain(headless.stderr.trim().split('\n')[0]);
      expect(tui.output()).not.toContain('ask anything');
    },
  );

  it('draws plain ASCII without colour when the terminal has neither', async () => {
    const server = await scriptedServer(script().text('Plain.'));
    const project = servedProject(server);
    const tui = cadreTerminal(project, [], { env: { LANG: 'C', LC_ALL: 'C', NO_COLOR: '1' } });
    const screen = await tui.waitFor(/ask anything/);
    expect(tui.output()).not.toMatch(/\u001b\[3[0-9]m/);
    expect(screen).toMatch(/^[\x20-\x7e\n]*$/);
  });
});
