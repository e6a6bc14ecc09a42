import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPermissionGate } from '../../src/permission/gate.js';
import { createToolContext } from '../../src/tool/context.js';
import { createWebfetchTool } from '../../src/tool/webfetch.js';
import { run } from './fixture.js';

/**
 * Issue 15 point 5: the address webfetch actually connects to, after DNS and on every redirect hop, is
 * checked against the deny rules, so a name that resolves to a denied address is refused.
 */
describe('webfetch checks the address it connects to', () => {
  let server: Server;
  let port: number;
  let hits = 0;
  const gate = createPermissionGate({
    root: '/',
    safety: 'full',
    yes: false,
    config: [{ file: 'config.json', block: { allow: ['webfetch'], deny: ['webfetch(domain:127.0.0.1)'] } }],
  });

  beforeAll(async () => {
    server = createServer((_request, response) => {
      hits++;
      response.writeHead(200, { 'content-type': 'text/plain' });
      response.end('secret');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  it.each([['127.0.0.1'], ['::ffff:127.0.0.1'], ['::ffff:7f00:1']])(
    'the gate denies the address %s',
    (address) => {
      expect(gate.deniedAddress(address)).toContain('webfetch(domain:127.0.0.1)');
    },
  );

  it('the gate does not deny another address', () => {
    expect(gate.deniedAddress('10.1.2.3')).toBeUndefined();
  });

  it('refuses a host name that resolves to a denied address, before connecting', async () => {
    const ctx = createToolContext({ root: '/', checkAddress: (address) => gate.deniedAddress(address) });
    const webfetch = createWebfetchTool({ timeoutMs: 2000 });
    const result = await run(webfetch, { url: `http://localhost:${port}/x` }, ctx);
    expect(result.isError).toBe(true);
    expect(result.output).toMatch(
      /refused: localhost resolves to .* is denied by webfetch\(domain:127\.0\.0\.1\)/,
    );
    expect(hits).toBe(0);
  });

  it('fetches when no deny rule names the address', async () => {
    const ctx = createToolContext({ root: '/', checkAddress: () => undefined });
    const result = await run(
      createWebfetchTool({ timeoutMs: 2000 }),
      { url: `http://localhost:${port}/x` },
      ctx,
    );
    expect(result.output).toContain('secret');
  });
});
