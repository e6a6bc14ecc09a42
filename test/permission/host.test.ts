import { describe, expect, it } from 'vitest';
import { canonicalHost } from '../../src/permission/host.js';
import { urlPatternMatches } from '../../src/permission/match.js';

/** Issue 15 point 5: every spelling of a host is one host before rules match. */
describe('canonical webfetch hosts', () => {
  it.each([
    ['http://127.0.0.1/', '127.0.0.1'],
    ['http://2130706433/', '127.0.0.1'],
    ['http://0x7f000001/', '127.0.0.1'],
    ['http://0x7f.1/', '127.0.0.1'],
    ['http://0177.0.0.1/', '127.0.0.1'],
    ['http://127.1/', '127.0.0.1'],
    ['http://[::ffff:127.0.0.1]/', '127.0.0.1'],
    ['http://[0:0:0:0:0:ffff:7f00:1]/', '127.0.0.1'],
    ['http://[::ffff:7f00:1]/', '127.0.0.1'],
    ['http://[64:ff9b::7f00:1]/', '127.0.0.1'],
    ['http://[::1]/', '::1'],
    ['http://EVIL.com/', 'evil.com'],
    ['http://evil.com./', 'evil.com'],
    ['http://evil.com../', 'evil.com'],
    ['http://user:pw@evil.com/', 'evil.com'],
    ['http://good.com@evil.com/', 'evil.com'],
    ['http://ev%69l.com/', 'evil.com'],
    ['http://ｅｖｉｌ.com/', 'evil.com'],
    ['http://EvIl.CoM:8080/x', 'evil.com'],
    ['evil.com.', 'evil.com'],
  ])('%s is %s', (url, host) => {
    expect(canonicalHost(url)).toBe(host);
  });

  it.each([
    ['domain:127.0.0.1', 'http://2130706433/admin'],
    ['domain:127.0.0.1', 'http://[::ffff:127.0.0.1]:8080/'],
    ['domain:localhost', 'http://LOCALHOST./'],
    ['domain:evil.com', 'https://a.b.EVIL.com./x'],
    ['domain:evil.com.', 'https://evil.com/'],
    ['domain:EVIL.com', 'https://user@evil.com/'],
    ['domain:*.evil.com', 'https://a.evil.com/'],
    ['domain:169.254.169.254', 'http://0xa9fea9fe/latest/meta-data'],
  ])('%s matches %s', (pattern, url) => {
    expect(urlPatternMatches(pattern, url)).toBe(true);
  });

  it.each([
    ['domain:evil.com', 'https://notevil.com/'],
    ['domain:evil.com', 'https://evil.com.example.org/'],
    ['domain:*.evil.com', 'https://evil.com/'],
    ['domain:127.0.0.1', 'http://127.0.0.2/'],
  ])('%s does not match %s', (pattern, url) => {
    expect(urlPatternMatches(pattern, url)).toBe(false);
  });
});
