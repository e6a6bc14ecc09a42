import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { makeProject, REPO_ROOT, runCadre } from '../support/cli.js';
import { script, scriptedProviderAlias, scriptedServer } from '../support/llm-server.js';

/** Each cadre run may take this long on a loaded 2-core CI machine (the e2e suites run in parallel). */
const LOADED_MS = 90_000;

const CORPUS = join(REPO_ROOT, '..', 'shared', 'corpora', 'claude-agents');
const corpusFile = (path: string) => readFileSync(join(CORPUS, path), 'utf8');
const available = (() => {
  try {
    corpusFile('voltagent/hipaa-compliance.md');
    return true;
  } catch {
    return false;
  }
})();

/**
 * Published Claude Code agents dispatched through `task` (issue 16 B2): each child is offered the tools its
 * author meant, seen in the request the child's model receives.
 */
describe.runIf(available)(
  'imported Claude Code agents run with their tools under task',
  { timeout: 4 * LOADED_MS },
  () => {
    it('an allow list gives exactly those tools, no list gives the readwrite tier, tools: [] gives none', async () => {
      const server = await scriptedServer(
        script()
          .rule({ first_user: 'child:' })
          .text('child done')
          .rule()
          .turn((t) =>
            t
              .tool('task', { agent: 'hipaa-compliance', prompt: 'child: listed' })
              .tool('task', { agent: 'accessibility-expert', prompt: 'child: unlisted' })
              .tool('task', { agent: 'bare', prompt: 'child: empty' }),
          )
          .text('main done'),
      );
      const p = makeProject({
        files: {
          '.claude/agents/hipaa-compliance.md': corpusFile('voltagent/hipaa-compliance.md'),
          '.claude/agents/accessibility-expert.md': corpusFile('wshobson/accessibility-expert.md'),
          '.claude/agents/bare.md':
            '---\nname: bare\ndescription: no tools at all\ntools: []\n---\nYou think only.\n',
        },
        config: { provider: 'main', providers: { main: scriptedProviderAlias(server) } },
      });
      onTestFinished(() => p.cleanup());
      const run = await runCadre(['--trust-project', '-p', 'delegate', '--output-format', 'json'], {
        cwd: p.dir,
        env: { CADRE_CONFIG_DIR: p.configDir },
        timeoutMs: LOADED_MS,
      });
      expect(run.code).toBe(0);
      expect(JSON.parse(run.stdout).subagents.map((s: { status: string }) => s.status)).toEqual([
        'completed',
        'completed',
        'completed',
      ]);
      const toolsOf = (prompt: string) =>
        server.requests.find((r) => r.view.messages[0]?.text === prompt)?.view.tools;
      // `tools: Read, Grep, Glob, WebFetch, WebSearch` (websearch only where a backend is configured).
      expect(toolsOf('child: listed')).toEqual(['read', 'grep', 'glob', 'find_files', 'webfetch']);
      const unlisted = toolsOf('child: unlisted') ?? [];
      expect(unlisted).toEqual(expect.arrayContaining(['read', 'edit', 'write', 'bash', 'grep']));
      expect(unlisted).not.toContain('task');
      expect(toolsOf('child: empty')).toEqual([]);
    });
  },
);
