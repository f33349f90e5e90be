/** What an HTTP status from a remote MCP server means for the connection. */
import { SdkHttpError } from '@modelcontextprotocol/client';

/** HTTP status of a refused credential (401, or 403 without a scope step-up), else undefined. */
export function unauthorizedStatus(error: unknown): number | undefined {
  if (!(error instanceof SdkHttpError)) return undefined;
  return error.status === 401 || error.status === 403 ? error.status : undefined;
}
