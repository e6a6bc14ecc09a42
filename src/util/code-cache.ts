import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import {
  closeSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
  writevSync,
} from 'node:fs';
import { join, resolve } from 'node:path';
import { cadreCacheDir, cadreConfigDir } from './config-dir.js';

/**
 * V8 code caches of cadre's mode bundles (issue 17), one file per mode and bundle:
 * `<user cache dir>/cadre/code-cache/<mode>-<bundle>-<node version>-<arch>.bin`.
 *
 * A code cache is code V8 runs without checking it, and the user cache directory is writable from inside
 * the sandbox (package managers need it). So each file is signed with an HMAC whose key lives in cadre's
 * config directory, which sandboxed commands cannot see: a command can break a cache (it is then ignored
 * and rewritten) but cannot forge one. Every failure to read or write is silent: the run compiles as if
 * there were no cache.
 */
export interface CodeCacheLocation {
  file: string;
  /** The HMAC key's file. */
  keyFile: string;
  /** What the cache must have been made for: cadre version, bundle digest, Node version and arch. */
  key: string;
}

const MAC_BYTES = 32;
const KEY_BYTES = 32;
const STALE_MS = 24 * 60 * 60 * 1000;

export function codeCacheLocation(
  env: NodeJS.ProcessEnv,
  mode: string,
  bundle: string,
  version: string,
): CodeCacheLocation {
  return {
    file: join(cadreCacheDir(env), 'code-cache', `${mode}-${bundle}-${process.version}-${process.arch}.bin`),
    keyFile: join(cadreConfigDir(env), 'code-cache.key'),
    key: [version, bundle, process.version, process.arch].join(' '),
  };
}

function mac(secret: Buffer, parts: Buffer[]): Buffer {
  const hmac = createHmac('sha256', secret);
  for (const part of parts) hmac.update(part);
  return hmac.digest();
}

/** Layout: MAC, then a 4-byte header length, the JSON header (key, [name, length] pairs), the caches. */
export function readCodeCache(location: CodeCacheLocation): Map<string, Buffer> {
  const entries = new Map<string, Buffer>();
  try {
    const file = readFileSync(location.file);
    const secret = readFileSync(location.keyFile);
    const body = file.subarray(MAC_BYTES);
    if (secret.length !== KEY_BYTES || !timingSafeEqual(file.subarray(0, MAC_BYTES), mac(secret, [body])))
      return entries;
    const headerLength = body.readUInt32LE(0);
    const header = JSON.parse(body.subarray(4, 4 + headerLength).toString('utf8')) as {
      key: string;
      files: [string, number][];
    };
    if (header.key !== location.key) return entries;
    let offset = 4 + headerLength;
    for (const [name, length] of header.files) {
      entries.set(name, body.subarray(offset, offset + length));
      offset += length;
    }
  } catch {
    // Missing, short or unreadable: compiled from source, written again at exit.
  }
  return entries;
}

/**
 * The key, made on first use. Never the config directory itself: a command that does not otherwise create
 * it (`cadre --version` on a new machine) leaves none behind, and the cache waits for a run that does.
 */
function secretFor(keyFile: string): Buffer {
  try {
    return readFileSync(keyFile);
  } catch {
    try {
      writeFileSync(keyFile, randomBytes(KEY_BYTES), { flag: 'wx', mode: 0o600 });
    } catch (error) {
      // Another cadre made it meanwhile: use theirs.
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    return readFileSync(keyFile);
  }
}

/**
 * Writes the caches whole (temp file, then rename: processes starting together each write a complete file
 * and the last one stays) and removes this mode's caches of other bundles a day old. Silent on failure.
 */
export function writeCodeCache(location: CodeCacheLocation, entries: Map<string, Buffer>): void {
  let temporary: string | undefined;
  try {
    const secret = secretFor(location.keyFile);
    if (secret.length !== KEY_BYTES) return;
    const header = Buffer.from(
      JSON.stringify({ key: location.key, files: [...entries].map(([name, data]) => [name, data.length]) }),
    );
    const length = Buffer.alloc(4);
    length.writeUInt32LE(header.length);
    const body = [length, header, ...entries.values()];
    const dir = resolve(location.file, '..');
    mkdirSync(dir, { recursive: true });
    temporary = `${location.file}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
    // Written piece by piece: the caches are a megabyte or more, and this runs as the process exits.
    const fd = openSync(temporary, 'w');
    try {
      const parts = [mac(secret, body), ...body];
      const total = parts.reduce((sum, part) => sum + part.length, 0);
      if (writevSync(fd, parts) !== total) throw new Error('short write');
    } finally {
      closeSync(fd);
    }
    renameSync(temporary, location.file);
    temporary = undefined;
    removeStale(dir, location.file);
  } catch {
    // A read-only or full cache directory: the next start compiles from source again.
    if (temporary) rmSync(temporary, { force: true });
  }
}

function removeStale(dir: string, current: string): void {
  const name = current.slice(dir.length + 1);
  const mode = name.slice(0, name.indexOf('-') + 1);
  for (const other of readdirSync(dir)) {
    const path = join(dir, other);
    if (other !== name && other.startsWith(mode) && Date.now() - statSync(path).mtimeMs > STALE_MS)
      rmSync(path, { force: true });
  }
}
