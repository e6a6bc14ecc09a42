import { mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it, onTestFinished } from 'vitest';
import { DATABASE_FILE, openSessionStore } from '../../src/session/store.js';
import { script, scriptedServer } from '../support/llm-server.js';
import { cadreIn, servedProject } from './harness.js';

describe('the session store under headless runs', () => {
  it('writes every tool call of the run to tool_calls', async () => {
    const server = await scriptedServer(
      script()
        .turn((t) => t.tool('read', { path: 'a.txt' }))
        .text('done'),
    );
    const project = servedProject(server, { files: { 'a.txt': 'alpha\n' } });
    const run = await cadreIn(project, ['-p', 'read a', '--output-format', 'json']);
    expect(run.code).toBe(0);
    const { session_id } = JSON.parse(run.stdout);
    const store = openSessionStore(project.configDir);
    onTestFinished(() => store.close());
    expect(store.toolCalls(session_id)).toEqual([
      expect.objectContaining({ tool: 'read', input: { path: 'a.txt' }, isError: false, turn: 1 }),
    ]);
    expect(store.toolCalls(session_id)[0].output).toContain('alpha');
  });

  it('a damaged database is moved aside with one warning and the run goes on', async () => {
    const server = await scriptedServer(script().text('fine'));
    const project = servedProject(server);
    writeFileSync(join(project.configDir, DATABASE_FILE), 'garbage'.repeat(1000));
    const run = await cadreIn(project, ['-p', 'x']);
    expect(run).toMatchObject({ code: 0, stdout: 'fine\n' });
    const warnings = run.stderr.split('\n').filter((l) => l.includes('session database'));
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain(join(project.configDir, DATABASE_FILE));
    expect(readdirSync(project.configDir).some((f) => f.startsWith(`${DATABASE_FILE}.corrupt-`))).toBe(true);
  });

  it('a database that is a directory is one line naming it, exit 1, no stack trace', async () => {
    const server = await scriptedServer(script().text('never'));
    const project = servedProject(server);
    mkdirSync(join(project.configDir, DATABASE_FILE));
    const run = await cadreIn(project, ['-p', 'x']);
    expect(run.code).toBe(1);
    expect(run.stderr.trim().split('\n')).toEqual([
      `cadre: cannot use the session database ${join(project.configDir, DATABASE_FILE)}: it is a directory; move it away or set CADRE_CONFIG_DIR to another directory`,
    ]);
    expect(server.requests).toHaveLength(0);
  });

  it('a database locked past the busy timeout is one line naming it, exit 1', async () => {
    const server = await scriptedServer(script().text('never'));
    const project = servedProject(server);
    const store = openSessionStore(project.configDir);
    store.close();
    const holder = new Database(join(project.configDir, DATABASE_FILE));
    holder.exec('BEGIN EXCLUSIVE');
    onTestFinished(() => {
      holder.close();
    });
    const run = await cadreIn(project, ['-p', 'x'], { timeoutMs: 60_000 });
    expect(run.code).toBe(1);
    const lines = run.stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain(`cannot use the session database ${join(project.configDir, DATABASE_FILE)}`);
    expect(lines[0]).toContain('locked');
  });
});
