import type { ModelMessage } from 'ai';
import { describe, expect, it } from 'vitest';
import { parentFactsPack } from '../../src/subagent/parent-facts.js';

describe('parentFactsPack', () => {
  it('is empty for an empty conversation', () => {
    expect(parentFactsPack([])).toBe('');
  });

  it('keeps the request, the stated decisions, commands, failures and file anchors, not file contents', () => {
    const messages: ModelMessage[] = [
      { role: 'user', content: 'make the build pass' },
      {
        role: 'assistant',
        content: [
          { type: 'text', text: 'The build fails in src/a.ts; I will change the import.' },
          { type: 'tool-call', toolCallId: '1', toolName: 'read', input: { path: 'src/a.ts' } },
          { type: 'tool-call', toolCallId: '2', toolName: 'bash', input: { command: 'npm run build' } },
        ],
      },
      {
        role: 'tool',
        content: [
          {
            type: 'tool-result',
            toolCallId: '1',
            toolName: 'read',
            output: { type: 'text', value: 'SECRET FILE BODY' },
          },
          {
            type: 'tool-result',
            toolCallId: '2',
            toolName: 'bash',
            output: { type: 'error-text', value: 'TS2307 missing module' },
          },
        ],
      },
    ];
    const pack = parentFactsPack(messages);
    expect(pack.startsWith('<parent-facts>\nRequest: make the build pass')).toBe(true);
    expect(pack).toContain('- The build fails in src/a.ts; I will change the import.');
    expect(pack).toContain('- ran `npm run build`');
    expect(pack).toContain('- bash failed: TS2307 missing module');
    expect(pack).toContain('Files involved: src/a.ts');
    expect(pack).not.toContain('SECRET FILE BODY');
  });

  it('stays compact however long the conversation is', () => {
    const messages: ModelMessage[] = [{ role: 'user', content: 'go' }];
    for (let i = 0; i < 200; i++)
      messages.push({ role: 'assistant', content: `decision ${i} ${'x'.repeat(1000)}` });
    expect(parentFactsPack(messages).length).toBeLessThan(4000);
  });
});
