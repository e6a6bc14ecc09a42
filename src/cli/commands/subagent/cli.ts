import { Command, Option } from 'commander';
import { FORMATS, positiveInt, SAFETY } from '../../options.js';

function addDirOptions(command: Command): Command {
  return command
    .option('--dir <path>', 'the project directory (default: the current one)')
    .addOption(new Option('--cwd <dir>', 'same as --dir').hideHelp());
}

/** The profile fields `create` and `edit` set. */
function addFieldOptions(command: Command): Command {
  return addDirOptions(command)
    .option('--description <text>', 'one line, shown in listings and to the main model')
    .option('--prompt <text>', 'the system prompt')
    .option('--prompt-file <path>', 'read the system prompt from a file ("-": standard input)')
    .option('--model <ref>', 'a providers alias or a literal model name')
    .option('--effort <level>', 'off, minimal, low, medium, high, xhigh or max')
    .option('--tools <a,b>', 'allowed tools; a writer or shell tool makes it readwrite, else readonly')
    .option('--color <name>', 'display colour');
}

/** Options of `try` and `run`; no defaults here, so a value given before the name is not overwritten. */
function addRunnerOptions(command: Command): Command {
  return addDirOptions(command)
    .option(
      '--model <ref>',
      'the model when no subagent_models entry, profile model or subagent_model chose one',
    )
    .option('--max-steps <n>', 'cap on the subagent tool loop turns', positiveInt)
    .addOption(
      new Option('--safety <level>', 'permission floor (default full; try: always read-only)').choices(
        SAFETY,
      ),
    )
    .option('--permissions <file>', 'operator permission profile, composed last')
    .option('--yes', 'approve every ask automatically (never overrides a deny)')
    .option('--trust-project', 'trust this project for this run')
    .addOption(new Option('--output-format <format>', 'output (default text)').choices(FORMATS));
}

export interface RunnerOptions {
  dir?: string;
  cwd?: string;
  model?: string;
  maxSteps?: number;
  safety?: (typeof SAFETY)[number];
  permissions?: string;
  yes?: boolean;
  trustProject?: boolean;
  outputFormat?: (typeof FORMATS)[number];
}

/**
 * Flags go before the task (SPEC 11): options after the profile name are read until the first word of
 * the task, and everything from there on is the task, even words that look like flags.
 */
function splitRunnerArgs(
  mode: string,
  before: RunnerOptions,
  rest: string[],
): { options: RunnerOptions; task: string[] } {
  const inner = addRunnerOptions(new Command(`cadre subagent ${mode} <name>`))
    .argument('[task...]')
    .passThroughOptions()
    .helpOption(false)
    .exitOverride();
  inner.parse(rest, { from: 'user' });
  return { options: { ...before, ...(inner.opts() as RunnerOptions) }, task: inner.args };
}

function runnerCommand(parent: Command, mode: 'try' | 'run', description: string): void {
  addRunnerOptions(parent.command(mode).description(description))
    .argument('<name>', 'the profile')
    .argument('[task...]', 'the task; read from standard input when absent')
    .passThroughOptions()
    .action(async (name: string, rest: string[], before: RunnerOptions) => {
      const { options, task } = splitRunnerArgs(mode, before, rest);
      const { runProfileCommand } = await import('./runner.js');
      process.exitCode = await runProfileCommand(mode, name, task, options);
    });
}

/** `cadre subagent list|create|edit|delete|try|run` (SPEC 11); each action is loaded when it runs. */
export function addSubagentCommand(program: Command): void {
  const subagent = program
    .command('subagent')
    .description('manage, try and run subagent profiles')
    .enablePositionalOptions();

  addDirOptions(
    subagent
      .command('list')
      .description('list every profile by scope, and which ones the editors may change'),
  )
    .option('--json', 'machine-readable output')
    .action(async (options) => {
      const { runListCommand } = await import('./list.js');
      process.exitCode = await runListCommand(options);
    });

  addFieldOptions(
    subagent
      .command('create')
      .description(
        'create a profile as .cadre/skills/<name>/SKILL.md (project scope in a project, else global)',
      )
      .argument('<name>', 'the new profile name'),
  )
    .addOption(new Option('--scope <scope>', 'where to create it').choices(['project', 'global']))
    .option('--read-only', 'force the readonly tier and strip every writer tool')
    .action(async (name: string, options) => {
      const { runCreateCommand } = await import('./create.js');
      process.exitCode = await runCreateCommand(name, options);
    });

  addFieldOptions(
    subagent
      .command('edit')
      .description('change the given fields of a profile; an empty value (--model=) clears one')
      .argument('<name>', 'the profile'),
  ).action(async (name: string, options) => {
    const { runEditCommand } = await import('./edit.js');
    process.exitCode = await runEditCommand(name, options);
  });

  addDirOptions(
    subagent.command('delete').description('delete a profile file').argument('<name>', 'the profile'),
  )
    .option('--yes', 'really delete it')
    .action(async (name: string, options) => {
      const { runDeleteCommand } = await import('./delete.js');
      process.exitCode = await runDeleteCommand(name, options);
    });

  runnerCommand(subagent, 'try', 'run a profile on a task with read-only tools, whatever the profile says');
  runnerCommand(subagent, 'run', 'run a profile on a task under the normal permissions and sandbox');
}
