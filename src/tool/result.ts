import type { ToolResult } from './tool.js';

export function ok(output: string): ToolResult {
  return { output };
}

export function fail(output: string): ToolResult {
  return { output, isError: true };
}

/** A filesystem error as one sentence for the model, naming the path it concerns. */
export function describeFsError(error: unknown, shownPath: string): string {
  const code = typeof error === 'object' && error !== null && 'code' in error ? String(error.code) : '';
  switch (code) {
    case 'ENOENT':
      return `${shownPath}: no such file or directory`;
    case 'EISDIR':
      return `${shownPath}: is a directory`;
    case 'ENOTDIR':
      return `${shownPath}: not a directory`;
    case 'EACCES':
    case 'EPERM':
      return `${shownPath}: permission denied`;
    default:
      return `${shownPath}: ${error instanceof Error ? error.message : String(error)}`;
  }
}
