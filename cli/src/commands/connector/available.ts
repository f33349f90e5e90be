/**
 * `tutti connector available`: the one public connector command. It asks the running
 * daemon which connectors are installed, which of their interfaces work now, and how (MCP tools of the `connector` server
 * by prefix, the stable CLI command, the connector's skills). Its output never holds a URL,
 * port, token, header, OAuth data or release path. The bin answers the common case of this
 * command without loading oclif (fast-path.ts); both run the same code.
 */
import { Command, Flags } from '@oclif/core';
import { isTuttiError, resolveHome } from '@tutti/core/client';
import { renderConnectorTable } from '../../connector-available.js';
import { type AvailableConnectors, fetchAvailableConnectors } from '../../daemon-client.js';

export { renderConnectorTable };

/** `tutti connector available [--json] [--home <dir>]`. */
export default class ConnectorAvailable extends Command {
  static override summary = 'List the connectors agents can use, and how to use each.';
  static override description =
    'Asks the running tutti daemon about every installed connector: the MCP tools it offers on the "connector" MCP server (by tool-name prefix), the command to run its CLI, and its skills, with the status of each interface (ready, starting, restarting, needs-auth, credential-rejected, failed) and, when it is not ready, a fixed advice text. Use only the interfaces that are ready.';
  static override examples = [
    '<%= config.bin %> connector available',
    '<%= config.bin %> connector available --json',
  ];
  static override enableJsonFlag = true;
  static override flags = {
    home: Flags.string({
      description: 'tutti home folder of the daemon to ask (default: $TUTTI_HOME, else ~/.tutti)',
    }),
  };

  override async run(): Promise<AvailableConnectors> {
    const { flags } = await this.parse(ConnectorAvailable);
    const home = resolveHome({ flag: flags.home });
    let available: AvailableConnectors;
    try {
      available = await fetchAvailableConnectors(home);
    } catch (error) {
      if (isTuttiError(error)) this.error(error.message, { code: error.code, exit: 1 });
      throw error;
    }
    this.log(renderConnectorTable(available.connectors));
    return available;
  }

  /** JSON errors carry only a code and the message, never a stack or a cause. */
  protected override toErrorJson(error: unknown): { error: { code?: string; message: string } } {
    const { code, message } = error as { code?: string; message?: string };
    return { error: { code, message: message ?? 'The command failed.' } };
  }
}
