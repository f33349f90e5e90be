/**
 * The one MCP server an agent session is given: the loopback `connector` server with the
 * session's bearer header. Never rendered into prompts, logs or `connector available`.
 */
import { z } from 'zod';
import { CONNECTOR_SERVER_NAME } from './connector-server-name.js';

export { CONNECTOR_SERVER_NAME };

/** Zod schema of {@link MCPServerBinding}; used where a binding crosses a process boundary. */
export const mcpServerBindingSchema = z
  .object({
    name: z.literal(CONNECTOR_SERVER_NAME),
    type: z.literal('http'),
    url: z.url({ protocol: /^http$/, hostname: /^(127\.0\.0\.1|localhost|\[::1\])$/ }),
    headers: z.record(z.string(), z.string()),
  })
  .strict();

/** Streamable HTTP binding of the `connector` server for one agent session. */
export type MCPServerBinding = z.infer<typeof mcpServerBindingSchema>;
