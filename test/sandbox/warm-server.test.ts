import { describe, expect, it } from 'vitest';
import { serverEnv, TokenSplitter } from '../../src/sandbox/warm-server.js';

const TOKEN = '\x1eEND-1234\x1e';

/** Feeds `chunks` to a splitter watching for TOKEN: what the call got, and what followed the token. */
function split(chunks: string[]): { delivered: string; after?: string } {
  let delivered = '';
  const splitter = new TokenSplitter((chunk) => {
    delivered += chunk.toString('latin1');
  });
  splitter.expect(Buffer.from(TOKEN));
  for (const chunk of chunks) {
    const after = splitter.feed(Buffer.from(chunk, 'latin1'));
    if (after !== undefined) return { delivered, after: after.toString('latin1') };
  }
  splitter.flush();
  return { delivered };
}

describe('TokenSplitter: a call’s bytes end exactly at its token', () => {
  it.each([
    { name: 'token alone', chunks: [`${TOKEN}0\n`], delivered: '', after: '0\n' },
    {
      name: 'output then token in one chunk',
      chunks: [`hello\n${TOKEN}0\n`],
      delivered: 'hello\n',
      after: '0\n',
    },
    {
      name: 'partial line before the token',
      chunks: ['no newline', `${TOKEN}3\n`],
      delivered: 'no newline',
      after: '3\n',
    },
    {
      name: 'token split over three chunks',
      chunks: ['out\x1eEN', 'D-12', `34\x1e1\n`],
      delivered: 'out',
      after: '1\n',
    },
    {
      name: 'a prefix of the token that is not it',
      chunks: ['a\x1eEND-12', 'xx', `${TOKEN}`],
      delivered: 'a\x1eEND-12xx',
      after: '',
    },
    {
      name: 'a forged token with other digits',
      chunks: ['\x1eEND-9999\x1e', `${TOKEN}0\n`],
      delivered: '\x1eEND-9999\x1e',
      after: '0\n',
    },
    {
      name: 'a run of separators before the token',
      chunks: ['\x1e\x1e', `\x1e${TOKEN.slice(1)}`],
      delivered: '\x1e\x1e',
      after: '',
    },
  ])('$name', ({ chunks, delivered, after }) => {
    expect(split(chunks)).toEqual({ delivered, after });
  });

  it('holds back only what could start the token, and gives it to the call when the stream is cut', () => {
    expect(split(['live output\x1eEND'])).toEqual({ delivered: 'live output\x1eEND' });
    let delivered = '';
    const splitter = new TokenSplitter((chunk) => {
      delivered += chunk.toString('latin1');
    });
    splitter.expect(Buffer.from(TOKEN));
    splitter.feed(Buffer.from('streamed\x1eE'));
    expect(delivered).toBe('streamed');
  });
});

describe('serverEnv', () => {
  it.each([
    {
      env: { PATH: '/bin', PWD: '/here', OLDPWD: '/there', SHLVL: '1' },
      out: { PATH: '/bin', CADRE_WARM_PWD: '/here', CADRE_WARM_OLDPWD: '/there', CADRE_WARM_SHLVL: '1' },
    },
    { env: { PATH: '/bin' }, out: { PATH: '/bin' } },
    { env: { PWD: '' }, out: { CADRE_WARM_PWD: '' } },
  ])('carries the shell-owned variables of $env under other names', ({ env, out }) => {
    expect(serverEnv(env)).toEqual(out);
  });
});
