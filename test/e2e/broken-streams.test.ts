import { describe, expect, it } from 'vitest';
import { script, scriptedServer } from '../support/llm-server.js';
import { cadreIn, servedProject, type Wire } from './harness.js';

const ANSWER = 'one two three four five six seven eight nine ten eleven twelve';

/** stderr without the Anthropic SDK's warning about the unknown scripted model. */
function problems(stderr: string): string[] {
  return stderr.split('\n').filter((line) => line !== '' && !line.startsWith('cadre: warning:'));
}

describe.each<Wire>(['openai', 'responses', 'anthropic'])('a broken model stream over %s', (wire) => {
  it('cut short without its final event is a truncated stream, retried, and the retry is used', async () => {
    const server = await scriptedServer(script().turn((t) => t.text(ANSWER).truncate(1)));
    const run = await cadreIn(servedProject(server, { wire }), ['-p', 'hi']);
    expect(run.code).toBe(0);
    expect(run.stdout).toBe(`${ANSWER}\n`);
    expect(problems(run.stderr)).toEqual([
      expect.stringMatching(/model call failed \(truncated stream\); retrying in .* \(retry 1 of 4\)/),
    ]);
    expect(server.requests.map((r) => r.answeredBy.outcome)).toEqual(['truncated', 'answer']);
  });

  it('cut short every time is reported as a truncated stream after the retries, exit 1', async () => {
    const server = await scriptedServer(script().turn((t) => t.text(ANSWER).truncate()));
    const run = await cadreIn(servedProject(server, { wire }), ['-p', 'hi', '--output-format', 'json']);
    expect(run.code).toBe(1);
    const result = JSON.parse(run.stdout);
    expect(result.is_error).toBe(true);
    expect(`${result.result ?? ''} ${result.error ?? ''}`).toMatch(
      /failed after 5 attempts.*the model stream ended before the reply was complete/,
    );
    expect(run.stderr).not.toMatch(/connection reset|HTTP 500/);
    expect(server.requests).toHaveLength(5);
  });

  it('an overloaded error event inside the stream is named and retried', async () => {
    const server = await scriptedServer(
      script().turn((t) => t.text(ANSWER).streamError('Overloaded', { type: 'overloaded_error', times: 1 })),
    );
    const run = await cadreIn(servedProject(server, { wire }), ['-p', 'hi']);
    expect(run.code).toBe(0);
    expect(run.stdout).toBe(`${ANSWER}\n`);
    expect(problems(run.stderr)).toEqual([
      expect.stringMatching(/model call failed \(stream error: overloaded_error\); retrying/),
    ]);
    expect(server.requests.map((r) => r.answeredBy.outcome)).toEqual(['stream_error', 'answer']);
  });

  it('an invalid-request error event inside the stream is reported with its type, not retried', async () => {
    const server = await scriptedServer(
      script().turn((t) =>
        t.text(ANSWER).streamError('prompt is too long', { type: 'invalid_request_error' }),
      ),
    );
    const run = await cadreIn(servedProject(server, { wire }), ['-p', 'hi']);
    expect(run.code).toBe(1);
    expect(problems(run.stderr)).toEqual([
      expect.stringMatching(/model call failed \(turn 1\): invalid_request_error: prompt is too long/),
    ]);
    expect(server.requests).toHaveLength(1);
  });

  it('a line that is not JSON is a malformed reply, reported at once and not retried', async () => {
    const server = await scriptedServer(script().turn((t) => t.text(ANSWER).malformed()));
    const run = await cadreIn(servedProject(server, { wire }), ['-p', 'hi']);
    expect(run.code).toBe(1);
    expect(run.stdout).toBe('');
    expect(problems(run.stderr)).toEqual([
      expect.stringMatching(
        /model call failed \(turn 1\): the model server sent a malformed reply: .*malformed/,
      ),
    ]);
    expect(run.stderr).not.toMatch(/HTTP 500|retrying/);
    expect(server.requests).toHaveLength(1);
  });
});
