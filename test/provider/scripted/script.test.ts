import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  loadScript,
  parseScript,
  parseScriptText,
  ScriptError,
} from '../../../src/provider/scripted/script.js';

const dir = mkdtempSync(join(tmpdir(), 'cadre-script-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function writeScript(name: string, text: string): string {
  const file = join(dir, name);
  writeFileSync(file, text);
  return file;
}

function errorOf(fn: () => unknown): ScriptError {
  try {
    fn();
  } catch (err) {
    if (err instanceof ScriptError) return err;
    throw err;
  }
  throw new Error('expected a ScriptError');
}

describe('script format', () => {
  it('accepts the object form and a bare array of rules as the same script', () => {
    const rules = [{ match: { system: 'reviewer' }, turns: [{ text: 'ok' }] }];
    expect(parseScript(rules)).toEqual({ rules });
    expect(parseScript({ rules })).toEqual({ rules });
  });

  it('accepts every kind of turn, alone or combined', () => {
    const turns = [
      { text: 'hi', reasoning: 'thinking', usage: { input_tokens: 10, output_tokens: 2 } },
      {
        tool_calls: [
          { name: 'read', arguments: { path: 'a' } },
          { name: 'bash', raw_arguments: '{"command": ' },
        ],
      },
      { delay_ms: 50, text: 'slow' },
      { error: { status: 429, message: 'slow down', retry_after: 0.5, times: 1 }, text: 'after the 429' },
      { error: { status: 503, message: 'down for good', type: 'overloaded_error' } },
      { reset: true },
      { reset: { times: 2 }, text: 'after two resets' },
      { truncate: true, text: 'never finished' },
      { malformed: { times: 1 }, truncate: { times: 1 }, text: 'after one of each' },
      { stream_error: { type: 'overloaded_error', message: 'Overloaded', times: 1 }, text: 'then fine' },
    ];
    expect(parseScript({ rules: [{ turns }] }).rules[0].turns).toEqual(turns);
  });

  it('loads a file with comments and trailing commas', () => {
    const file = writeScript(
      'commented.json',
      '// demo\n{ "rules": [ { "turns": [ { "text": "hi" }, ] } ] }\n',
    );
    expect(loadScript(file)).toEqual({ rules: [{ turns: [{ text: 'hi' }] }] });
  });

  const invalid: { name: string; text: string; message: string; jsonPath: string }[] = [
    {
      name: 'a wrongly typed field',
      text: '{\n  "rules": [\n    { "turns": [ { "text": 5 } ] }\n  ]\n}',
      message: ':3: invalid script at rules[0].turns[0].text: expected string, received number',
      jsonPath: 'rules[0].turns[0].text',
    },
    {
      name: 'an unknown key (a typo)',
      text: '{ "rules": [ { "turns": [ { "txt": "hi" } ] } ] }',
      message: 'invalid script at rules[0].turns[0].txt: unknown key "txt"',
      jsonPath: 'rules[0].turns[0].txt',
    },
    {
      name: 'an empty turn',
      text: '{ "rules": [ { "turns": [ {} ] } ] }',
      message: 'invalid script at rules[0].turns[0]: a turn needs at least one of',
      jsonPath: 'rules[0].turns[0]',
    },
    {
      name: 'a tool call with both arguments and raw_arguments',
      text: '{ "rules": [ { "turns": [ { "tool_calls": [ { "name": "read", "arguments": {}, "raw_arguments": "{" } ] } ] } ] }',
      message:
        'invalid script at rules[0].turns[0].tool_calls[0]: give "arguments" or "raw_arguments", not both',
      jsonPath: 'rules[0].turns[0].tool_calls[0]',
    },
    {
      name: 'a non-error status in a bare-array script',
      text: '[ { "turns": [ { "error": { "status": 200, "message": "fine" } } ] } ]',
      message: 'invalid script at [0].turns[0].error.status: Too small: expected number to be >=400',
      jsonPath: '[0].turns[0].error.status',
    },
    {
      name: 'a truncation count of zero',
      text: '{ "rules": [ { "turns": [ { "truncate": { "times": 0 } } ] } ] }',
      message: 'invalid script at rules[0].turns[0].truncate.times: Too small',
      jsonPath: 'rules[0].turns[0].truncate.times',
    },
    {
      name: 'a rule without turns',
      text: '{ "rules": [ { "match": { "system": "x" } } ] }',
      message: 'invalid script at rules[0].turns: expected array, received undefined',
      jsonPath: 'rules[0].turns',
    },
    {
      name: 'an unknown match key',
      text: '{ "rules": [ { "match": { "user": "x" }, "turns": [] } ] }',
      message: 'invalid script at rules[0].match.user: unknown key "user"',
      jsonPath: 'rules[0].match.user',
    },
  ];

  it.each(invalid)('rejects $name with the file, line and JSON path', ({ name, text, message, jsonPath }) => {
    const file = writeScript(`${name.replace(/\W+/g, '-')}.json`, text);
    const error = errorOf(() => loadScript(file));
    expect(error.message).toContain(file);
    expect(error.message).toContain(message);
    expect(error.file).toBe(file);
    expect(error.jsonPath).toBe(jsonPath);
  });

  it('reports invalid JSON with the file and line', () => {
    const file = writeScript('broken.json', '{\n  "rules": [\n    { "turns": [ { "text": "hi" } }\n');
    const error = errorOf(() => loadScript(file));
    expect(error.message).toMatch(
      new RegExp(`^${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:3: invalid JSON in script`),
    );
  });

  it('reports a missing file by name', () => {
    const file = join(dir, 'absent.json');
    expect(() => loadScript(file)).toThrow(`${file}: cannot read script`);
  });

  it('names an in-memory script by its source label', () => {
    expect(() => parseScriptText('{"rules": 3}', 'inline')).toThrow(
      'inline:1: invalid script at rules: expected array, received number',
    );
  });
});
