import { randomBytes, timingSafeEqual } from 'node:crypto';

function sameSecret(given: string, expected: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

/**
 * Who may talk to this server: whoever opened the printed URL. Its token works once and is exchanged for
 * a cookie (HttpOnly, SameSite=Strict) holding a second secret; every later request must carry that cookie.
 * The cookie's name carries the port because browsers share cookies between ports of one host.
 */
export class WebAuth {
  readonly cookieName: string;
  private token: string | null = randomBytes(24).toString('base64url');
  private readonly secret = randomBytes(32).toString('base64url');

  constructor(port: number) {
    this.cookieName = `cadre_web_${port}`;
  }

  /** The one-time token for the printed URL; null once it has been redeemed. */
  get pendingToken(): string | null {
    return this.token;
  }

  /** True once, for the right token; the token is spent whether or not a later request repeats it. */
  redeem(given: string): boolean {
    if (this.token === null || !sameSecret(given, this.token)) return false;
    this.token = null;
    return true;
  }

  /** The Set-Cookie value that a redeemed token grants. */
  sessionCookie(): string {
    return `${this.cookieName}=${this.secret}; HttpOnly; SameSite=Strict; Path=/`;
  }

  /** True when the Cookie header carries this server's secret. */
  admits(cookieHeader: string | undefined): boolean {
    if (!cookieHeader) return false;
    for (const pair of cookieHeader.split(';')) {
      const at = pair.indexOf('=');
      if (at === -1 || pair.slice(0, at).trim() !== this.cookieName) continue;
      if (sameSecret(pair.slice(at + 1).trim(), this.secret)) return true;
    }
    return false;
  }
}
