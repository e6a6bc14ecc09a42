import { isIP } from 'node:net';
import { z } from 'zod';
import { lazySchema } from '../util/lazy-schema.js';
import { BUILT_INPUT_SCHEMAS } from './built-input-schemas.js';
import { fail, ok } from './result.js';
import { looksBinary, truncateMiddle } from './text.js';
import type { Tool } from './tool.js';

export interface WebfetchLimits {
  timeoutMs: number;
  /** Bytes of body read at most; the rest is dropped with a note. */
  maxBytes: number;
  /** Characters of converted text returned at most. */
  maxChars: number;
}

const DEFAULT_LIMITS: WebfetchLimits = { timeoutMs: 30_000, maxBytes: 5 * 1024 * 1024, maxChars: 100_000 };
const MAX_REDIRECTS = 5;
const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);

const schema = lazySchema(() =>
  z.object({
    url: z
      .url({ protocol: /^https?$/, error: 'must be an http:// or https:// URL' })
      .describe('http(s) URL to fetch'),
  }),
);

export type WebfetchInput = z.output<typeof schema>;

type Fetched =
  | { kind: 'response'; response: Response; url: URL }
  | { kind: 'offsite-redirect'; from: URL; to: string }
  | { kind: 'refused'; reason: string };

type AddressCheck = (address: string) => string | undefined;

/**
 * The addresses the host resolves to, each checked against the deny rules (issue 15 point 5): a rule
 * denying `169.254.169.254` holds whatever name the model used to reach it. The check runs before every
 * hop; a resolver answering differently between this lookup and the connection is not caught here (the
 * sandbox's network policy is the wall for that).
 */
async function refusedAddress(url: URL, check: AddressCheck): Promise<string | undefined> {
  const host = url.hostname.replace(/^\[|\]$/g, '');
  // The resolver loads with the first name looked up, not with cadre (issue 17: every start pays for it).
  const lookup = async () => (await import('node:dns/promises')).lookup(host, { all: true });
  const addresses = isIP(host) ? [host] : (await lookup()).map((a) => a.address);
  for (const address of addresses) {
    const reason = check(address);
    if (reason) return `${url.hostname} resolves to ${reason}`;
  }
  return undefined;
}

/**
 * Follows redirects only within the same host: the permission engine approved this host, so a hop to
 * another one goes back to the model as a new URL to fetch (and to be checked).
 */
async function fetchSameHost(start: URL, signal: AbortSignal, check?: AddressCheck): Promise<Fetched> {
  let url = start;
  for (let hop = 0; ; hop++) {
    if (check) {
      const refused = await refusedAddress(url, check);
      if (refused) return { kind: 'refused', reason: refused };
    }
    const response = await fetch(url, {
      redirect: 'manual',
      signal,
      headers: { 'user-agent': 'cadre', accept: 'text/html, text/markdown, text/plain, */*;q=0.8' },
    });
    const location = response.headers.get('location');
    if (!REDIRECT_STATUSES.has(response.status) || !location || hop === MAX_REDIRECTS) {
      return { kind: 'response', response, url };
    }
    await response.body?.cancel();
    const next = new URL(location, url);
    if (next.host !== url.host || next.protocol !== url.protocol) {
      return { kind: 'offsite-redirect', from: url, to: next.href };
    }
    url = next;
  }
}

async function readLimited(
  response: Response,
  maxBytes: number,
): Promise<{ bytes: Uint8Array; cut: boolean }> {
  if (!response.body) return { bytes: new Uint8Array(), cut: false };
  const chunks: Uint8Array[] = [];
  let length = 0;
  const reader = response.body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return { bytes: Buffer.concat(chunks, length), cut: false };
    chunks.push(value);
    length += value.length;
    if (length >= maxBytes) {
      await reader.cancel();
      return { bytes: Buffer.concat(chunks, length).subarray(0, maxBytes), cut: true };
    }
  }
}

function isTextual(contentType: string): boolean {
  return (
    contentType === '' ||
    contentType.startsWith('text/') ||
    /\b(json|xml|javascript|ecmascript|yaml|toml|x-sh)\b/.test(contentType)
  );
}

async function htmlToMarkdown(html: string): Promise<string> {
  // Loaded on first use: turndown and its DOM are not needed at startup (SPEC 18).
  const { default: TurndownService } = await import('turndown');
  const converter = new TurndownService({
    headingStyle: 'atx',
    codeBlockStyle: 'fenced',
    bulletListMarker: '-',
  });
  converter.remove(['script', 'style', 'noscript', 'template', 'iframe']);
  return converter.turndown(html);
}

function failureMessage(
  error: unknown,
  url: string,
  timedOut: boolean,
  aborted: boolean,
  limits: WebfetchLimits,
) {
  if (aborted) return `fetch of ${url} aborted`;
  if (timedOut) return `fetch of ${url} timed out after ${limits.timeoutMs / 1000}s`;
  const cause = error instanceof Error && error.cause instanceof Error ? `: ${error.cause.message}` : '';
  return `fetch of ${url} failed: ${error instanceof Error ? error.message : String(error)}${cause}`;
}

export function createWebfetchTool(overrides: Partial<WebfetchLimits> = {}): Tool<WebfetchInput> {
  const limits = { ...DEFAULT_LIMITS, ...overrides };
  return {
    name: 'webfetch',
    description: 'Fetch an http(s) URL with GET and return its text; HTML is converted to markdown.',
    schema,
    inputJsonSchema: BUILT_INPUT_SCHEMAS.webfetch,
    safety: 'read',
    subject: (input) => ({ kind: 'url', url: input.url }),
    async execute(input, ctx) {
      const timeout = AbortSignal.timeout(limits.timeoutMs);
      const signal = AbortSignal.any([ctx.signal, timeout]);
      try {
        const fetched = await fetchSameHost(new URL(input.url), signal, ctx.checkAddress);
        if (fetched.kind === 'refused') return fail(`fetch of ${input.url} refused: ${fetched.reason}`);
        if (fetched.kind === 'offsite-redirect') {
          return ok(
            `${fetched.from.href} redirects to another host: ${fetched.to}\nFetch that URL to follow it.`,
          );
        }
        const { response, url } = fetched;
        const contentType = (response.headers.get('content-type') ?? '').toLowerCase();
        const { bytes, cut } = await readLimited(response, limits.maxBytes);
        if (!isTextual(contentType) || looksBinary(bytes)) {
          return fail(`${url.href} returned binary content (${contentType || 'unknown type'}); not shown`);
        }
        const raw = Buffer.from(bytes).toString('utf8');
        const text = contentType.includes('html') ? await htmlToMarkdown(raw) : raw;
        const header = `URL: ${url.href}\nStatus: ${response.status}\nContent-Type: ${contentType || 'unknown'}`;
        const note = cut ? `\n[body cut at ${limits.maxBytes} bytes]` : '';
        const output = `${header}\n\n${truncateMiddle(text, limits.maxChars)}${note}`;
        return response.ok ? ok(output) : fail(`HTTP ${response.status} ${response.statusText}\n${output}`);
      } catch (error) {
        return fail(failureMessage(error, input.url, timeout.aborted, ctx.signal.aborted, limits));
      }
    },
  };
}
