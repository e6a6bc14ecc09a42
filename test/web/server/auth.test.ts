import { describe, expect, it } from 'vitest';
import { WebAuth } from '../../../src/web/server/auth.js';

const secretOf = (cookie: string) => cookie.split(';')[0].split('=')[1];

describe('WebAuth', () => {
  it('redeems its token once, never a wrong one', () => {
    const auth = new WebAuth(4400);
    const token = auth.pendingToken ?? '';
    expect(token.length).toBeGreaterThanOrEqual(32);
    expect(auth.redeem('wrong')).toBe(false);
    expect(auth.redeem(`${token}x`)).toBe(false);
    expect(auth.pendingToken).toBe(token);
    expect(auth.redeem(token)).toBe(true);
    expect(auth.pendingToken).toBeNull();
    expect(auth.redeem(token)).toBe(false);
  });

  it('grants a cookie named for its port, HttpOnly and SameSite=Strict', () => {
    const cookie = new WebAuth(4400).sessionCookie();
    expect(cookie).toMatch(/^cadre_web_4400=[\w-]{40,}; HttpOnly; SameSite=Strict; Path=\/$/);
  });

  it.each<[string, (name: string, secret: string) => string | undefined, boolean]>([
    ['its own cookie', (name, secret) => `${name}=${secret}`, true],
    ['among other cookies', (name, secret) => `a=1; ${name}=${secret}; b=2`, true],
    ['no Cookie header', () => undefined, false],
    ['another port’s cookie name', (_name, secret) => `cadre_web_1=${secret}`, false],
    ['a wrong secret', (name) => `${name}=nope`, false],
    ['a secret with a suffix', (name, secret) => `${name}=${secret}0`, false],
  ])('admits %s: %s', (_case, header, admitted) => {
    const auth = new WebAuth(4400);
    const secret = secretOf(auth.sessionCookie());
    expect(auth.admits(header(auth.cookieName, secret))).toBe(admitted);
  });

  it('two servers never share secrets', () => {
    expect(secretOf(new WebAuth(1).sessionCookie())).not.toBe(secretOf(new WebAuth(1).sessionCookie()));
  });
});
