import type { HeadlessOptions } from './headless.js';
import { FORMATS, positiveIntValue, SAFETY } from './option-values.js';

/**
 * The modes that start an agent, imported by `main.ts` alone: the build replaces each import there with
 * its own bundle's stub, found from that file's place (scripts/build.mjs).
 */
export interface ModeLoaders {
  headless: () => Promise<typeof import('./headless.js')>;
  tui: () => Promise<typeof import('../tui/run.js')>;
  acp: () => Promise<typeof import('./commands/acp.js')>;
}

/**
 * The root's commands and their aliases, and commander's implicit `help`: a command line whose first word
 * is one of them is that command's (test/cli/headless-args.test.ts holds this list to the program's).
 */
export const COMMAND_NAMES: ReadonlySet<string> = new Set([
  'agents',
  'subagent',
  'permissions',
  'trust',
  'sandbox',
  'acp',
  'web',
  'tasks',
  'worker',
  'demo',
  'help',
]);

type Flag = { key: keyof HeadlessOptions; value?: (text: string) => string | number | undefined };

const choice =
  (values: readonly string[]) =>
  (text: string): string | undefined =>
    values.includes(text) ? text : undefined;
const text = (value: string): string => value;

/** The root options of `cadre -p` (src/cli/program.ts), as commander names their values. */
const FLAGS: ReadonlyMap<string, Flag> = new Map<string, Flag>([
  ['-p', { key: 'print' }],
  ['--print', { key: 'print' }],
  ['--output-format', { key: 'outputFormat', value: choice(FORMATS) }],
  ['--max-turns', { key: 'maxTurns', value: positiveIntValue }],
  ['--continue', { key: 'continue' }],
  ['--resume', { key: 'resume', value: text }],
  ['--agent', { key: 'agent', value: text }],
  ['--prompt', { key: 'prompt', value: text }],
  ['--model', { key: 'model', value: text }],
  ['--provider', { key: 'provider', value: text }],
  ['--safety', { key: 'safety', value: choice(SAFETY) }],
  ['--permissions', { key: 'permissions', value: text }],
  ['--yes', { key: 'yes' }],
  ['--trust-project', { key: 'trustProject' }],
  ['--cwd', { key: 'cwd', value: text }],
]);

/**
 * The options and task of a headless run (`-p`) given in the plainest form: root options (`--flag value`
 * with a valid value) and the task's words. Anything else (another command, help, version, an unknown or
 * malformed option, `--`, `--flag=value`, a value that looks like an option, a run without `-p`) is
 * `undefined`: commander parses it, with its messages. Where this answers, it answers as commander does
 * (test/cli/headless-args.test.ts compares the two).
 */
export function headlessArgs(args: readonly string[]): HeadlessOptions | undefined {
  const options: Record<string, unknown> = { outputFormat: 'text', safety: 'full' };
  const task: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    if (arg.length > 1 && arg.startsWith('-')) {
      const flag = FLAGS.get(arg);
      if (!flag) return undefined;
      if (!flag.value) {
        options[flag.key] = true;
        continue;
      }
      const given = args[++i];
      if (given === undefined || given.startsWith('-')) return undefined;
      const value = flag.value(given);
      if (value === undefined) return undefined;
      options[flag.key] = value;
    } else {
      if (task.length === 0 && COMMAND_NAMES.has(arg)) return undefined;
      task.push(arg);
    }
  }
  return options.print === true ? ({ ...options, task } as unknown as HeadlessOptions) : undefined;
}

/** A headless run, as the root command's action starts it: its exit code set, the process ended once flushed. */
export async function runHeadless(options: HeadlessOptions, load: ModeLoaders['headless']): Promise<void> {
  const { exitWhenFlushed, runHeadlessCommand } = await load();
  process.exitCode = await runHeadlessCommand(options);
  await exitWhenFlushed();
}
