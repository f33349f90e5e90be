/**
 * The ONE authoritative result of preparing an agent session. Every provider projects
 * this same object into its own format; none builds a second copy.
 */
import { z } from 'zod';
import { mcpServerBindingSchema } from './mcp-server-binding.js';

/** Zod schema of {@link PreparedRuntime}. */
export const preparedRuntimeSchema = z
  .object({
    /** Working directory of the agent session. */
    cwd: z.string().min(1),
    /** Environment for the agent process (PATH already carries the shim bin dir). */
    env: z.record(z.string(), z.string()),
    /** MCP servers to inject: the session's `connector` binding. */
    mcpServers: z.array(mcpServerBindingSchema),
    /** Skill root folders of ready connectors, for the provider's native skill scanner. */
    skillRoots: z.array(z.string().min(1)),
    /** Agent-facing guidance text naming only native MCP, CLI and Skill use. */
    guidance: z.string().optional(),
  })
  .strict();

/** Working directory, environment, MCP servers and skill roots of one agent session. */
export type PreparedRuntime = z.infer<typeof preparedRuntimeSchema>;
