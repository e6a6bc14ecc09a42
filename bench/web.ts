import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chromium } from 'playwright-core';
import { startScriptedServer } from '../src/provider/scripted/server.js';
import { type BenchProject, benchProject, CADRE_BIN, median, now } from './cli-run.js';

const CHROMIUM = '/usr/bin/chromium';

export interface WebBenchResult {
  runs: number;
  /** Spawn of `cadre web` to its URL on stdout. */
  startMedianMs: number;
  /** In the page: Send pressed to the first character of the answer on screen; null without Chromium. */
  firstByteMedianMs: number | null;
  prompts: number;
}

interface LiveWeb {
  url: string;
  spawnedAt: number;
  printedAt: number;
  stop(): Promise<void>;
}

function startWeb(project: BenchProject): Promise<LiveWeb> {
  const env: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: '1', CADRE_CONFIG_DIR: project.configDir };
  delete env.ANTHROPIC_API_KEY;
  delete env.OPENAI_API_KEY;
  return new Promise((resolve, reject) => {
    const spawnedAt = now();
    const child = spawn(process.execPath, [CADRE_BIN, 'web', '--port', '0'], {
      cwd: project.dir,
      env,
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    const exited = new Promise<void>((done) => child.on('exit', () => done()));
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      out += chunk;
      const match = /Open (\S+)/.exec(out);
      if (!match) return;
      child.stdout.removeAllListeners('data');
      child.stdout.resume();
      resolve({
        url: match[1],
        spawnedAt,
        printedAt: now(),
        stop: () => {
          child.kill('SIGINT');
          return exited;
        },
      });
    });
    child.on('exit', (code) =>
      reject(new Error(`cadre web exited (${code}) before printing its URL:\n${out}`)),
    );
  });
}

/**
 * Sends `text` from the page and resolves with the milliseconds from pressing Send to the first character
 * of the new answer being in the document, both read from the page's own clock.
 */
const FIRST_BYTE_IN_PAGE = `(async (text) => {
  const answers = () => document.querySelectorAll('article[aria-label="Assistant"]').length;
  const before = answers();
  const box = document.querySelector('textarea[aria-label="Message"]');
  box.value = text;
  box.dispatchEvent(new Event('input', { bubbles: true }));
  await new Promise((r) => requestAnimationFrame(() => r()));
  const send = [...document.querySelectorAll('button')].find((b) => b.textContent === 'Send');
  return await new Promise((resolve) => {
    const observer = new MutationObserver(() => {
      if (answers() > before) {
        observer.disconnect();
        resolve(performance.now() - sentAt);
      }
    });
    observer.observe(document.body, { childList: true, subtree: true, characterData: true });
    const sentAt = performance.now();
    send.click();
  });
})`;

/** `cadre web`: start to URL printed, and prompt sent to the first streamed byte shown in Chromium. */
export async function benchWeb(runs = 8, prompts = 10): Promise<WebBenchResult> {
  const server = await startScriptedServer({ rules: [{ turns: [{ text: 'pong' }] }] });
  const project = benchProject(server);
  try {
    const starts: number[] = [];
    for (let i = 0; i < runs + 1; i++) {
      const web = await startWeb(project);
      // The first run creates the session database, as on any machine that has run cadre before.
      if (i > 0) starts.push(web.printedAt - web.spawnedAt);
      await web.stop();
    }
    if (!existsSync(CHROMIUM))
      return { runs, startMedianMs: median(starts), firstByteMedianMs: null, prompts };

    const web = await startWeb(project);
    const browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run'],
    });
    try {
      const page = await browser.newPage();
      await page.goto(web.url);
      await page.getByRole('textbox', { name: 'Message', exact: true }).waitFor();
      const firstBytes: number[] = [];
      for (let i = 0; i < prompts + 1; i++) {
        const ms = (await page.evaluate(`${FIRST_BYTE_IN_PAGE}(${JSON.stringify(`ping ${i}`)})`)) as number;
        // The turn must end before the next prompt, or it would queue instead of starting at once.
        await page.getByText('ready', { exact: true }).waitFor();
        if (i > 0) firstBytes.push(ms);
      }
      return { runs, startMedianMs: median(starts), firstByteMedianMs: median(firstBytes), prompts };
    } finally {
      await browser.close();
      await web.stop();
    }
  } finally {
    project.cleanup();
    await server.close();
  }
}
