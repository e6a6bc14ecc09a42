import type { ModelMessage } from 'ai';
import { describe, expect, it, vi } from 'vitest';
import {
  CompactionBackoff,
  compactIfNeeded,
  compactionSplit,
  estimateTokens,
  transcriptOf,
  withSummary,
} from '../../src/agent/compaction.js';

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

describe('compaction keeps the request under the window', () => {
  const big = (i: number, chars: number) => [
    assistantCall(String(i)),
    toolResult(String(i), 'r'.repeat(chars)),
  ];

  it('shortens old tool results first, without a summary call when that is enough', async () => {
    const messages = [user('go'), ...Array.from({ length: 8 }, (_, i) => big(i, 8000)).flat()];
    let summarized = false;
    const result = await compactIfNeeded(messages, 0, {
      contextWindow: 16_000,
      summarize: async () => {
        summarized = true;
        return 'S';
      },
    });
    expect(summarized).toBe(false);
    expect(result).toHaveLength(messages.length);
    expect(estimateTokens(result ?? [])).toBeLessThan(16_000 * 0.8);
    expect(JSON.stringify(result?.[2])).toContain('characters cut by context compaction');
    // The recent tail keeps its tool results whole.
    expect(result?.at(-1)).toBe(messages.at(-1));
  });

  it('after summarizing, truncates a single oversized recent message with a marker', async () => {
    const huge = user(`paste: ${'p'.repeat(200_000)}`);
    const messages = [
      user('go'),
      ...big(0, 10),
      ...big(1, 10),
      ...big(2, 10),
      huge,
      ...big(3, 10),
      ...big(4, 10),
    ];
    const result = await compactIfNeeded(messages, 0, { contextWindow: 10_000, summarize: async () => 'S' });
    expect(estimateTokens(result ?? [])).toBeLessThan(10_000 * 0.8);
    expect(JSON.stringify(result)).toContain('characters cut by context compaction');
    expect(JSON.stringify(result)).toContain('<conversation-summary>');
  });

  it('backs off after a failed compaction instead of calling the summarizer every turn', async () => {
    const messages = [user('go'), ...Array.from({ length: 10 }, (_, i) => big(i, 100)).flat()];
    const backoff = new CompactionBackoff();
    let calls = 0;
    const policy = {
      contextWindow: 100,
      backoff,
      summarize: async () => {
        calls++;
        throw new Error('summarizer down');
      },
    };
    const attempts: string[] = [];
    for (let turn = 0; turn < 8; turn++) {
      attempts.push(
        await compactIfNeeded(messages, 10_000, policy).then(
          (r) => (r ? 'compacted' : 'skipped'),
          () => 'failed',
        ),
      );
    }
    // Failures at turns 0, 2 and 5: skipped 1, then 2, then 4 turns.
    expect(attempts).toEqual([
      'failed',
      'skipped',
      'failed',
      'skipped',
      'skipped',
      'failed',
      'skipped',
      'skipped',
    ]);
    expect(calls).toBe(3);
  });

  it('estimates size incrementally: a message already measured is not serialized again', () => {
    const messages = [user('a'), user('b')];
    const first = estimateTokens(messages);
    const spy = vi.spyOn(JSON, 'stringify');
    try {
      expect(estimateTokens([...messages, user('c')])).toBeGreaterThan(first);
      expect(spy).toHaveBeenCalledTimes(1);
    } finally {
      spy.mockRestore();
    }
  });
});
