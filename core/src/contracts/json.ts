/** JSON value types shared by the contracts. */

/** Any JSON value. */
export type Json = string | number | boolean | null | Json[] | { [key: string]: Json };

/** A JSON Schema object, as carried in MCP `inputSchema` / `outputSchema`. */
export type JsonSchemaObject = { type?: unknown; [key: string]: unknown };
