import { describe, expect, it } from 'vitest';
import { script, scriptedServer } from '../support/llm-server.js';
import { cadreIn, servedProject, toolResults, type Wire } from './harness.js';

describe.each<Wire>(['openai', 'responses', 'anthropic'])('model call failures over %s', (wire) => {
  it('waits out a 429 with retry-after, says it is retrying, then succeeds', async () => {
    const server = await scriptedServer(
      script().turn((t) =>
        t.error(429, 'Rate limited, slow down', { retry_after: 0.3, times: 1 }).text('Made it.'),
      ),
    );
    const project = servedProject(server, { wire });
    const run = await cadreIn(project, ['-p', 'hi']);
    expect(run.code).toBe(0);
    expect(run.stdout).toBe('Made it.\n');
    expect(run.stderr).toMatch(/HTTP 429\); retrying in 0\.3 s \(retry 1 of 4\)/);
    const [failed, retried] = server.requests;
    expect(server.requests).toHaveLength(2);
    expect(failed.answeredBy.outcome).toBe('error');
    // The retry-after header (300 ms), not the 5 ms test base delay, set the wait (the message says so).
    expect(retried.startedAt).toBeGreaterThanOrEqual(failed.endedAt ?? failed.startedAt);
  });

  it('retries a connection reset in the middle of the stream and succeeds', async () => {
    const server = await scriptedServer(
      script().turn((t) => t.text('A long answer that is cut off halfway and then sent again.').reset(1)),
    );
    const project = servedProject(server, { wire });
    const run = await cadreIn(project, ['-p', 'hi']);
    expect(run.code).toBe(0);
    expect(run.stdout).toBe('A long answer that is cut off halfway and then sent again.\n');
    expect(run.stderr).toMatch(/retrying/);
    expect(server.requests.map((r) => r.answeredBy.outcome)).toEqual(['reset', 'answer']);
  });

  it('fails with exit 1 and the provider message when the 500 never clears', async () => {
    const server = await scriptedServer(script().turn((t) => t.error(500, 'upstream exploded')));
    const project = servedProject(server, { wire });
    const run = await cadreIn(project, ['-p', 'hi']);
    expect(run.code).toBe(1);
    expect(run.stdout).toBe('');
    expect(run.stderr).toMatch(/model call failed after 5 attempts.*HTTP 500: upstream exploded/);
    expect(server.requests).toHaveLength(5);
  });
});

describe('malformed tool-argument JSON from the model', () => {
  it('answers with the parse problem and the loop goes on to the final answer', async () => {
    const server = await scriptedServer(
      script()
        .turn((t) => t.rawTool('read', '{"path": "a.txt"'))
        .turn((t) => t.tool('read', { path: 'a.txt' }))
        .text('Recovered and read it.'),
    );
    const project = servedProject(server, { files: { 'a.txt': 'alpha\n' } });
    const run = await cadreIn(project, ['-p', 'read a.txt']);
    expect(run.code).toBe(0);
    expect(run.stdout).toBe('Recovered and read it.\n');
    expect(server.requests).toHaveLength(3);
    const [malformed] = toolResults(server.requests[1]);
    expect(malformed.text).toMatch(/not valid JSON/);
    expect(malformed.text).toMatch(/JSON/);
    const [good] = toolResults(server.requests[2]).slice(-1);
    expect(good.text).toContain('alpha');
  });
});
