import { isAbsolute, relative } from 'node:path';
import type { AnyTool, ToolContext } from '../tool/tool.js';
import { type Claim, ClaimDeadlockError, type Lease, type WaitCause } from './scheduler.js';

/** Tools that write exactly the paths their input names (SPEC 10 "path-bound writes"). */
export const PATH_BOUND_WRITERS: ReadonlySet<string> = new Set([
  'write',
  'edit',
  'edit_lines',
  'apply_patch',
]);

/** Writes whose paths are unknown beforehand (`bash`, an MCP write): they claim the whole workspace. */
export function widensClaim(tool: AnyTool): boolean {
  return tool.name === 'bash' || (tool.name.startsWith('mcp__') && tool.safety !== 'read');
}

/**
 * Waits for a claim (a file to realize, or the whole workspace to widen to). A claim deadlock ends the
 * task (`onDeadlock`) and the call answers with the message; any other rejection is the call's abort.
 */
async function claimed(
  take: (signal: AbortSignal) => Promise<void>,
  ctx: ToolContext,
  onDeadlock: (error: ClaimDeadlockError) => void,
): Promise<{ output: string; isError: true } | undefined> {
  try {
    await take(ctx.signal);
    return undefined;
  } catch (error) {
    if (!(error instanceof ClaimDeadlockError)) throw error;
    onDeadlock(error);
    return { output: error.message, isError: true };
  }
}

/**
 * A writer's tools under its claim (SPEC 10): a path-bound write first realizes its files (waiting while
 * another running writer holds one) and afterwards lets a whole-workspace reservation shrink to the files
 * written; a `bash` call or an MCP write first widens the claim back to the whole workspace (waiting the
 * same way). Writers waiting on each other in a cycle are a deadlock: the one closing it fails
 * (`onDeadlock`).
 */
export function claimAware(
  tools: readonly AnyTool[],
  lease: Lease,
  root: string,
  onDeadlock: (error: ClaimDeadlockError) => void,
): AnyTool[] {
  return tools.map((tool) => {
    if (PATH_BOUND_WRITERS.has(tool.name)) {
      return {
        ...tool,
        async execute(input, ctx) {
          const subject = tool.subject(input);
          const paths = subject.kind === 'path' ? subject.paths : [];
          for (const path of paths) {
            const inside = relative(root, isAbsolute(path) ? path : `${root}/${path}`);
            const refused = await claimed((signal) => lease.realize(inside, signal), ctx, onDeadlock);
            if (refused) return refused;
          }
          const result = await tool.execute(input, ctx);
          lease.shrink();
          return result;
        },
      };
    }
    if (widensClaim(tool)) {
      return {
        ...tool,
        async execute(input, ctx) {
          const refused = await claimed((signal) => lease.widen(signal), ctx, onDeadlock);
          if (refused) return refused;
          return tool.execute(input, ctx);
        },
      };
    }
    return tool;
  });
}

/**
 * The parent agent's own path-bound writes (SPEC 10): each takes a momentary reservation of its files in
 * `root` and fails at once when a running writer's claim holds one; nothing is held afterwards.
 */
export function parentReserved(
  tools: readonly AnyTool[],
  reserve: (claim: Claim) => WaitCause | undefined,
  root: string,
): AnyTool[] {
  return tools.map((tool) => {
    if (!PATH_BOUND_WRITERS.has(tool.name)) return tool;
    return {
      ...tool,
      async execute(input, ctx) {
        const subject = tool.subject(input);
        const paths = (subject.kind === 'path' ? subject.paths : []).map((path) =>
          relative(root, isAbsolute(path) ? path : `${root}/${path}`),
        );
        const cause = reserve({ checkout: root, paths });
        if (cause)
          return {
            output: `cannot write ${paths.join(', ')} now: ${cause}. A subagent is writing it; wait for it to finish.`,
            isError: true,
          };
        return tool.execute(input, ctx);
      },
    };
  });
}
