import { closeSync, constants, fstatSync, openSync, readFileSync, readlinkSync } from 'node:fs';
import { type FileHandle, open, readlink } from 'node:fs/promises';

/**
 * Up to this size a regular file is read on cadre's thread (issue 17): through the thread pool the read
 * took five round trips, while these few system calls on a cached file this small take microseconds.
 * Larger files, and anything that is not a regular file (a FIFO, whose read may wait), go through the
 * thread pool as before. Writes always do: closing a rewritten file can wait on the disk (ext4 starts its
 * writeback then), which would stall every agent and the UI.
 */
const ON_THREAD_BYTES = 1024 * 1024;

/** What the descriptor really is, from `/proc/self/fd/N`; `absolute` itself where `/proc` is missing. */
function openedPath(fd: number, absolute: string): string {
  try {
    return readlinkSync(`/proc/self/fd/${fd}`);
  } catch {
    return absolute;
  }
}

function changed(absolute: string, opened: string, verb: 'read' | 'written'): Error {
  return new Error(`${absolute} changed after it was checked (it now leads to ${opened}): not ${verb}`);
}

/**
 * A regular file of at most `maxBytes`, read whole on cadre's thread with openChecked's checks (see
 * ON_THREAD_BYTES). Undefined for anything else (larger, not a regular file, changed, an error): the
 * thread-pool path then reads it, or reports what is wrong, as before.
 */
export function readSmallChecked(
  absolute: string,
  maxBytes = ON_THREAD_BYTES,
): { bytes: Buffer; size: number } | undefined {
  let fd: number;
  try {
    fd = openSync(absolute, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch {
    return undefined;
  }
  try {
    if (openedPath(fd, absolute) !== absolute) return undefined;
    const stats = fstatSync(fd);
    if (!stats.isFile() || stats.size > maxBytes) return undefined;
    return { bytes: readFileSync(fd), size: stats.size };
  } catch {
    return undefined;
  } finally {
    closeSync(fd);
  }
}

/**
 * Writes `content` to the file at `absolute` — the real path the permission check was made for — and to
 * no other file (issue 15 point 4). The file is opened without following a final symlink and without
 * truncating; what was actually opened is read back from `/proc/self/fd/N`; only if that is `absolute`
 * is it truncated and written. A symlink swapped in between the check and the write cannot redirect it.
 * Where `/proc` is missing (macOS) the O_NOFOLLOW open is the guard.
 */
export async function writeChecked(absolute: string, content: string | Uint8Array): Promise<void> {
  const handle = await open(absolute, constants.O_WRONLY | constants.O_CREAT | constants.O_NOFOLLOW, 0o666);
  try {
    const opened = await readlink(`/proc/self/fd/${handle.fd}`).catch(() => absolute);
    if (opened !== absolute) throw changed(absolute, opened, 'written');
    await handle.truncate(0);
    await handle.writeFile(content, typeof content === 'string' ? 'utf8' : undefined);
  } finally {
    await handle.close();
  }
}

/**
 * Opens `absolute` for reading only if it is still the file that was checked: without following a final
 * symlink, and with what was opened read back from `/proc/self/fd/N` (issue 15 point 4).
 */
export async function openChecked(absolute: string): Promise<FileHandle> {
  const handle = await open(absolute, constants.O_RDONLY | constants.O_NOFOLLOW);
  const opened = await readlink(`/proc/self/fd/${handle.fd}`).catch(() => absolute);
  if (opened !== absolute) {
    await handle.close();
    throw changed(absolute, opened, 'read');
  }
  return handle;
}

/** The whole file, read through openChecked (a small regular file on cadre's thread, with the same checks). */
export async function readChecked(absolute: string): Promise<Buffer> {
  const small = readSmallChecked(absolute);
  if (small) return small.bytes;
  const handle = await openChecked(absolute);
  try {
    return await handle.readFile();
  } finally {
    await handle.close();
  }
}
