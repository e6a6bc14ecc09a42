import { constants } from 'node:fs';
import { type FileHandle, open, readlink } from 'node:fs/promises';

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
    if (opened !== absolute)
      throw new Error(`${absolute} changed after it was checked (it now leads to ${opened}): not written`);
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
    throw new Error(`${absolute} changed after it was checked (it now leads to ${opened}): not read`);
  }
  return handle;
}

/** The whole file, read through openChecked. */
export async function readChecked(absolute: string): Promise<Buffer> {
  const handle = await openChecked(absolute);
  try {
    return await handle.readFile();
  } finally {
    await handle.close();
  }
}
