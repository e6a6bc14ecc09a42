import type { ModelMessage } from 'ai';
import { describe, expect, it } from 'vitest';
import { compactIfNeeded, compactionSplit, transcriptOf, withSummary } from '../../src/agent/compaction.js';

const user = (text: string): ModelMessage => ({ role: 'user', content: text });
const assistantCall = (id: string): ModelMessage => ({
  role: 'assistant',
  content: [{ type: 'tool-call', toolCallId: id, toolName: 'read', input: { path: `${id}.txt` } }],
});
const toolResult = (id: string, value: string): ModelMessage => ({
  role: 'tool',
  content: [{ type: 'tool-result', toolCallId: id, toolName: 'read', output: { type: 'text', value } }],
});

describe('compactionSplit', () => {
  it('never starts the kept tail with a tool result', () => {
    const messages = [
      user('a'),
      assistantCall('1'),
      toolResult('1', 'x'),
      assistantCall('2'),
      toolResult('2', 'y'),
    ];
    expect(compactionSplit(messages, 2)).toBe(3);
    expect(messages[compactionSplit(messages, 1)!].role).not.toBe('tool');
  });

  it('has nothing to cut in a conversation shorter than the kept tail', () => {
    expect(compactionSplit([user('a'), user('b')], 6)).toBeUndefined();
  });
});

describe('withSummary', () => {
  it('keeps user/assistant alternation whatever the tail starts with', () => {
    expect(withSummary('S', [user('next')]).map((m) => m.role)).toEqual(['user', 'assistant', 'user']);
    expect(withSummary('S', [assistantCall('1'), toolResult('1', 'r')]).map((m) => m.role)).toEqual([
      'user',
      'assistant',
      'tool',
    ]);
  });
});

describe('compactIfNeeded', () => {
  const long = Array.from({ length: 10 }, (_, i) => [
    assistantCall(String(i)),
    toolResult(String(i), 'z'.repeat(100)),
  ]).flat();
  const messages = [user('fix the bug'), ...long];

  it('leaves a conversation under the threshold alone', async () => {
    const result = await compactIfNeeded(messages, 100, {
      contextWindow: 100_000,
      summarize: async () => 'S',
    });
    expect(result).toBeUndefined();
  });

  it('summarizes the older part and keeps the recent tail verbatim', async () => {
    let seen = '';
    const result = await compactIfNeeded(messages, 900, {
      contextWindow: 1000,
      summarize: async (transcript) => {
        seen = transcript;
        return 'the user wants the bug fixed; files 0-6 read';
      },
    });
    expect(seen).toContain('## user\nfix the bug');
    expect(seen).toContain('[called read {"path":"0.txt"}]');
    expect(result).toBeDefined();
    expect(result![0].content).toContain('the user wants the bug fixed');
    expect(result!.slice(-6)).toEqual(messages.slice(-6));
    expect(result!.length).toBeLessThan(messages.length);
  });

  it('cuts long tool results in the transcript', () => {
    expect(transcriptOf([toolResult('1', 'q'.repeat(5000))])).toContain('… (cut)');
  });
});
