import {
  close,
  closeSync,
  constants,
  fstatSync,
  ftruncateSync,
  openSync,
  readFileSync,
  readlinkSync,
  writeSync,
} from 'node:fs';
import { type FileHandle, open, readlink } from 'node:fs/promises';

/**
 * Up to this size a regular file is read, and rewritten, on cadre's thread (issue 17): through the thread
 * pool a read took five round trips and a write five more, while these few system calls on a cached file
 * this small take microseconds. Larger files, and anything that is not a regular file (a FIFO, whose
 * open or read may wait), go through the thread pool as before. Closing a rewritten file always does: it
 * can wait on the disk (ext4 starts its writeback then), which would stall every agent and the UI.
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
  const bytes = typeof content === 'string' ? Buffer.from(content, 'utf8') : content;
  if (bytes.byteLength <= ON_THREAD_BYTES && (await writeSmallChecked(absolute, bytes))) return;
  const handle = await open(absolute, constants.O_WRONLY | constants.O_CREAT | constants.O_NOFOLLOW, 0o666);
  try {
    const opened = await readlink(`/proc/self/fd/${handle.fd}`).catch(() => absolute);
    if (opened !== absolute) throw changed(absolute, opened, 'written');
    await handle.truncate(0);
    await handle.writeFile(bytes);
  } finally {
    await handle.close();
  }
}

/** The descriptor closed through the thread pool, where a close that starts the disk's writeback waits. */
function closeOffThread(fd: number): Promise<void> {
  return new Promise((resolve, reject) => close(fd, (error) => (error ? reject(error) : resolve())));
}

/**
 * writeChecked's checks and write on cadre's thread, for a regular file of at most ON_THREAD_BYTES before
 * and after (see ON_THREAD_BYTES); only the close goes through the pool. False when it wrote nothing
 * (the open failed, or it opened something else: a FIFO, a large file), for the thread-pool path to do
 * the write, or report what is wrong, as before. The open is non-blocking so a FIFO never waits here.
 */
async function writeSmallChecked(absolute: string, bytes: Uint8Array): Promise<boolean> {
  let fd: number;
  try {
    fd = openSync(
      absolute,
      constants.O_WRONLY | constants.O_CREAT | constants.O_NOFOLLOW | constants.O_NONBLOCK,
      0o666,
    );
  } catch {
    return false;
  }
  const opened = openedPath(fd, absolute);
  let small = false;
  try {
    const stats = fstatSync(fd);
    small = stats.isFile() && stats.size <= ON_THREAD_BYTES;
  } catch {}
  if (opened !== absolute || !small) {
    closeSync(fd);
    if (opened !== absolute) throw changed(absolute, opened, 'written');
    return false;
  }
  try {
    ftruncateSync(fd, 0);
    for (let at = 0; at < bytes.byteLength; ) at += writeSync(fd, bytes, at, bytes.byteLength - at);
  } catch (error) {
    await closeOffThread(fd);
    throw error;
  }
  await closeOffThread(fd);
  return true;
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
