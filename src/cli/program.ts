import { Command, CommanderError, Option } from 'commander';
import packageJson from '../../package.json' with { type: 'json' };
import { stopWhenOutputCloses } from './closed-output.js';
import { addSubagentCommand } from './commands/subagent/cli.js';
import { UsageError } from './errors.js';
import { type ModeLoaders, runHeadless } from './headless-args.js';
import { FORMATS, portNumber, positiveInt, SAFETY } from './options.js';

/** Options shared by every mode that runs an agent (SPEC 1). */
function addAgentOptions(command: Command): Command {
  return command
    .option('--agent <name>', 'start with this profile active')
    .option('--prompt <name>', 'start with this prompt file selected (its body and mode)')
    .option('--model <alias-or-model>', 'main model: a providers alias or a literal model name')
    .option('--provider <alias>', 'main provider alias')
    .addOption(new Option('--safety <level>', 'permission floor').choices(SAFETY).default('full'))
    .option('--permissions <file>', 'operator permission profile, composed last')
    .option('--yes', 'approve every ask automatically (never overrides a deny)')
    .option(
      '--trust-project',
      "trust this project for this run: its own config may start MCP servers and set the walls' keys",
    )
    .option('--cwd <dir>', 'run as if started in this directory');
}

/** Every command and alias, for suggestions; kept live so commands added later are included. */
export function commandNames(program: Command): string[] {
  return program.commands.flatMap((c) => [c.name(), ...c.aliases()]);
}

export function buildProgram(modes: ModeLoaders): Command {
  const program = new Command('cadre')
    .description('A terminal coding agent built around named agent profiles and coordinated subagents')
    .version(packageJson.version, '-v, --version')
    .argument('[task...]', 'the task (with -p); read from standard input when absent')
    .option('-p, --print', 'headless: run one task to completion and print the answer')
    .addOption(new Option('--output-format <format>', 'headless output').choices(FORMATS).default('text'))
    .option('--max-turns <n>', 'cap on the main loop turns', positiveInt)
    .option('--continue', 'continue the most recent session of this project')
    .option('--resume <session-id>', 'resume a given session')
    .showHelpAfterError()
    // Root options only before a subcommand, so `permissions explain --agent x` reaches the subcommand.
    .enablePositionalOptions()
    .exitOverride();
  addAgentOptions(program);
  program.action(async (task: string[], options) => {
    // Asked only without -p: `process.stdin` builds a stream on first touch (a few ms of a cold start), and
    // `-p` with the task's words never reads standard input.
    const terminal = !options.print && process.stdin.isTTY === true && process.stdout.isTTY === true;
    if (!options.print && task.length > 0) {
      // Words without -p are never a headless task (issue 16): a near miss of a command is a typo; on a
      // terminal anything else is the interactive UI's first prompt.
      const { closestCommand, wordsWithoutPrintMessage } = await import('./unknown-command.js');
      const typo = task.length === 1 && closestCommand(task[0], commandNames(program)) !== undefined;
      if (typo || !terminal) throw new UsageError(wordsWithoutPrintMessage(task, commandNames(program)));
    }
    // Without -p on a terminal the user wants the interactive UI; piped input or output is a headless run.
    // The UI and React load only here.
    if (terminal) {
      const { runInteractive } = await modes.tui();
      process.exitCode = await runInteractive({ ...options, task });
      return;
    }
    await runHeadless({ ...options, task }, modes.headless);
  });

  program
    .command('agents')
    .description('list profiles, collisions, load warnings and role routing')
    .option('--json', 'machine-readable output')
    .option('--cwd <dir>', 'run as if started in this directory')
    .action(async (options) => {
      const { runAgentsCommand } = await import('./commands/agents.js');
      process.exitCode = await runAgentsCommand(options);
    });

  addSubagentCommand(program);

  const permissions = program.command('permissions').description('inspect permission decisions');
  permissions
    .command('explain')
    .description('print the decision for a tool call and every layer and rule that produced it')
    .argument('<call>', 'a call such as "bash(git push origin main)" or "read(src/a.ts)"')
    .option('--agent <name>', 'decide as this profile')
    .addOption(new Option('--safety <level>', 'permission floor').choices(SAFETY).default('full'))
    .option('--permissions <file>', 'operator permission profile')
    .option('--prompt <name>', 'decide with this prompt layer')
    .option('--yes', 'decide as if --yes were given')
    .option('--headless', 'decide as a run with no user to answer asks (-p without --yes)')
    .option('--approve <rule...>', 'session approvals ("always allow" rules) to decide with')
    .option('--trust-project', 'decide as in a trusted project')
    .option('--json', 'machine-readable output')
    .option('--cwd <dir>', 'run as if started in this directory')
    .action(async (call, options) => {
      const { runExplainCommand } = await import('./commands/permissions-explain.js');
      process.exitCode = await runExplainCommand(call, options);
    });

  program
    .command('trust')
    .description("trust a project: its own config may start MCP servers and set the walls' keys")
    .argument('[path]', 'the project folder (default: the current project)')
    .option('--revoke', 'stop trusting it')
    .option('--list', 'list the trusted projects')
    .action(async (path, options) => {
      const { runTrustCommand } = await import('./commands/trust.js');
      process.exitCode = await runTrustCommand(path, options);
    });

  program
    .command('sandbox')
    .description('the OS sandbox around every shell command')
    .command('status')
    .description('which sandbox is in force and why, what is writable, hidden and scrubbed')
    .addOption(new Option('--safety <level>', 'permission floor').choices(SAFETY).default('full'))
    .option('--trust-project', 'as in a trusted project')
    .option('--json', 'machine-readable output')
    .option('--cwd <dir>', 'run as if started in this directory')
    .action(async (options) => {
      const { runSandboxStatusCommand } = await import('./commands/sandbox-status.js');
      process.exitCode = await runSandboxStatusCommand(options);
    });

  addAgentOptions(
    program
      .command('acp')
      .description('Agent Client Protocol server over stdio, for editors (Zed and other ACP clients)')
      .option('--max-turns <n>', 'cap on the main loop turns of each prompt', positiveInt),
  ).action(async (options) => {
    const { runAcpCommand } = await modes.acp();
    process.exitCode = await runAcpCommand({ ...options, version: packageJson.version });
  });

  addAgentOptions(
    program
      .command('web')
      .description('local web UI on 127.0.0.1: prints a URL with a one-time token')
      .option('--mode <name>', 'the same as --agent')
      .option('--port <port>', 'port to listen on (default: a free one)', portNumber)
      .option('--open', 'open the URL in the default browser')
      .option('--continue', 'continue the most recent session of this project')
      .option('--resume <session-id>', 'resume a given session'),
  ).action(async (options) => {
    const { runWebCommand } = await import('../web/server/command.js');
    process.exitCode = await runWebCommand(options);
  });

  program
    .command('tasks')
    .description('list past subagent tasks; show, merge or discard a retained writer worktree')
    .argument('[action]', 'list (default), show, merge or discard')
    .argument('[id]', 'task id or unique prefix (show, merge, discard)')
    .option('--json', 'machine-readable output (list, show)')
    .option('--yes', 'confirm discard')
    .option('--cwd <dir>', 'run as if started in this directory')
    .action(async (action, id, options) => {
      const { runTasksCommand } = await import('./commands/tasks.js');
      process.exitCode = await runTasksCommand(action, id, options);
    });

  program
    .command('worker')
    .description('run subagents for roots on other machines: take signed jobs from Redis (workers block)')
    .option('--redis <url>', 'Redis to take jobs from (overrides workers.redis)')
    .option('--concurrency <n>', 'jobs run at once (default 1)', positiveInt)
    .option('--name <name>', 'name shown to roots (default: host name and process id)')
    .option('--dir <path>', 'cache of the shared repository and worktrees')
    .option('--cwd <dir>', 'run as if started in this directory')
    .action(async (options) => {
      const { runWorkerCommand } = await import('./commands/worker.js');
      process.exitCode = await runWorkerCommand(options);
    });

  program
    .command('demo')
    .description('offline showcase on the scripted model in a temporary git repo')
    .option('--keep', 'keep the temporary repository')
    .action(async (options) => {
      const { runDemoCommand } = await import('./commands/demo.js');
      process.exitCode = await runDemoCommand(options);
    });
  return program;
}

/**
 * The whole command line through commander: every command, help and usage errors. Commander's own
 * complaints (and help and version) end here with their exit code; other errors are the caller's.
 */
export async function runProgram(argv: string[], modes: ModeLoaders): Promise<void> {
  stopWhenOutputCloses();
  try {
    await buildProgram(modes).parseAsync(argv);
  } catch (error) {
    if (!(error instanceof CommanderError)) throw error;
    // Help and version are successes; every other commander complaint is bad usage (exit 2).
    process.exitCode = error.exitCode === 0 ? 0 : 2;
  }
}
