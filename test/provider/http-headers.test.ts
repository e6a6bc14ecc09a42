import { describe, expect, it } from 'vitest';
import { HttpHeaders } from '../../src/provider/http-headers.js';

describe('HttpHeaders', () => {
  it.each<[string, ConstructorParameters<typeof HttpHeaders>[0], [string, string][]]>([
    [
      'a record, names lowered and sorted',
      { 'X-B': '2', 'content-type': 'a/b' },
      [
        ['content-type', 'a/b'],
        ['x-b', '2'],
      ],
    ],
    [
      'pairs, repeated names joined',
      [
        ['A', '1'],
        ['a', '2'],
      ],
      [['a', '1, 2']],
    ],
    [
      'a real Headers',
      new Headers({ Z: 'z', y: ' y ' }),
      [
        ['y', 'y'],
        ['z', 'z'],
      ],
    ],
    ['nothing', undefined, []],
  ])('is built from %s', (_name, init, entries) => {
    const headers = new HttpHeaders(init);
    expect([...headers]).toEqual(entries);
    expect([...headers.entries()]).toEqual(entries);
    expect(Object.fromEntries(headers)).toEqual(Object.fromEntries(entries));
    // The same as the class it stands in for.
    expect([...new Headers(init as HeadersInit)]).toEqual(entries);
  });

  it.each<[string, ConstructorParameters<typeof HttpHeaders>[0], [string, string][]]>([
    ['list values, joined', { accept: ['a', 'b'] }, [['accept', 'a, b']]],
    ['undefined values, left out', { a: '1', b: undefined }, [['a', '1']]],
  ])('takes what node:http headers may hold: %s', (_name, init, entries) => {
    expect([...new HttpHeaders(init)]).toEqual(entries);
  });

  it('reads and writes names case-insensitively', () => {
    const headers = new HttpHeaders({ 'User-Agent': 'a' });
    expect(headers.get('user-agent')).toBe('a');
    expect(headers.has('USER-AGENT')).toBe(true);
    headers.set('user-agent', 'b');
    headers.append('X-Extra', '1');
    headers.delete('x-missing');
    expect(headers.get('User-Agent')).toBe('b');
    expect(headers.get('absent')).toBeNull();
    headers.delete('X-EXTRA');
    expect([...headers.keys()]).toEqual(['user-agent']);
    expect([...headers.values()]).toEqual(['b']);
    const seen: string[] = [];
    headers.forEach((value, name) => {
      seen.push(`${name}=${value}`);
    });
    expect(seen).toEqual(['user-agent=b']);
  });

  it('counts a real Headers as an instance, and not plain objects', () => {
    expect(new Headers() instanceof HttpHeaders).toBe(true);
    expect(new HttpHeaders() instanceof HttpHeaders).toBe(true);
    expect({ get: () => null } instanceof HttpHeaders).toBe(false);
    expect(Object.prototype.toString.call(new HttpHeaders())).toBe('[object Headers]');
  });
});
