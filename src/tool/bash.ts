import { z } from 'zod';
import { readOnlyHint } from '../sandbox/hint.js';
import { lazySchema } from '../util/lazy-schema.js';
import { BUILT_INPUT_SCHEMAS } from './built-input-schemas.js';
import { fail, ok } from './result.js';
import { HeadTailBuffer, killProcessGroup, startShell, whenFinished } from './shell-process.js';
import type { Tool, ToolResult } from './tool.js';

const DEFAULT_TIMEOUT_SECONDS = 120;
const MAX_TIMEOUT_SECONDS = 600;
/** Output kept for the model: the start (what ran) and, larger, the end (where errors land). */
const HEAD_CHARS = 8_000;
const TAIL_CHARS = 22_000;

const schema = lazySchema(() =>
  z.object({
    command: z.string().min(1).describe('Shell command, run with bash -c in the project root'),
    timeout: z
      .number()
      .positive()
      .max(MAX_TIMEOUT_SECONDS)
      .optional()
      .describe(
        `Seconds before the command is killed (default ${DEFAULT_TIMEOUT_SECONDS}, max ${MAX_TIMEOUT_SECONDS})`,
      ),
    background: z
      .boolean()
      .optional()
      .describe('Run as a background job and return its job_id at once; read it with bash_output'),
  }),
);

export type BashInput = z.output<typeof schema>;

type Ending =
  | { kind: 'exit'; code: number | null; signal: NodeJS.Signals | null }
  | { kind: 'timeout' | 'abort' };

function render(output: string, ending: Ending, timeoutSeconds: number, hint?: string): ToolResult {
  const text = output === '' ? '(no output)' : output.replace(/\n$/, '');
  const body = hint ? `${text}\n${hint}` : text;
  switch (ending.kind) {
    case 'timeout':
      return fail(
        `${body}\n[timed out after ${timeoutSeconds}s; the command and its child processes were killed]`,
      );
    case 'abort':
      return fail(`${body}\n[aborted; the command and its child processes were killed]`);
    default:
      if (ending.code === null) return fail(`${body}\n[terminated by ${ending.signal ?? 'a signal'}]`);
      return ok(`${body}\n[exit code ${ending.code}]`);
  }
}

export const bashTool: Tool<BashInput> = {
  name: 'bash',
  description:
    'Run a bash command in the project root; returns combined stdout+stderr and the exit code. Set background for long-running processes.',
  schema,
  inputJsonSchema: BUILT_INPUT_SCHEMAS.bash,
  safety: 'write',
  subject: (input) => ({ kind: 'bash', command: input.command }),
  async execute(input, ctx) {
    if (input.background) {
      const job = ctx.jobs.start(input.command, ctx.root, ctx.grants);
      return ok(
        `Started background job ${job.id}. Read its output with bash_output, stop it with kill_shell.`,
      );
    }
    if (ctx.signal.aborted) return fail('aborted before the command started');
    const timeoutSeconds = input.timeout ?? DEFAULT_TIMEOUT_SECONDS;
    const child = startShell(input.command, ctx.root, ctx.sandbox, ctx.grants);
    const output = new HeadTailBuffer(HEAD_CHARS, TAIL_CHARS);
    let spawnError: Error | undefined;
    let ending: Ending | undefined;
    const append = (chunk: string) => output.append(chunk);
    child.stdout?.on('data', append);
    child.stderr?.on('data', append);
    child.once('error', (error) => {
      spawnError = error;
    });
    child.once('exit', (code, signal) => {
      ending ??= { kind: 'exit', code, signal };
    });
    const stop = (kind: 'timeout' | 'abort') => {
      ending ??= { kind };
      killProcessGroup(child);
    };
    const timer = setTimeout(() => stop('timeout'), timeoutSeconds * 1000);
    const onAbort = () => stop('abort');
    ctx.signal.addEventListener('abort', onAbort, { once: true });
    try {
      await whenFinished(child);
    } finally {
      clearTimeout(timer);
      ctx.signal.removeEventListener('abort', onAbort);
      // The call is over: whatever it left running in the background (`&`, `nohup`) ends with it.
      killProcessGroup(child);
    }
    if (spawnError) return fail(`could not start the shell: ${spawnError.message}`);
    const text = output.text();
    const final = ending ?? { kind: 'exit', code: child.exitCode, signal: child.signalCode };
    const failed = final.kind !== 'exit' || final.code !== 0;
    return render(
      text,
      final,
      timeoutSeconds,
      failed ? readOnlyHint(ctx.sandbox, text, ctx.root) : undefined,
    );
  },
};
