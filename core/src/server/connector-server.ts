/**
 * Starts the loopback `connector` MCP server on 127.0.0.1 (dynamic port by default) and
 * stops it: closing ends every listen stream, aborts in-flight calls and closes sockets.
 */
import type { AddressInfo } from 'node:net';
import { type ConnectorServerOptions, buildConnectorApp } from './connector-app.js';
import { CONNECTOR_ENDPOINT } from './constants.js';
import type { ElicitationBoard } from './elicitation-board.js';

export type { ConnectorServerOptions } from './connector-app.js';

/** A running `connector` server. */
export interface ConnectorServer {
  /** `http://127.0.0.1:<port>/mcp/connector`: the URL of every session's binding. */
  readonly url: string;
  readonly port: number;
  /** The elicitations relayed to agents and not answered yet, per agent session. */
  readonly elicitations: ElicitationBoard;
  /** Stops the server; idempotent. */
  close(): Promise<void>;
}

/**
 * Binds the server to 127.0.0.1 on `port` (0 or absent: a free port).
 * @example const server = await createConnectorServer({ registry, tokens });
 */
export async function createConnectorServer(
  options: ConnectorServerOptions & { port?: number },
): Promise<ConnectorServer> {
  let port = options.port ?? 0;
  const { app, shutdown, elicitations } = buildConnectorApp({ ...options, port: () => port });
  await app.listen({ host: '127.0.0.1', port });
  port = (app.server.address() as AddressInfo).port;
  let closing: Promise<void> | undefined;
  return {
    url: `http://127.0.0.1:${port}${CONNECTOR_ENDPOINT}`,
    port,
    elicitations,
    close() {
      closing ??= (async () => {
        shutdown();
        await app.close();
      })();
      return closing;
    },
  };
}
