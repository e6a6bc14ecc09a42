import { describe, expect, it } from 'vitest';
import { script, scriptedServer } from '../support/llm-server.js';
import { cadreIn, providerFor, servedProject } from './harness.js';

describe('a model server that stalls', () => {
  it('is retried on the per-provider timeouts and then reported, exit 1', async () => {
    const server = await scriptedServer(script().turn((t) => t.delay(60_000).text('too late')));
    const project = servedProject(server, {
      config: {
        providers: {
          fake: { ...providerFor(server, 'openai'), connect_timeout_ms: 300, idle_timeout_ms: 300 },
        },
      },
    });
    const run = await cadreIn(project, ['-p', 'hi', '--output-format', 'json'], { timeoutMs: 60_000 });
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/retrying/);
    const summary = JSON.parse(run.stdout);
    expect(summary.is_error).toBe(true);
    expect(summary.result ?? summary.error ?? '').toBeDefined();
    expect(server.requests.length).toBeGreaterThan(1);
  });

  it('an empty final answer is asked for once more, then is an error (is_error, exit 1)', async () => {
    const server = await scriptedServer(script().turn((t) => t));
    const project = servedProject(server);
    const run = await cadreIn(project, ['-p', 'hi', '--output-format', 'json']);
    expect(run.code).toBe(1);
    expect(JSON.parse(run.stdout).is_error).toBe(true);
    expect(server.requests).toHaveLength(2);
  });
});
