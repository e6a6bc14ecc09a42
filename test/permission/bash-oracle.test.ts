import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadShellParser, type WithShellTree } from '../../src/permission/shell-parser.js';
import { type ShellWord, walkShell } from '../../src/permission/shell-tree.js';
import { bwrapTestsRun, requireBwrap } from '../support/bwrap.js';
import { prng } from '../support/prng.js';

/**
 * Issue 15 point 2: the reader's words and commands are compared with bash's own. Generated command
 * strings (quotes, escapes, `$'…'`, comments, separators, control bytes, expansions) run in a real bash
 * inside bwrap with no network; each command is a function that prints its name and arguments. Wherever
 * the reader claims to understand a command (no problem reported), the commands must be the ones bash
 * ran, in order, and every word it calls literal (up to the first one known only at run time, which may
 * vanish or split) must be exactly the argument bash passed.
 */
const CASES = 300;
const NAMES = ['A', 'B', 'C'];
const PRELUDE = `${NAMES.map((n) => `${n}() { printf '%s\\0' ${n} "$#" "$@"; }`).join('; ')}\n`;

let withTree: WithShellTree;
let cwd: string;

beforeAll(async () => {
  requireBwrap();
  withTree = await loadShellParser();
  cwd = mkdtempSync(join(tmpdir(), 'cadre-oracle-'));
});
afterAll(() => rmSync(cwd, { recursive: true, force: true }));

function generator(seed: number) {
  const random = prng(seed);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)];
  const repeat = (min: number, max: number, make: () => string) => {
    let text = '';
    const count = min + Math.floor(random() * (max - min + 1));
    for (let i = 0; i < count; i++) text += make();
    return text;
  };
  const plain = () => pick([...'abcxyz019_./-=:,@%+']);
  const inSingle = () => pick([...'ab $"\\;|&*#\n\t\r~', 'x', 'y']);
  const inDouble = () =>
    pick(['a', 'b', ' ', "'", ';', '\\"', '\\\\', '\\$', '\\`', '\\a', '\n', '#', '*', '$HOME', '\r']);
  const inAnsi = () =>
    pick(['a', ' ', '\\n', '\\t', '\\x41', '\\101', "\\'", '\\\\', '\\u00e9', '\\e', '"', '\\r']);
  const piece = (): string =>
    pick([
      plain,
      plain,
      () => `\\${pick([...'a $\'";|&#\\*~()<>'])}`,
      () => `'${repeat(0, 5, inSingle)}'`,
      () => `"${repeat(0, 5, inDouble)}"`,
      () => `$'${repeat(0, 4, inAnsi)}'`,
      // biome-ignore lint/suspicious/noTemplateCurlyInString: bash source, not a template
      () => pick(['$HOME', '${HOME}', '$1', '~', '*', '#c', '\r', '{a,b}', '\\\n']),
    ])();
  const word = () => repeat(1, 3, piece);
  const command = () => `${pick(NAMES)}${repeat(0, 4, () => ` ${word()}`)}`;
  const separator = () => pick(['; ', ' && ', '\n', ' ; ']);
  return () => {
    const commands = repeat(1, 3, () => `${command()}${separator()}`);
    return pick([commands, `{ ${commands} }`, `( ${commands} )`, `if A; then ${commands} fi`]);
  };
}

/** The calls bash made: each name with its arguments. */
function bashCalls(source: string): string[][] | undefined {
  const run = spawnSync(
    'bwrap',
    [
      '--unshare-all',
      '--die-with-parent',
      '--ro-bind',
      '/',
      '/',
      '--dev',
      '/dev',
      '--chdir',
      cwd,
      '--setenv',
      'HOME',
      '/h',
      'bash',
      '--norc',
      '--noprofile',
      '-c',
      PRELUDE + source,
    ],
    { encoding: 'utf8', timeout: 10_000 },
  );
  if (run.status !== 0 || run.error) return undefined;
  const fields = run.stdout.split('\0');
  const calls: string[][] = [];
  for (let at = 0; at + 1 < fields.length; ) {
    const count = Number(fields[at + 1]);
    calls.push([fields[at], ...fields.slice(at + 2, at + 2 + count)]);
    at += 2 + count;
  }
  return calls;
}

/** What the reader sees: each command's words, `undefined` for a word it does not call literal. */
function readerCalls(source: string): (string | undefined)[][] | undefined {
  const parsed = withTree(source, (root) => walkShell(root, source));
  if (parsed.problems.length > 0 || parsed.substitutions.length > 0) return undefined;
  const literal = (w: ShellWord) => (w.dynamic || w.glob || w.tilde ? undefined : w.value);
  const commands = parsed.commands.filter((c) => c.words.length > 0).map((c) => c.words.map(literal));
  // Only commands that print themselves can be compared (a quoted word may have become a command name).
  return commands.every((c) => NAMES.includes(c[0] ?? '')) ? commands : undefined;
}

describe.runIf(bwrapTestsRun)('the bash reader agrees with bash', () => {
  it(`reads ${CASES} generated commands as bash runs them`, () => {
    const next = generator(15);
    let compared = 0;
    for (let i = 0; i < CASES; i++) {
      const source = next();
      const reader = readerCalls(source);
      if (!reader) continue;
      const bash = bashCalls(source);
      expect(bash, `bash failed on ${JSON.stringify(source)}`).toBeDefined();
      expect(reader.length, JSON.stringify(source)).toBe(bash?.length);
      reader.forEach((words, index) => {
        const actual = bash?.[index] ?? [];
        // Up to the first word known only at run time (which may vanish or split), words match exactly.
        const known = words.indexOf(undefined);
        const literal = known === -1 ? words : words.slice(0, known);
        expect(literal, JSON.stringify(source)).toEqual(actual.slice(0, literal.length));
        if (known === -1) expect(words.length, JSON.stringify(source)).toBe(actual.length);
      });
      compared++;
    }
    // Most generated commands are understood: the comparison is not vacuous.
    expect(compared).toBeGreaterThan(CASES / 3);
    // One bwrap'd bash per case: about 25 s on an idle 2-core machine, far more when it is busy.
  }, 120_000);
});
