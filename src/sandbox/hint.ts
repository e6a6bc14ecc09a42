import { isAbsolute, resolve } from 'node:path';
import { type HostFs, hostFs } from './bwrap.js';
import type { SandboxPolicy } from './policy.js';
import type { ShellSandbox } from './sandbox.js';

const READ_ONLY_FS = /read-only file system/i;
/** '…', "…", ‘…’ and `…' as coreutils, bash, git, node and python print paths. */
const QUOTED = /['"‘`]([^'"’`\n]+)['"’]/g;

/** The path a "Read-only file system" line complains about, as printed. */
function pathOf(line: string): string | undefined {
  const quoted = [...line.matchAll(QUOTED)]
    .map((m) => m[1])
    .filter((p) => p.includes('/') || !p.includes(' '));
  if (quoted.length > 0) return quoted[quoted.length - 1];
  // `bash: line 1: /etc/x: Read-only file system`, `could not lock config file .git/config: Read-only …`
  const before = line.slice(0, line.search(READ_ONLY_FS)).replace(/:\s*$/, '');
  const last = before.split(': ').pop()?.trim().split(' ').pop();
  return last === undefined || last === '' ? undefined : last;
}

function within(path: string, dir: string): boolean {
  return path === dir || path.startsWith(dir.endsWith('/') ? dir : `${dir}/`);
}

/** Whether the policy keeps `path` read-only (not in a writable place, or in a read-only one inside it). */
function keptReadOnly(policy: SandboxPolicy, path: string, fs: HostFs): boolean {
  const real = (p: string) => fs.real(p);
  if (policy.readOnly.some((p) => within(path, p) || within(path, real(p)))) return true;
  if (policy.privateTmp && within(path, '/tmp')) return false;
  return !policy.writable.some((p) => within(path, p) || within(path, real(p)));
}

/**
 * One line for the model when a failed command's output shows a write refused by the sandbox:
 * `sandbox: <path> is not writable (writable: <roots>)`. Undefined when nothing points at the sandbox.
 */
export function readOnlyHint(
  sandbox: ShellSandbox | undefined,
  output: string,
  cwd: string,
  fs: HostFs = hostFs,
): string | undefined {
  if (!sandbox || sandbox.backend === 'none') return undefined;
  const { policy } = sandbox;
  for (const line of output.split('\n')) {
    if (!READ_ONLY_FS.test(line)) continue;
    const printed = pathOf(line);
    if (!printed) continue;
    const path = isAbsolute(printed) ? resolve(printed) : resolve(cwd, printed);
    if (!keptReadOnly(policy, path, fs)) continue;
    const roots = policy.writable.filter((p) => fs.kind(p) !== undefined);
    if (policy.privateTmp) roots.push('/tmp');
    return `sandbox: ${path} is not writable (writable: ${roots.join(', ') || 'nothing'})`;
  }
  return undefined;
}
