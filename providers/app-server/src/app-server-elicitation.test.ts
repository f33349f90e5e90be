/**
 * Codex relays an MCP server's elicitation to the turn, with the real `codex app-server`
 * and the scripted model: the `connector` binding points at the kit's eliciting server,
 * whose `confirm_delete` asks "Delete 40 files?". The host sees an `elicitation` event with
 * the connector and tool the board proves, and its answer is the one the server gets.
 * Codex's own approval of the call stays a `permission` event.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { CODEX_BIN } from '@tutti/test-kit';
import { callConnectorTool, scriptedCodexConfig } from '@tutti/test-kit/agent-turns';
import { startElicitingHost } from '@tutti/test-kit/eliciting-host';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAppServerProvider } from './app-server-provider.js';
import { createCodexDescriptor } from './descriptor.js';

describe('Codex relays an MCP server elicitation to the turn', () => {
  let world: Awaited<ReturnType<typeof startElicitingHost>>;

  beforeAll(async () => {
    world = await startElicitingHost(async (homes, model) => {
      await mkdir(homes.codexHome, { recursive: true });
      await writeFile(join(homes.codexHome, 'config.toml'), scriptedCodexConfig(model));
      return createAppServerProvider(
        createCodexDescriptor({ command: CODEX_BIN, userHome: homes.codexHome }),
      );
    });
    world.model.script(callConnectorTool('confirm_delete', {}));
  });

  afterAll(async () => {
    await world?.close();
  });

  it('declares form and URL elicitation in its MCP initialize', async () => {
    const info = await world.start('codex', { OPENAI_API_KEY: 'test-key' }, 'ask');
    await expect.poll(() => world.server.initializes.length).toBeGreaterThan(0);
    expect(world.server.initializes.at(-1)).toMatchObject({
      capabilities: { elicitation: { form: {}, url: {} } },
    });
    await world.host.closeSession(info.id);
  });

  it.each([
    ['accept', { action: 'accept', content: { confirm: true } }, '{\\"deleted\\":true}'],
    ['decline', { action: 'decline' }, '{\\"deleted\\":false,\\"action\\":\\"decline\\"}'],
  ] as const)(
    'asks the host (%s), and the tool result carries its answer',
    async (_what, reply, said) => {
      const info = await world.start('codex', { OPENAI_API_KEY: 'test-key' }, 'ask');
      const { events, text } = await world.turn(info.id, 'Delete the files.', reply);
      const asked = events.filter((event) => event.type === 'elicitation');
      expect(asked).toEqual([
        {
          type: 'elicitation',
          requestId: expect.any(String),
          server: 'connector',
          connector: 'files',
          tool: 'files_confirm_delete',
          mode: 'form',
          message: 'Delete 40 files?',
          requestedSchema: {
            type: 'object',
            properties: { confirm: { type: 'boolean', title: 'Delete them' } },
            required: ['confirm'],
          },
        },
      ]);
      // Codex's approval of the call is a permission, asked before the server's question.
      const permission = events.findIndex((event) => event.type === 'permission');
      expect(permission).toBeGreaterThan(-1);
      expect(permission).toBeLessThan(events.indexOf(asked[0]!));
      expect(JSON.stringify(text)).toContain(said);
      expect(events.at(-1)).toEqual({ type: 'end', stopReason: 'end_turn' });
      await world.host.closeSession(info.id);
    },
    180_000,
  );
});
