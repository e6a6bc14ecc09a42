/**
 * Process groups of sandboxed commands and warm servers started and not yet ended: each is killed when
 * cadre itself exits, whatever it was doing. One set per process, since `exit` is one event per process.
 */
const liveGroups = new Set<number>();
let exitHookInstalled = false;

/** Ends the group led by `pid` (a command and what it started; bwrap and the sandbox's first process). */
export function killGroup(pid: number): void {
  liveGroups.delete(pid);
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    // The group is already gone.
  }
}

/** Remembers the group led by `pid` until it is killed or `forgetGroup`. */
export function trackGroup(pid: number | undefined): void {
  if (pid === undefined) return;
  liveGroups.add(pid);
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.once('exit', () => {
    for (const group of liveGroups) killGroup(group);
  });
}

/** The leader exited and was reaped: its number may be reused, so it is no longer ours to kill. */
export function forgetGroup(pid: number | undefined): void {
  if (pid !== undefined) liveGroups.delete(pid);
}
