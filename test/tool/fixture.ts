import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createToolContext } from '../../src/tool/context.js';
import type { AnyTool, ToolContext, ToolResult } from '../../src/tool/tool.js';

export interface Project {
  /** The project root (realpath). */
  root: string;
  /** A sibling directory outside the project. */
  outside: string;
  ctx: ToolContext;
  write(relative: string, content: string | Uint8Array): string;
  cleanup(): void;
}

/** A temp dir holding `project/` (the root) and `outside/`, with the given files in the project. */
export function makeProject(files: Record<string, string | Uint8Array> = {}): Project {
  const base = realpathSync(mkdtempSync(path.join(tmpdir(), 'cadre-tool-')));
  const root = path.join(base, 'project');
  const outside = path.join(base, 'outside');
  mkdirSync(root);
  mkdirSync(outside);
  const write = (relative: string, content: string | Uint8Array) => {
    const absolute = path.resolve(root, relative);
    mkdirSync(path.dirname(absolute), { recursive: true });
    writeFileSync(absolute, content);
    return absolute;
  };
  for (const [relative, content] of Object.entries(files)) write(relative, content);
  const ctx = createToolContext({ root });
  return {
    root,
    outside,
    ctx,
    write,
    cleanup() {
      ctx.jobs.killAll();
      rmSync(base, { recursive: true, force: true });
    },
  };
}

/** Runs a tool the way the runtime does: schema validation first, then execute. */
export async function run(tool: AnyTool, input: unknown, ctx: ToolContext): Promise<ToolResult> {
  const parsed = tool.schema.safeParse(input);
  if (!parsed.success) throw new Error(`schema rejected ${JSON.stringify(input)}: ${parsed.error.message}`);
  return tool.execute(parsed.data, ctx);
}
