import { createRequire } from 'node:module';

/**
 * A tiny stdio MCP server (`node -e <source>`) for remote-worker tests: `where` (read-only) answers
 * `$PROBE_TAG`, so a test sees whose server answered; `secret` is read-only too (for a rule to deny);
 * `stamp` declares no hint, so it is a write.
 */
export function probeServer(tag: string): { command: string; args: string[]; env: Record<string, string> } {
  const require = createRequire(import.meta.url);
  const source = `
    const { McpServer } = require(${JSON.stringify(require.resolve('@modelcontextprotocol/sdk/server/mcp.js'))});
    const { StdioServerTransport } = require(${JSON.stringify(require.resolve('@modelcontextprotocol/sdk/server/stdio.js'))});
    const server = new McpServer({ name: 'probe', version: '1.0.0' });
    server.registerTool('where', { description: 'Says whose server this is', annotations: { readOnlyHint: true } },
      async () => ({ content: [{ type: 'text', text: 'answered by ' + process.env.PROBE_TAG }] }));
    server.registerTool('secret', { description: 'Reads a secret', annotations: { readOnlyHint: true } },
      async () => ({ content: [{ type: 'text', text: 'the secret' }] }));
    server.registerTool('stamp', { description: 'Writes a stamp' },
      async () => ({ content: [{ type: 'text', text: 'stamped' }] }));
    server.connect(new StdioServerTransport());
  `;
  return { command: process.execPath, args: ['-e', source], env: { PROBE_TAG: tag } };
}
