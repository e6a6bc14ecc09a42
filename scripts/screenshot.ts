// `npm run screenshot`: the README's picture of the web UI (docs/web-ui.png), made the way the tests run it:
// `cadre web` in a throwaway project on the offline scripted model, driven by headless Debian Chromium.
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const OUTPUT = join(ROOT, 'docs', 'web-ui.png');

const GREET_BEFORE = 'export function greet(name: string): string {\n  return "Helo, " + name + "!";\n}\n';

const SCRIPT = {
  rules: [
    {
      name: 'writer',
      match: { system: 'You write changelog entries' },
      turns: [
        {
          text: 'Adding the entry.',
          tool_calls: [
            {
              name: 'write',
              arguments: { path: 'CHANGELOG.md', content: '# Changelog\n\n- Fix the greeting typo.\n' },
            },
          ],
        },
      ],
    },
    {
      name: 'main',
      match: { last_user: 'Fix the greeting' },
      turns: [
        {
          text: 'I will track the work and fix the typo in `src/greet.ts`.',
          tool_calls: [
            {
              name: 'write_todo_list',
              arguments: {
                todos: [
                  { content: 'Fix the greeting typo', status: 'completed' },
                  { content: 'Add a changelog entry', status: 'in_progress' },
                  { content: 'Ask the reviewer for a look', status: 'pending' },
                ],
              },
            },
            {
              name: 'edit',
              arguments: { path: 'src/greet.ts', old_string: 'Helo', new_string: 'Hello' },
            },
          ],
        },
        {
          text: 'Fixed. The function now reads:\n\n```ts\nexport function greet(name: string): string {\n  return "Hello, " + name + "!";\n}\n```\n\nThe **writer** adds a changelog entry in the background.',
          tool_calls: [
            {
              name: 'task',
              arguments: {
                agent: 'writer',
                description: 'changelog entry',
                prompt: 'Add a changelog entry for the greeting fix',
                background: true,
              },
            },
          ],
        },
        { text: 'The writer is on it; its result comes back here when it finishes.' },
      ],
    },
  ],
};

function project(): { dir: string; configDir: string } {
  const root = mkdtempSync(join(tmpdir(), 'cadre-screenshot-'));
  const dir = join(root, 'project');
  const configDir = join(root, 'config');
  const files: Record<string, string> = {
    'src/greet.ts': GREET_BEFORE,
    '.cadre/script.json': `${JSON.stringify(SCRIPT, null, 2)}\n`,
    '.cadre/config.json': `${JSON.stringify(
      {
        providers: { demo: { type: 'scripted', script: 'script.json', model: 'scripted-demo' } },
        provider: 'demo',
        permission: { allow: ['edit(src/**)', 'write_todo_list'] },
        subagent_write_isolation: 'serialize',
      },
      null,
      2,
    )}\n`,
    '.cadre/agents/writer.md':
      '---\ndescription: writes changelog entries and docs\nsubagent_tools: readwrite\n---\nYou write changelog entries.\n',
    '.cadre/agents/reviewer.md':
      '---\ndescription: reviews a change, read-only\nread-only: true\n---\nYou review.\n',
  };
  for (const [name, content] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, name)), { recursive: true });
    writeFileSync(join(dir, name), content);
  }
  mkdirSync(configDir);
  return { dir, configDir };
}

function startWeb(dir: string, configDir: string): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(process.execPath, [join(ROOT, 'bin', 'cadre.js'), 'web', '--port', '0'], {
    cwd: dir,
    env: { ...process.env, CADRE_CONFIG_DIR: configDir, ANTHROPIC_API_KEY: '', OPENAI_API_KEY: '' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
      out += chunk;
      const match = /Open (\S+)/.exec(out);
      if (match) resolve({ child, url: match[1] });
    });
    child.on('exit', (code) => reject(new Error(`cadre web exited (${code}):\n${out}`)));
  });
}

const { dir, configDir } = project();
const web = await startWeb(dir, configDir);
const browser = await chromium.launch({
  executablePath: '/usr/bin/chromium',
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run'],
});
try {
  const page = await browser.newPage({ viewport: { width: 1280, height: 800 }, colorScheme: 'light' });
  await page.goto(web.url);
  const box = page.getByRole('textbox', { name: 'Message', exact: true });
  await box.fill('Fix the greeting in src/greet.ts, then get a changelog entry written.');
  await box.press('Enter');
  await page.getByText('The writer is on it').waitFor({ timeout: 30_000 });
  await page.getByRole('dialog').waitFor({ timeout: 30_000 });
  await page.getByRole('button', { name: 'Kill' }).waitFor();
  await page.getByText('ready', { exact: true }).waitFor();
  mkdirSync(dirname(OUTPUT), { recursive: true });
  await page.screenshot({ path: OUTPUT });
  process.stdout.write(`wrote ${OUTPUT}\n`);
} finally {
  await browser.close();
  web.child.kill('SIGINT');
  await new Promise((done) => web.child.once('exit', done));
  rmSync(dirname(dir), { recursive: true, force: true });
}
