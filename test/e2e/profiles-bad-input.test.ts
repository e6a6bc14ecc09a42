import { cpSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { makeProject, runCadre, type TestProject } from '../support/cli.js';
import { script, scriptedProviderAlias, scriptedServer } from '../support/llm-server.js';

const CORPUS = join(import.meta.dirname, '..', 'fixtures', 'profiles', 'bad');

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => join(e.parentPath, e.name));
}

/** stderr lines that are load warnings naming `file` (a path never appears inside another one's line). */
function warningLinesFor(stderr: string, file: string): string[] {
  return stderr.split('\n').filter((line) => line.startsWith(`cadre: warning: ${file}: `));
}

/**
 * The malformed corpus of test/fixtures/profiles/bad laid out as a real project: agents and skills under
 * `.cadre`, roles in a mission repo named by the config, plus one generated file over the 1 MiB limit.
 */
describe('a project full of malformed profiles (SPEC 3.3, 17)', () => {
  let project: TestProject;
  let mission: string;
  let home: string;
  let badFiles: string[];

  beforeAll(() => {
    mission = mkdtempSync(join(tmpdir(), 'cadre-mission-'));
    home = mkdtempSync(join(tmpdir(), 'cadre-home-'));
    project = makeProject({ config: { mission_repo: mission } });
    cpSync(join(CORPUS, 'agents'), project.path('.cadre/agents'), { recursive: true });
    cpSync(join(CORPUS, 'skills'), project.path('.cadre/skills'), { recursive: true });
    cpSync(join(CORPUS, 'roles'), join(mission, 'orchestrator', 'roles'), { recursive: true });
    writeFileSync(
      project.path('.cadre/agents/huge.md'),
      `---\ndescription: huge\n---\n${'x'.repeat(1024 * 1024)}\n`,
    );
    badFiles = [
      ...filesUnder(project.path('.cadre/agents')),
      ...filesUnder(project.path('.cadre/skills')),
      ...filesUnder(join(mission, 'orchestrator', 'roles')),
    ].sort();
  });
  afterAll(() => {
    project.cleanup();
    rmSync(mission, { recursive: true, force: true });
    rmSync(home, { recursive: true, force: true });
  });

  function cadre(args: string[], configDir = project.configDir) {
    return runCadre(args, { cwd: project.dir, env: { CADRE_CONFIG_DIR: configDir, HOME: home } });
  }

  it('holds at least 25 malformed files', () => {
    expect(badFiles.length).toBeGreaterThanOrEqual(25);
  });

  it('cadre agents starts, lists only the built-ins and warns exactly once per bad file on stderr', async () => {
    const result = await cadre(['agents', '--json']);

    expect(result.code).toBe(0);
    const doc = JSON.parse(result.stdout);
    expect(doc.profiles.map((p: { source: string }) => p.source)).toEqual(Array(4).fill('builtin'));
    expect(doc.warnings.map((w: { path: string }) => w.path).sort()).toEqual(badFiles);
    for (const file of badFiles) expect(warningLinesFor(result.stderr, file), file).toHaveLength(1);
    const warningLines = result.stderr.split('\n').filter((l) => l.startsWith('cadre: warning: '));
    expect(warningLines).toHaveLength(badFiles.length);
  });

  it('lists every warning in the text listing too', async () => {
    const result = await cadre(['agents']);

    expect(result.code).toBe(0);
    expect(result.stdout).toContain('Warnings:');
    for (const file of badFiles) expect(result.stdout).toContain(`  ${file}: `);
  });

  it('cadre -p starts, answers and warns exactly once per bad file on stderr', async () => {
    const server = await scriptedServer(script().text('still working'));
    // The provider lives in the global config, so the project config (with mission_repo) stays as is.
    const configDir = mkdtempSync(join(tmpdir(), 'cadre-global-'));
    onTestFinished(() => rmSync(configDir, { recursive: true, force: true }));
    writeFileSync(
      join(configDir, 'config.json'),
      JSON.stringify({ providers: { main: scriptedProviderAlias(server) }, provider: 'main' }),
    );

    const result = await cadre(['-p', 'are you alive?'], configDir);

    expect(result).toMatchObject({ code: 0, stdout: 'still working\n' });
    for (const file of badFiles) expect(warningLinesFor(result.stderr, file), file).toHaveLength(1);
    const warningLines = result.stderr.split('\n').filter((l) => l.startsWith('cadre: warning: '));
    expect(warningLines).toHaveLength(badFiles.length);
  });
});

describe('an unknown --agent (SPEC 3.3)', () => {
  it('makes cadre -p exit 2 listing the known profile names, before any model call', async () => {
    const server = await scriptedServer(script().text('must not run'));
    const project = makeProject({
      config: { providers: { main: scriptedProviderAlias(server) }, provider: 'main' },
      files: { '.cadre/agents/reviewer.md': 'You are a reviewer\n' },
    });
    onTestFinished(() => project.cleanup());

    const result = await runCadre(['-p', 'hello', '--agent', 'nope'], {
      cwd: project.dir,
      env: { CADRE_CONFIG_DIR: project.configDir },
    });

    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain('unknown profile "nope"');
    for (const name of ['explore', 'general', 'review', 'reviewer', 'security-review']) {
      expect(result.stderr).toContain(name);
    }
    expect(server.requests).toHaveLength(0);
  });
});
