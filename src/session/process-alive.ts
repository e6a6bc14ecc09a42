/** Whether a process with this id exists (signal 0 only checks; EPERM means it exists as another user). */
export function processIsAlive(pid: number): boolean {
  // 0 and negative ids address process groups, never one process.
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
