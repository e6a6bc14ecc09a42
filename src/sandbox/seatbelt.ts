import { tmpdir } from 'node:os';
import { type HostFs, hostFs, type SpawnSpec } from './bwrap.js';
import type { SandboxPolicy, WriteGrant } from './policy.js';

/** SBPL string literal. */
function quote(path: string): string {
  return `"${path.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;
}

/**
 * macOS, best effort and untested in CI: `sandbox-exec` with a profile that denies writes outside the
 * writable places and denies reading the hidden ones (they fail to open rather than read empty). There is
 * no private /tmp and no PID namespace: the command's process group is what ends its children.
 */
export function seatbeltSpawn(
  policy: SandboxPolicy,
  command: string,
  grants: readonly WriteGrant[] = [],
  fs: HostFs = hostFs,
): SpawnSpec {
  const real = (paths: readonly string[]) => [
    ...new Set(paths.filter((p) => fs.kind(p) !== undefined).map((p) => fs.real(p))),
  ];
  const writable = real([
    ...policy.writable,
    ...grants.map((g) => g.path),
    tmpdir(),
    '/private/tmp',
    '/private/var/folders',
  ]);
  const lines = [
    '(version 1)',
    '(allow default)',
    '(deny file-write*)',
    `(allow file-write* (literal "/dev/null") (regex #"^/dev/tty") ${writable.map((p) => `(subpath ${quote(p)})`).join(' ')})`,
  ];
  const readOnly = real(policy.readOnly);
  if (readOnly.length > 0)
    lines.push(`(deny file-write* ${readOnly.map((p) => `(subpath ${quote(p)})`).join(' ')})`);
  const hidden = real(policy.hidden);
  if (hidden.length > 0)
    lines.push(`(deny file-read* file-write* ${hidden.map((p) => `(subpath ${quote(p)})`).join(' ')})`);
  if (!policy.network) lines.push('(deny network*)');
  return { file: 'sandbox-exec', args: ['-p', lines.join('\n'), 'bash', '-c', command] };
}
