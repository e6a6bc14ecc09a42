import { randomBytes } from 'node:crypto';

// Crockford base32, lower-cased: no i, l, o, u, so ids read back unambiguously.
const ALPHABET = '0123456789abcdefghjkmnpqrstvwxyz';
const TIME_CHARS = 10;
const RANDOM_CHARS = 16;

function base32(bytes: Uint8Array, chars: number): string {
  let out = '';
  for (let i = 0; i < chars; i++) out += ALPHABET[bytes[i] % 32];
  return out;
}

/**
 * A ULID-shaped id: 10 characters of millisecond time then 16 random ones, so string order is creation
 * order across processes (within a millisecond the order is arbitrary, uniqueness is not).
 */
export function sortableId(nowMs: number): string {
  let time = '';
  let remaining = Math.max(0, Math.floor(nowMs));
  for (let i = 0; i < TIME_CHARS; i++) {
    time = ALPHABET[remaining % 32] + time;
    remaining = Math.floor(remaining / 32);
  }
  return time + base32(randomBytes(RANDOM_CHARS), RANDOM_CHARS);
}

/**
 * A random id whose leading characters already tell ids apart, so a short prefix identifies one
 * (`cadre tasks show 3f9a`). 12 hex characters: 48 bits.
 */
export function shortRandomId(): string {
  return randomBytes(6).toString('hex');
}
