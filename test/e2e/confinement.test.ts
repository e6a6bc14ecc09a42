import { mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { script, scriptedServer } from '../support/llm-server.js';
import { cadreIn, servedProject, toolResults } from './harness.js';

const SECRET = 'top-secret-outside-content';

/** A file in its own temp dir, a sibling of the project dir (both live directly under the OS temp dir). */
function outsideFile(): string {
  const dir = mkdtempSync(join(tmpdir(), 'cadre-outside-'));
  onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
  const file = join(dir, 'secret.txt');
  writeFileSync(file, `${SECRET}\n`);
  return file;
}

const CASES = [
  { name: 'a ../ path', path: (outside: string) => join('..', basename(dirname(outside)), 'secret.txt') },
  { name: 'an absolute path', path: (outside: string) => outside },
  { name: 'a symlink inside the project pointing outside', path: () => 'link.txt', symlink: true },
];

describe.each([
  {
    label: 'headless without --yes',
    flags: [] as string[],
    why: /An allow rule for the path is needed \(--yes does not approve paths outside the project\)\.$/,
  },
  {
    label: 'with --yes, which does not approve paths outside the project',
    flags: ['--yes'],
    why: /--yes does not approve paths outside the project, only an allow rule does/,
  },
])('read outside the project, $label', ({ flags, why }) => {
  it.each(CASES)('refuses $name and tells the model the path is outside the project', async (c) => {
    const outside = outsideFile();
    const server = await scriptedServer(
      script()
        .turn((t) => t.tool('read', { path: c.path(outside) }))
        .text('Could not read it.'),
    );
    const project = servedProject(server, { files: { 'inside.txt': 'inside\n' } });
    if (c.symlink) symlinkSync(outside, project.path('link.txt'));
    const run = await cadreIn(project, ['-p', 'read the secret', '--output-format', 'json', ...flags]);
    expect(run.code).toBe(0);
    const [result] = toolResults(server.requests[1]);
    expect(result.text).not.toContain(SECRET);
    expect(result.text).toMatch(/^Permission denied/);
    expect(result.text).toContain(`${outside} is outside the project and no rule allows it`);
    const summary = JSON.parse(run.stdout);
    expect(summary.permission_denials).toEqual([expect.objectContaining({ tool: 'read' })]);
    expect(result.text).toMatch(why);
  });
});

describe('an allow rule for an outside path', () => {
  it('lets the read through, since only a rule can widen the project boundary', async () => {
    const outside = outsideFile();
    const server = await scriptedServer(
      script()
        .turn((t) => t.tool('read', { path: outside }))
        .text('Read it.'),
    );
    const project = servedProject(server);
    // The user's own (global) rule: a project rule reaching outside is ignored until the project is trusted.
    writeFileSync(
      join(project.configDir, 'config.json'),
      JSON.stringify({ permission: { allow: [`read(${dirname(outside)}/**)`] } }),
    );
    const run = await cadreIn(project, ['-p', 'read the secret']);
    expect(run.code).toBe(0);
    const [result] = toolResults(server.requests[1]);
    expect(result.text).toContain(SECRET);
  });
});
