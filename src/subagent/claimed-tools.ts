import { isAbsolute, relative } from 'node:path';
import type { AnyTool } from '../tool/tool.js';
import type { Claim, Lease, WaitCause } from './scheduler.js';

/** Tools that write exactly the paths their input names (SPEC 10 "path-bound writes"). */
const PATH_BOUND_WRITERS: ReadonlySet<string> = new Set(['write', 'edit', 'edit_lines', 'apply_patch']);

/**
 * A writer's tools under its claim (SPEC 10): a path-bound write first realizes its files (failing at once
 * when another writer holds one) and afterwards lets a whole-workspace reservation shrink to the files
 * written; a `bash` call or an MCP write widens the claim back to the whole workspace.
 */
export function claimAware(
  tools: readonly AnyTool[],
  lease: Lease,
  root: string,
  /** An isolated worktree writer's shell writes only its own checkout: it never widens (SPEC 10). */
  isolated = false,
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
            const realized = lease.realize(inside);
            if (!realized.ok)
              return {
                output: `cannot write ${inside} now: ${realized.cause}. Another task is writing it; leave this file to it or try again later.`,
                isError: true,
              };
          }
          const result = await tool.execute(input, ctx);
          lease.shrink();
          return result;
        },
      };
    }
    if (!isolated && (tool.name === 'bash' || (tool.name.startsWith('mcp__') && tool.safety !== 'read'))) {
      return {
        ...tool,
        async execute(input, ctx) {
          lease.widen();
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
