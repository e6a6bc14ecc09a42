import { describe, expect, it, onTestFinished } from 'vitest';
import { everythingServerEntry } from '../mcp/helpers.js';
import { makeProject, runCadre } from '../support/cli.js';
import { script, scriptedProviderAlias, scriptedServer } from '../support/llm-server.js';

function project(options: Parameters<typeof makeProject>[0]) {
  const p = makeProject(options);
  onTestFinished(() => p.cleanup());
  return p;
}

const everything = { command: process.execPath, args: [everythingServerEntry(), 'stdio'] };
// The servers are the project's own: they start only in a trusted project (--trust-project).

describe('MCP tools end to end', () => {
  it('are callable by the main agent, absent from a child without subagent_mcp and present with it', async () => {
    const server = await scriptedServer(
      script()
        .rule({ system: 'You are plain.' })
        .text('plain done')
        .rule({ system: 'You are granted.' })
        .turn((t) => t.tool('mcp__everything__echo', { message: 'from the child' }))
        .text('granted done')
        .rule()
        .turn((t) => t.tool('mcp__everything__echo', { message: 'hello mcp' }))
        .turn((t) =>
          t.tool('task', { agent: 'plain', prompt: 'p' }).tool('task', { agent: 'granted', prompt: 'g' }),
        )
        .turn((t) => t.text('main done')),
    );
    const p = project({
      files: {
        '.cadre/agents/plain.md': '---\nsubagent_tools: readonly\n---\nYou are plain.\n',
        '.cadre/agents/granted.md':
          '---\nsubagent_tools: readonly\nsubagent_mcp: [echo]\n---\nYou are granted.\n',
      },
      config: { provider: 'm', providers: { m: scriptedProviderAlias(server) }, mcp_servers: { everything } },
    });
    const run = await runCadre(['-p', 'go', '--yes', '--trust-project'], {
      cwd: p.dir,
      env: { CADRE_CONFIG_DIR: p.configDir },
      timeoutMs: 60_000,
    });
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout.trim()).toBe('main done');
    const main = server.requests.filter((r) => !/You are (plain|granted)/.test(r.view.system));
    expect(main[0].view.tools).toContain('mcp__everything__echo');
    expect(main[1].view.messages.at(-1)?.text).toContain('hello mcp');
    const plain = server.requests.find((r) => r.view.system.includes('You are plain.'))!;
    expect(plain.view.tools.filter((t) => t.startsWith('mcp__'))).toEqual([]);
    const granted = server.requests.filter((r) => r.view.system.includes('You are granted.'));
    expect(granted[0].view.tools.filter((t) => t.startsWith('mcp__'))).toEqual(['mcp__everything__echo']);
    expect(granted[1].view.messages.at(-1)?.text).toContain('from the child');
  });

  it('a server command that does not exist is one warning and the run goes on', async () => {
    const server = await scriptedServer(script().text('still fine'));
    const p = project({
      config: {
        provider: 'm',
        providers: { m: scriptedProviderAlias(server) },
        mcp_servers: { ghost: { command: 'cadre-no-such-mcp-server' } },
      },
    });
    const run = await runCadre(['-p', 'go', '--trust-project'], {
      cwd: p.dir,
      env: { CADRE_CONFIG_DIR: p.configDir },
    });
    expect(run.code).toBe(0);
    expect(run.stdout.trim()).toBe('still fine');
    const warnings = run.stderr.split('\n').filter((l) => l.includes('ghost'));
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/MCP server "ghost" failed to start/);
  });
});

describe('an MCP server that hangs at start', () => {
  it('delays nothing: the run answers and exits 0 well before its 30 s connect timeout', async () => {
    const server = await scriptedServer(script().text('answered anyway'));
    const p = project({
      config: {
        provider: 'm',
        providers: { m: scriptedProviderAlias(server) },
        mcp_servers: { hanging: { command: process.execPath, args: ['-e', 'setInterval(() => {}, 1000)'] } },
      },
    });
    const run = await runCadre(['-p', 'go', '--trust-project'], {
      cwd: p.dir,
      env: { CADRE_CONFIG_DIR: p.configDir },
      timeoutMs: 25_000,
    });
    expect(run.code).toBe(0);
    expect(run.stdout.trim()).toBe('answered anyway');
    expect(run.stderr).toBe('');
    expect(server.requests[0].view.tools.some((name) => name.startsWith('mcp__'))).toBe(false);
  });
});

describe('MCP tools under cadre subagent try and run', () => {
  it('try offers a granted MCP tool only when it is read class; run offers every granted one', async () => {
    const server = await scriptedServer(script().rule({ system: 'You are granted.' }).text('done'));
    const p = project({
      files: {
        '.cadre/skills/granted/SKILL.md':
          '---\nrunAs: subagent\nsubagent_tools: readonly\nsubagent_mcp: all\n---\nYou are granted.\n',
      },
      config: { provider: 'm', providers: { m: scriptedProviderAlias(server) }, mcp_servers: { everything } },
    });
    const env = { CADRE_CONFIG_DIR: p.configDir };
    const tried = await runCadre(['subagent', 'try', 'granted', '--trust-project', 'go'], {
      cwd: p.dir,
      env,
      timeoutMs: 60_000,
    });
    expect(tried.code).toBe(0);
    const ran = await runCadre(['subagent', 'run', 'granted', '--trust-project', 'go'], {
      cwd: p.dir,
      env,
      timeoutMs: 60_000,
    });
    expect(ran.code).toBe(0);
    const [tryTools, runTools] = server.requests.map((r) =>
      r.view.tools.filter((t) => t.startsWith('mcp__')),
    );
    // gzip-file-as-resource writes (no readOnlyHint); echo is read class.
    expect(runTools).toEqual(
      expect.arrayContaining(['mcp__everything__echo', 'mcp__everything__gzip-file-as-resource']),
    );
    expect(tryTools).toContain('mcp__everything__echo');
    expect(tryTools).not.toContain('mcp__everything__gzip-file-as-resource');
    expect(tryTools.every((t) => runTools.includes(t))).toBe(true);
    expect(tryTools.length).toBeLessThan(runTools.length);
  });
});
