import { readFileSync } from 'node:fs';

/** Whether a pid names a live process (a zombie awaiting its reaper counts as dead). */
export function isAlive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
  } catch {
    return false;
  }
}
