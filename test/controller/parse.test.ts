import { describe, expect, it } from 'vitest';
import { parseInput } from '../../src/controller/slash/parse.js';
import { findCommand } from '../../src/controller/slash/registry.js';

const PROFILES = ['review', 'researcher'];
const lookup = (name: string) =>
  findCommand(name) ??
  (PROFILES.includes(name) ? { name, summary: '', args: '<task>', run: () => ({ text: '' }) } : undefined);
const names = () => ['agents', 'agent', 'help', 'tasks', ...PROFILES];

describe('parseInput: a leading /word is a command only when it names one', () => {
  it.each([
    ['/agents', 'command', 'agents', ''],
    ['/agent reviewer', 'command', 'agent', 'reviewer'],
    ['  /agent   off  ', 'command', 'agent', 'off'],
    ['/review the last commit', 'command', 'review', 'the last commit'],
    ['/researcher\nmulti\nline', 'command', 'researcher', 'multi\nline'],
  ])('%j is the command %s', (text, kind, name, args) => {
    expect(parseInput(text, lookup, names)).toMatchObject({ kind, name, args });
  });

  it.each([
    '/etc/hosts looks wrong, why?',
    '/tmp is full',
    '/ nothing',
    '/',
    '/3 things',
    'please run /agents',
    'plain prompt',
  ])('%j goes to the model unchanged', (text) => {
    expect(parseInput(text, lookup, names)).toEqual({ kind: 'prompt', text });
  });

  it.each([
    ['/agnet reviewer', 'agnet', ['agent', 'agents']],
    ['/hepl', 'hepl', ['help']],
    ['/reviw code', 'reviw', ['review']],
  ])('%j is an unknown command with close matches', (text, name, suggestions) => {
    expect(parseInput(text, lookup, names)).toEqual({ kind: 'unknown', name, suggestions });
  });
});
