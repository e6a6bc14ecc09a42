import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { loadScript, parseScript } from '../../src/provider/scripted/script.js';
import { script, scriptedProviderAlias, withScriptedServer } from './llm-server.js';

describe('script builder', () => {
  it('produces the same JSON a script file would hold', () => {
    const built = script()
      .rule({ system: 'reviewer' }, 'reviewer')
      .turn((t) => t.tool('read', { path: 'a.txt' }))
      .turn((t) => t.text('done'))
      .rule()
      .turn((t) =>
        t.error(429, 'slow down', { retry_after: 1, times: 1 }).reasoning('hm').text('ok').usage(5, 6),
      )
      .turn((t) => t.rawTool('bash', '{"command":').delay(20).reset(2))
      .turn({ text: 'literal turn' })
      .build();
    const expected = {
      rules: [
        {
          name: 'reviewer',
          match: { system: 'reviewer' },
          turns: [{ tool_calls: [{ name: 'read', arguments: { path: 'a.txt' } }] }, { text: 'done' }],
        },
        {
          turns: [
            {
              error: { status: 429, message: 'slow down', retry_after: 1, times: 1 },
              reasoning: 'hm',
              text: 'ok',
              usage: { input_tokens: 5, output_tokens: 6 },
            },
            {
              tool_calls: [{ name: 'bash', raw_arguments: '{"command":' }],
              delay_ms: 20,
              reset: { times: 2 },
            },
            { text: 'literal turn' },
          ],
        },
      ],
    };
    expect(built).toEqual(expected);
    expect(parseScript(built)).toEqual(expected);
  });

  it('opens a match-everything rule when turns come first', () => {
    expect(script().text('a').text('b').build()).toEqual({
      rules: [{ turns: [{ text: 'a' }, { text: 'b' }] }],
    });
  });

  it('writes a script file the loader accepts', () => {
    const dir = mkdtempSync(join(tmpdir(), 'cadre-builder-'));
    onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
    const file = script().rule({ first_user: 'hi' }).text('hello').writeTo(join(dir, 'script.json'));
    expect(loadScript(file)).toEqual({
      rules: [{ match: { first_user: 'hi' }, turns: [{ text: 'hello' }] }],
    });
  });
});

describe('withScriptedServer', () => {
  it('serves during the callback and is closed afterwards', async () => {
    const url = await withScriptedServer(script().text('hi'), async (server) => {
      expect(scriptedProviderAlias(server)).toEqual({
        type: 'openai-compatible',
        base_url: server.openaiBaseUrl,
        model: 'scripted-model',
        api_key: 'scripted',
      });
      const response = await fetch(`${server.openaiBaseUrl}/chat/completions`, {
        method: 'POST',
        body: JSON.stringify({ model: 'm', messages: [{ role: 'user', content: 'x' }] }),
      });
      expect(await response.json()).toMatchObject({ choices: [{ message: { content: 'hi' } }] });
      return server.url;
    });
    await expect(fetch(url)).rejects.toThrow();
  });
});
