import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { script, scriptedServer } from '../support/llm-server.js';
import { freshContext, openSession, sendPrompt, sharedBrowser } from './browser.js';
import { cadreIn, servedProject } from './harness.js';
import { startWeb } from './web-harness.js';

const browser = sharedBrowser();

/** Polls until `read` returns what is expected (the page updates from its event stream). */
const eventually = <T>(read: () => Promise<T>) => expect.poll(read, { timeout: 20_000, interval: 100 });

const WRITER =
  '---\ndescription: writes files\nsubagent_tools: readwrite\n---\nWRITER-BODY: you write files.\n';
const REVIEWER = '---\ndescription: reviews changes\n---\nREVIEWER-BODY: you review changes.\n';
const SLOWPOKE = '---\ndescription: takes its time\n---\nSLOWPOKE-BODY: you are slow.\n';

describe('cadre web in Chromium', { timeout: 90_000 }, () => {
  it('streams an answer with markdown and code, shows a tool card with its diff after an ask; a reload shows the same conversation; a past session reopens', async () => {
    const server = await scriptedServer(
      script()
        .rule({ last_user: 'earlier question' })
        .text('Earlier answer.')
        .rule({ last_user: 'follow up' })
        .text('Following up on the earlier session.')
        .rule({ last_user: 'say hello' })
        .text('Hello from **cadre**.\n\n```ts\nconst answer: number = 42;\n```\n')
        .rule({ last_user: 'fix the greeting' })
        .turn((t) =>
          t
            .text('Fixing it.')
            .tool('edit', { path: 'greeting.txt', old_string: 'helo', new_string: 'hello' }),
        )
        .text('Fixed the greeting.'),
    );
    const project = servedProject(server, { files: { 'greeting.txt': 'helo world\n' } });
    expect((await cadreIn(project, ['-p', 'earlier question'])).code).toBe(0);
    const web = await startWeb(project);
    const context = await freshContext(browser());
    const page = await openSession(context, web.url);
    // The token left the address bar: the page sits at / with its session key.
    expect(new URL(page.url()).pathname).toBe('/');

    await sendPrompt(page, 'say hello');
    const answer = page.getByRole('article', { name: 'Assistant' }).first();
    await answer.getByText('Hello from').waitFor();
    expect(await answer.locator('strong').textContent()).toBe('cadre');
    expect(await answer.locator('pre code .hljs-keyword').first().textContent()).toBe('const');

    await sendPrompt(page, 'fix the greeting');
    const dialog = page.getByRole('dialog');
    await dialog.waitFor();
    expect(await dialog.textContent()).toContain('edit greeting.txt');
    expect(await dialog.textContent()).toContain('Asked by main');
    await dialog.getByRole('button', { name: 'Allow once', exact: true }).click();
    await dialog.waitFor({ state: 'detached' });
    await page.getByText('Fixed the greeting.').waitFor();
    const card = page.getByRole('article', { name: 'Tool call edit' });
    expect(await card.locator('.diff-del').textContent()).toContain('helo');
    expect(await card.locator('.diff-add').textContent()).toContain('hello');
    expect(await card.getByText('done', { exact: true }).count()).toBe(1);
    expect(readFileSync(project.path('greeting.txt'), 'utf8')).toBe('hello world\n');

    const before = await page.locator('.transcript').textContent();
    await page.reload();
    await page.getByText('Fixed the greeting.').waitFor();
    expect(await page.locator('.transcript').textContent()).toBe(before);

    // Narrow and dark: nothing runs off the side, and the colours follow the system setting.
    const light = await page.evaluate('getComputedStyle(document.body).backgroundColor');
    await page.emulateMedia({ colorScheme: 'dark' });
    expect(await page.evaluate('getComputedStyle(document.body).backgroundColor')).not.toBe(light);
    await page.setViewportSize({ width: 420, height: 800 });
    expect(await page.evaluate('document.documentElement.scrollWidth <= window.innerWidth')).toBe(true);
    await page.setViewportSize({ width: 1280, height: 800 });

    await page.getByRole('heading', { name: 'Past sessions' }).click();
    await page.getByRole('button', { name: 'earlier question' }).click();
    await page.getByText('Earlier answer.').waitFor();
    expect(await page.getByText('Fixed the greeting.').count()).toBe(0);
    await sendPrompt(page, 'follow up');
    await page.getByText('Following up on the earlier session.').waitFor();
    const followUp = server.requests.at(-1);
    expect(followUp?.view.messages.map((m) => m.text)).toEqual([
      'earlier question',
      'Earlier answer.',
      'follow up',
    ]);

    expect(await web.stop()).toEqual({ code: 0, signal: null });
  });

  it('a subagent’s ask shows its chain in every tab; answered in one, it leaves the other', async () => {
    const server = await scriptedServer(
      script()
        .rule({ system: 'WRITER-BODY' })
        .turn((t) => t.tool('write', { path: 'notes.txt', content: 'from the writer\n' }))
        .text('Wrote notes.txt.')
        .rule()
        .turn((t) =>
          t.tool('task', { agent: 'writer', prompt: 'write the notes', description: 'write notes' }),
        )
        .text('The writer finished.'),
    );
    const project = servedProject(server, { files: { '.cadre/agents/writer.md': WRITER } });
    const web = await startWeb(project);
    const context = await freshContext(browser());
    const first = await openSession(context, web.url);
    const second = await context.newPage();
    await second.goto(`${web.origin}/`);
    await second.getByRole('textbox', { name: 'Message', exact: true }).waitFor();

    await sendPrompt(first, 'delegate the notes');
    for (const page of [first, second]) {
      const dialog = page.getByRole('dialog');
      await dialog.waitFor();
      expect(await dialog.textContent()).toContain('main › writer');
      expect(await dialog.textContent()).toContain('write notes.txt');
      // The running subagent is in the panel meanwhile, with its Kill button.
      await page
        .getByRole('listitem', { name: /writer/ })
        .getByRole('button', { name: 'Kill' })
        .waitFor();
    }
    await first.getByRole('dialog').getByRole('button', { name: 'Allow once', exact: true }).click();
    await second.getByRole('dialog').waitFor({ state: 'detached' });
    await first.getByRole('dialog').waitFor({ state: 'detached' });
    for (const page of [first, second]) await page.getByText('The writer finished.').waitFor();
    expect(readFileSync(project.path('notes.txt'), 'utf8')).toBe('from the writer\n');
  });

  it('the profile selector refuses a switch mid-turn, then carries the conversation into the new profile', async () => {
    const server = await scriptedServer(
      script()
        .rule({ last_user: 'take your time' })
        .turn((t) => t.delay(120_000).text('never seen'))
        .rule({ system: 'REVIEWER-BODY' })
        .text('Reviewed, with the history.')
        .rule({ last_user: 'remember the word' })
        .text('I will remember: avocado.')
        .rule({ last_user: 'after the queue' })
        .text('Queued prompt answered.'),
    );
    const project = servedProject(server, { files: { '.cadre/agents/reviewer.md': REVIEWER } });
    const web = await startWeb(project);
    const context = await freshContext(browser());
    const page = await openSession(context, web.url);
    const profile = page.getByRole('combobox', { name: 'Profile' });
    expect(await profile.locator('option').allTextContents()).toEqual(
      expect.arrayContaining(['default', 'reviewer']),
    );
    expect(await profile.inputValue()).toBe('default');

    await sendPrompt(page, 'remember the word avocado');
    await page.getByText('I will remember: avocado.').waitFor();

    await sendPrompt(page, 'take your time');
    await server.waitForRequests(2, 20_000);
    await profile.selectOption('reviewer');
    await page.getByText('cannot switch the profile while a turn is running').waitFor();
    expect(await profile.inputValue()).toBe('default');

    await sendPrompt(page, 'after the queue');
    await page.getByText('waits in the queue').first().waitFor();
    await page.getByRole('list', { name: 'Queued prompts' }).getByText('after the queue').waitFor();
    await page.getByRole('button', { name: 'Stop', exact: true }).click();
    await page.getByText('Interrupted.').waitFor();
    await page.getByText('Queued prompt answered.').waitFor();

    // Slash completion from the keyboard: Tab takes the first offer.
    const box = page.getByRole('textbox', { name: 'Message', exact: true });
    await box.fill('/reviewe');
    await page.getByRole('option', { name: '/reviewer' }).waitFor();
    await box.press('Tab');
    expect(await box.inputValue()).toBe('/reviewer ');
    await box.fill('');

    await profile.selectOption('reviewer');
    await eventually(() => profile.inputValue()).toBe('reviewer');
    const requestsBefore = server.requests.length;
    await sendPrompt(page, 'now review what we did');
    await page.getByText('Reviewed, with the history.').waitFor();
    const request = server.requests[requestsBefore];
    expect(request.view.system).toContain('REVIEWER-BODY');
    const said = request.view.messages.map((m) => m.text);
    expect(said).toEqual(expect.arrayContaining(['remember the word avocado', 'I will remember: avocado.']));
    expect(said.at(-1)).toBe('now review what we did');
  });

  it('a running fleet is drawn as its task graph: nodes with their state, a dependency as an edge, the wait as its cause', async () => {
    const server = await scriptedServer(
      script()
        .rule({ system: 'SLOWPOKE-BODY' })
        .turn((t) => t.delay(120_000).text('never seen'))
        .rule({ last_user: 'system-reminder' })
        .text('Noted.')
        .rule()
        .turn((t) =>
          t.tool('fleet', {
            tasks: [
              { id: 'lint', prompt: 'run the linter', agent: 'slowpoke' },
              { id: 'fix', prompt: 'fix what it finds', agent: 'slowpoke', depends_on: ['lint'] },
            ],
            background: true,
          }),
        )
        .text('The fleet is running.'),
    );
    const project = servedProject(server, { files: { '.cadre/agents/slowpoke.md': SLOWPOKE } });
    const web = await startWeb(project);
    const context = await freshContext(browser());
    const page = await openSession(context, web.url);

    await sendPrompt(page, 'start the fleet');
    await page.getByText('The fleet is running.').waitFor();
    const graph = page.getByRole('img', { name: /^Fleet .* · open:/ });
    await graph.waitFor();
    const label = (await graph.getAttribute('aria-label')) ?? '';
    expect(label).toContain('slowpoke: lint: running');
    expect(label).toContain('slowpoke: fix: queued (waiting: dependencies: lint)');
    expect(await graph.locator('.graph-node.state-running').count()).toBe(1);
    expect(await graph.locator('.graph-node.state-queued').count()).toBe(1);
    expect(await graph.locator('.graph-edge-dependency').count()).toBe(1);
    // The waiting item is listed too, with why it waits and its Kill button.
    const waiting = page.getByRole('listitem', { name: /fix what it finds/ });
    await waiting.getByText('queued, waiting for dependencies: lint').waitFor();
    await waiting.getByRole('button', { name: 'Kill' }).waitFor();
  });

  it('a background subagent appears in the panel and its Kill button cancels it', async () => {
    const server = await scriptedServer(
      script()
        .rule({ system: 'SLOWPOKE-BODY' })
        .turn((t) => t.delay(120_000).text('never seen'))
        .rule({ last_user: 'system-reminder' })
        .text('Noted: the long job was cancelled.')
        .rule()
        .turn((t) =>
          t.tool('task', {
            agent: 'slowpoke',
            prompt: 'a long job',
            description: 'long job',
            background: true,
          }),
        )
        .text('Started it in the background.'),
    );
    const project = servedProject(server, { files: { '.cadre/agents/slowpoke.md': SLOWPOKE } });
    const web = await startWeb(project);
    const context = await freshContext(browser());
    const page = await openSession(context, web.url);

    await sendPrompt(page, 'start the long job');
    await page.getByText('Started it in the background.').waitFor();
    const row = page.getByRole('listitem', { name: /slowpoke/ });
    await row.getByText('background', { exact: true }).waitFor();
    await row.getByText('running', { exact: true }).waitFor();
    await row.getByRole('button', { name: 'Kill' }).click();
    await row.getByRole('button', { name: 'Kill' }).waitFor({ state: 'detached' });
    await page.getByText('Finished (1)').click();
    await row.getByText('cancelled', { exact: true }).waitFor();
    // The cancellation reaches the idle main agent, which takes it up by itself.
    await page.getByText('Noted: the long job was cancelled.').waitFor();
  });
});
