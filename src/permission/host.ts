import { isIP } from 'node:net';

/**
 * One spelling per host (issue 15 point 5), so a rule written for `127.0.0.1` or `evil.com` matches every
 * other way of writing it: the WHATWG URL parser lowercases, decodes percent- and full-width spellings,
 * drops userinfo and reads decimal, octal and hex IPv4; here trailing dots go and an IPv6 address that
 * embeds an IPv4 one (`::ffff:7f00:1`, `::7f00:1`, `64:ff9b::7f00:1`) becomes that IPv4 address.
 * `undefined` when the text is no URL or host.
 */
export function canonicalHost(urlOrHost: string): string | undefined {
  let hostname: string;
  try {
    hostname = new URL(/^[a-z][a-z0-9+.-]*:\/\//i.test(urlOrHost) ? urlOrHost : `http://${urlOrHost}/`)
      .hostname;
  } catch {
    return undefined;
  }
  const host = hostname.toLowerCase().replace(/\.+$/, '');
  if (!host.startsWith('[')) return host;
  const address = host.slice(1, -1);
  return embeddedIPv4(address) ?? address;
}

/** The IPv4 address inside an IPv4-mapped, IPv4-compatible or NAT64 IPv6 address (already normalised). */
export function embeddedIPv4(address: string): string | undefined {
  if (isIP(address) === 4) return address;
  if (isIP(address) !== 6) return undefined;
  const match = /^(?:::ffff:|::|64:ff9b::|::ffff:0:)([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(address);
  if (!match) {
    const dotted = /^(?:::ffff:|::|64:ff9b::)(\d+\.\d+\.\d+\.\d+)$/.exec(address);
    return dotted ? dotted[1] : undefined;
  }
  const high = Number.parseInt(match[1], 16);
  const low = Number.parseInt(match[2], 16);
  if (address.startsWith('::') && !address.startsWith('::ffff') && high === 0) return undefined;
  return `${high >> 8}.${high & 255}.${low >> 8}.${low & 255}`;
}
