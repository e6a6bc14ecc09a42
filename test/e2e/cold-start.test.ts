import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { script, scriptedServer } from '../support/llm-server.js';
import { cadreIn, servedProject } from './harness.js';

const PRELOAD = fileURLToPath(new URL('../support/loaded-modules.mjs', import.meta.url));

interface Loaded {
  internal: string[];
  commonjs: string[];
  /** The text of every ES module file (the bundle's chunks) the run loaded. */
  bundled: string;
  /** The same, of the files loaded before `before` (epoch ms). */
  bundledBefore(before: number): string;
  /** When the process started its first HTTP request (epoch ms), as the process saw it. */
  firstRequestAt?: number;
}

/** `cadre <args>` in `project`, with what the process loaded. */
async function runRecorded(project: ReturnType<typeof servedProject>, args: string[]) {
  const file = project.path('loaded.json');
  const run = await cadreIn(project, args, {
    env: { NODE_OPTIONS: `--import ${PRELOAD}`, CADRE_TEST_LOADED_FILE: file },
  });
  const esm = readFileSync(`${file}.esm`, 'utf8')
    .trim()
    .split('\n')
    .map((line) => {
      const [at, url] = line.split(' ');
      return { at: Number(at), text: readFileSync(fileURLToPath(url), 'utf8') };
    });
  const bundledBefore = (before: number) =>
    esm
      .filter((m) => m.at < before)
      .map((m) => m.text)
      .join('\n');
  const loaded: Loaded = {
    ...JSON.parse(readFileSync(file, 'utf8')),
    bundled: bundledBefore(Number.POSITIVE_INFINITY),
    bundledBefore,
  };
  return { run, loaded };
}

const undici = (loaded: Loaded) => loaded.internal.filter((name) => /undici/.test(name));
/**
 * Code a plain answer never runs: the RE2 engine (grep), the bash analyser, the .gitignore matcher (file
 * walks), all of zod 3 (the SDK's).
 */
const deferred = (bundled: string) =>
  [
    ['re2js', /\bclass RE2JS/],
    ['bash analysis', /\bfunction analyzeBash\(/],
    ['ignore', /\bIgnoreRule=class\b/],
    ['zod 3', /\bclass _ZodString extends ZodType\b/],
  ].flatMap(([name, marker]) => ((marker as RegExp).test(bundled) ? [name as string] : []));
const yaml = (loaded: Loaded) =>
  loaded.commonjs.filter((path) => /[\\/]node_modules[\\/]yaml[\\/]/.test(path));

describe('cold start loads only what the run uses (issue 17)', () => {
  it('answers cadre -p without loading undici, the yaml library, grep, the bash analyser, .gitignore matching or zod 3', async () => {
    const server = await scriptedServer(script().turn((t) => t.text('hi there')));
    const project = servedProject(server);
    const { run, loaded } = await runRecorded(project, ['-p', 'hi']);
    expect(run.stderr).toBe('');
    expect(run.stdout).toBe('hi there\n');
    expect(server.requests).toHaveLength(1);
    expect(undici(loaded)).toEqual([]);
    expect(yaml(loaded)).toEqual([]);
    // What start-up loads on the way to the model request; a slow answer may warm them up after it (from
    // 100 ms into the call, which the server's arrival time can trail on a loaded machine).
    expect(loaded.firstRequestAt).toBeGreaterThan(0);
    expect(deferred(loaded.bundledBefore(loaded.firstRequestAt ?? 0))).toEqual([]);
  });

  it('loads what the first tool calls need while a slow first model call is in flight', async () => {
    const server = await scriptedServer(script().turn((t) => t.delay(1500).text('slow answer')));
    const project = servedProject(server);
    const { run, loaded } = await runRecorded(project, ['-p', 'hi']);
    expect(run.stdout).toBe('slow answer\n');
    expect(deferred(loaded.bundled)).toEqual(['re2js', 'bash analysis']);
  });

  it('loads the yaml library for frontmatter outside the fast path, and uses the profile', async () => {
    const server = await scriptedServer(script().turn((t) => t.text('anchored answer')));
    const project = servedProject(server, {
      files: {
        '.cadre/agents/anchored.md':
          '---\ndescription: "a quoted \\"escaped\\" description"\n---\nYou answer briefly.\n',
      },
    });
    const { run, loaded } = await runRecorded(project, ['-p', 'hi', '--agent', 'anchored']);
    expect(run.stderr).toBe('');
    expect(run.stdout).toBe('anchored answer\n');
    expect(server.requests[0].view.system).toContain('You answer briefly.');
    expect(yaml(loaded).length).toBeGreaterThan(0);
    expect(undici(loaded)).toEqual([]);
  });
});
