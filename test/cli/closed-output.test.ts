import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { assertFreshBundle, makeProject, REPO_ROOT, type TestProject } from '../support/cli.js';
import { script, scriptedProviderAlias, scriptedServer } from '../support/llm-server.js';

const BIN = join(REPO_ROOT, 'bin', 'cadre.js');

/**
 * Runs `cadre <args> | true`: `true` exits at once, long before cadre's start-up is over, so cadre's
 * first write meets a pipe with no reader (EPIPE). Resolves to cadre's exit status and its stderr. Not
 * spawnSync: the scripted model server answers from this process.
 */
function intoClosedPipe(args: string[], project: TestProject): Promise<{ status: number; stderr: string }> {
  const quoted = args.map((arg) => `'${arg.replaceAll("'", "'\\''")}'`).join(' ');
  const child = spawn(
    'bash',
    ['-c', `"$NODE" "$BIN" ${quoted} 2>"$ERR_FILE" | true; echo "\${PIPESTATUS[0]}"; cat "$ERR_FILE"`],
    {
      cwd: project.dir,
      stdio: ['ignore', 'pipe', 'inherit'],
      env: {
        ...process.env,
        NODE: process.execPath,
        BIN,
        ERR_FILE: project.path('stderr.txt'),
        CADRE_CONFIG_DIR: project.configDir,
        NO_COLOR: '1',
        ANTHROPIC_API_KEY: undefined,
        OPENAI_API_KEY: undefined,
      },
    },
  );
  let out = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    out += chunk;
  });
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => {
      if (code !== 0) return reject(new Error(`bash exited ${code}: ${out}`));
      const [status, ...stderr] = out.split('\n');
      resolve({ status: Number.parseInt(status, 10), stderr: stderr.join('\n') });
    });
  });
}

describe('output closed by its reader (`cadre … | head`)', () => {
  it.each([
    [['agents']],
    [['agents', '--json']],
    [['--help']],
    [['permissions', 'explain', 'bash(ls)']],
    [['-p', 'answer at length']],
    [['-p', 'answer at length', '--output-format', 'json']],
  ])('cadre %j stops quietly with its own exit code', async (args) => {
    assertFreshBundle();
    const server = await scriptedServer(script().text('a long enough answer\n'.repeat(200)));
    const project = makeProject({
      config: { provider: 'm', providers: { m: scriptedProviderAlias(server) } },
      files: { '.cadre/agents/reviewer.md': '---\ndescription: reviews\n---\nYou review.\n' },
    });
    onTestFinished(() => project.cleanup());
    const { status, stderr } = await intoClosedPipe(args, project);
    expect(stderr).not.toMatch(/EPIPE|Unhandled|node:events/);
    expect(stderr).toBe('');
    expect(status).toBe(0);
  });
});
