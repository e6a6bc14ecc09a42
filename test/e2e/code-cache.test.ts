import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { script, scriptedServer } from '../support/llm-server.js';
import { cadreIn, servedProject } from './harness.js';

/** The files a cache holds code for, from its header (after the 32-byte MAC, a length, then JSON). */
function cachedNames(cache: Buffer): string[] {
  const length = cache.readUInt32LE(32);
  const header = JSON.parse(cache.subarray(36, 36 + length).toString('utf8')) as {
    files: [string, number][];
  };
  return header.files.map(([name]) => name).sort();
}

/**
 * A later run leaves a good cache as it is, unless it loaded a file the earlier one had not reached before
 * exiting (work started in the background, such as warming the bash parser): then the cache only grows.
 */
function expectKeptOrGrown(before: Buffer, after: Buffer): void {
  if (after.equals(before)) return;
  const [was, is] = [cachedNames(before), cachedNames(after)];
  expect(is).toEqual(expect.arrayContaining(was));
  expect(is.length).toBeGreaterThan(was.length);
}

/** The code cache files under `cacheHome`. */
function cacheFiles(cacheHome: string): string[] {
  const dir = join(cacheHome, 'cadre', 'code-cache');
  if (!existsSync(dir)) return [];
  return readdirSync(dir).map((name) => join(dir, name));
}

describe('the V8 code cache of the CLI and mode bundles (issue 17)', () => {
  it('is written by the first run, used unchanged by the next, and rewritten when corrupt', async () => {
    const server = await scriptedServer(script().rule().text('hi there'));
    const project = servedProject(server);
    const cacheHome = project.path('.cache-home');
    const run = () => cadreIn(project, ['-p', 'hi'], { env: { XDG_CACHE_HOME: cacheHome } });

    const first = await run();
    expect([first.code, first.stdout, first.stderr]).toEqual([0, 'hi there\n', '']);
    // One file for the CLI's own bundle, one for the mode it ran.
    const files = cacheFiles(cacheHome).sort();
    expect(files).toEqual([
      expect.stringMatching(/[\\/]cli-[0-9a-f]{16}-v[\d.]+-\w+\.bin$/),
      expect.stringMatching(/[\\/]headless-[0-9a-f]{16}-v[\d.]+-\w+\.bin$/),
    ]);
    const file = files[1];
    // Signed with a key in the config directory, which sandboxed commands cannot see.
    expect(existsSync(join(project.configDir, 'code-cache.key'))).toBe(true);
    const written = readFileSync(file);
    // The mode's entry and the chunks the run loaded.
    expect(cachedNames(written)).toEqual(
      expect.arrayContaining([expect.stringMatching(/^headless-\w+\.js$/)]),
    );
    expect(cachedNames(written).filter((name) => name.startsWith('chunks/')).length).toBeGreaterThan(5);

    const second = await run();
    expect([second.code, second.stdout, second.stderr]).toEqual([0, 'hi there\n', '']);
    expectKeptOrGrown(written, readFileSync(file));

    const corrupt = Buffer.from(written);
    corrupt[corrupt.length >> 1] ^= 0xff;
    writeFileSync(file, corrupt);
    const third = await run();
    expect([third.code, third.stdout, third.stderr]).toEqual([0, 'hi there\n', '']);
    const rewritten = readFileSync(file);
    expect(rewritten.equals(corrupt)).toBe(false);
    await run();
    expectKeptOrGrown(rewritten, readFileSync(file));
    expect(server.requests).toHaveLength(4);
  });

  it('serves cadre acp the same way', async () => {
    const server = await scriptedServer(script().rule().text('hi there'));
    const project = servedProject(server);
    const cacheHome = project.path('.cache-home');
    for (let i = 0; i < 2; i++) {
      // An editor that closes standard input at once: the server ends, as it does when the editor quits.
      const run = await cadreIn(project, ['acp'], { stdin: '', env: { XDG_CACHE_HOME: cacheHome } });
      expect([run.code, run.stdout, run.stderr]).toEqual([0, '', '']);
    }
    expect(
      cacheFiles(cacheHome)
        .map((file) => file.replace(/.*[\\/]/, '').split('-')[0])
        .sort(),
    ).toEqual(['acp', 'cli']);
  });

  it('is not written by a run that fails: bad input leaves no cache and no key behind', async () => {
    const server = await scriptedServer(script().rule().text('hi there'));
    const project = servedProject(server);
    const cacheHome = project.path('.cache-home');
    const env = { XDG_CACHE_HOME: cacheHome };
    const bad = await cadreIn(project, ['-p', 'hi', '--max-turns', 'many'], { env });
    expect(bad.code).toBe(2);
    const badSubagent = await cadreIn(project, ['subagent', 'create', 'fresh', '--prompt', 'P.'], { env });
    expect(badSubagent.code).toBe(2);
    expect(cacheFiles(cacheHome)).toEqual([]);
    expect(existsSync(join(project.configDir, 'code-cache.key'))).toBe(false);
    expect(server.requests).toHaveLength(0);
  });

  it('is skipped silently where the cache directory cannot be made', async () => {
    const server = await scriptedServer(script().rule().text('hi there'));
    const project = servedProject(server);
    const blocker = project.path('not-a-directory');
    writeFileSync(blocker, 'a file where the cache directory would be\n');
    for (let i = 0; i < 2; i++) {
      const run = await cadreIn(project, ['-p', 'hi'], { env: { XDG_CACHE_HOME: join(blocker, 'cache') } });
      expect([run.code, run.stdout, run.stderr]).toEqual([0, 'hi there\n', '']);
    }
  });
});
