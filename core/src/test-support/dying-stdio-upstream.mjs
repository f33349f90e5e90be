/**
 * A real stdio MCP server for the server tests: `echo` answers, `die` makes the process
 * exit while the call is still running (an upstream crash mid-call).
 */
import { McpServer } from '@modelcontextprotocol/server';
import { StdioServerTransport } from '@modelcontextprotocol/server/stdio';

const server = new McpServer({ name: 'dying-upstream', version: '1.0.0' });
server.registerTool('echo', { description: 'Answers "pong"' }, async () => ({
  content: [{ type: 'text', text: 'pong' }],
}));
server.registerTool('die', { description: 'Exits while the call runs' }, () => {
  setImmediate(() => process.exit(3));
  return new Promise(() => {});
});
await server.connect(new StdioServerTransport());
