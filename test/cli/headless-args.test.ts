import type { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { COMMAND_NAMES, headlessArgs, type ModeLoaders } from '../../src/cli/headless-args.js';
import { buildProgram, commandNames } from '../../src/cli/program.js';
import { pick, prng } from '../support/prng.js';

const NO_MODES: ModeLoaders = {
  headless: () => Promise.reject(new Error('not in this test')),
  tui: () => Promise.reject(new Error('not in this test')),
  acp: () => Promise.reject(new Error('not in this test')),
};

/** What commander makes of `args`: the root action's options and task, or the command it went to. */
async function commanderParse(args: string[]): Promise<unknown> {
  const program = buildProgram(NO_MODES).configureOutput({ writeOut: () => {}, writeErr: () => {} });
  let outcome: unknown;
  const elsewhere = (command: Command) => {
    for (const sub of command.commands) {
      sub.action(() => {
        outcome = { command: sub.name() };
      });
      elsewhere(sub);
    }
  };
  elsewhere(program);
  program.action((task: string[], options: Record<string, unknown>) => {
    outcome = { ...options, task };
  });
  try {
    await program.parseAsync(args, { from: 'user' });
  } catch (error) {
    return { error: (error as Error).message };
  }
  return outcome;
}

const WORDS = [
  ...['-p', '--print', '-p', 'hi', 'fix', 'the', 'bug', 'agents', 'help', 'demo', 'trust', '-', '--'],
  ...['--yes', '--continue', '--trust-project', '--output-format', 'json', 'text', 'stream-json', 'yaml'],
  ...['--max-turns', '3', '0', '-1', '2.5', '--safety', 'read-only', 'full', 'all', '--agent', 'x', '--cwd'],
  ...['/tmp', '--resume', 'abc', '--model', 'm', '--provider', '--prompt', '--permissions', 'p.json'],
  ...['-v', '--version', '-h', '--help', '--output-format=json', '-py', '--bogus', '-x', '--print=1'],
];

describe('the headless command line without commander (issue 17)', () => {
  it('answers as commander does wherever it answers', async () => {
    const next = prng(17);
    let answered = 0;
    for (let n = 0; n < 6000; n++) {
      const words = Array.from({ length: Math.floor(next() * 7) }, () => pick(next, WORDS));
      // Most command lines of a headless run start with -p; some have it later or not at all.
      const args = next() < 0.7 ? ['-p', ...words] : words;
      const fast = headlessArgs(args);
      if (fast === undefined) continue;
      answered++;
      expect({ args, outcome: await commanderParse(args) }).toEqual({ args, outcome: fast });
    }
    expect(answered).toBeGreaterThan(500);
  });

  it('answers the usual headless command lines', async () => {
    for (const args of [
      ['-p', 'hi'],
      ['-p', 'fix', 'the', 'bug', '--yes'],
      ['--print', 'hi', '--output-format', 'stream-json', '--max-turns', '5'],
      ['-p', '--agent', 'reviewer', '--model', 'fast', '--safety', 'read-only', 'review this'],
      ['-p', '--continue', '--cwd', '/tmp', 'go on'],
      ['-p'],
    ]) {
      const fast = headlessArgs(args);
      expect(fast).toBeDefined();
      expect(await commanderParse(args)).toEqual(fast);
    }
  });

  it('leaves commands, help, version, bad values and runs without -p to commander', () => {
    for (const args of [
      ['-p', 'agents'],
      ['-p', 'help'],
      ['--version'],
      ['-p', 'hi', '--help'],
      ['-p', 'hi', '--max-turns', '0'],
      ['-p', 'hi', '--output-format', 'yaml'],
      ['-p', 'hi', '--output-format=json'],
      ['-p', '--', '-x'],
      ['-p', '--agent'],
      ['hi'],
      [],
    ])
      expect(headlessArgs(args)).toBeUndefined();
  });

  it('knows every command and alias of the program', () => {
    expect([...COMMAND_NAMES].sort()).toEqual([...commandNames(buildProgram(NO_MODES)), 'help'].sort());
  });
});
