/**
 * Claude Code relays an MCP server's elicitation to the turn through the Agent SDK's
 * `onElicitation`, with the real Claude Code and the scripted model: the `connector`
 * binding points at the kit's eliciting server, whose `confirm_delete` asks "Delete 40
 * files?". The host sees an `elicitation` event with the connector and tool the board
 * proves, and its answer is the one the server gets.
 */
import { scriptedClaudeEnv, callConnectorTool } from '@tutti/test-kit/agent-turns';
import { startElicitingHost } from '@tutti/test-kit/eliciting-host';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClaudeSdkProvider } from './claude-sdk-provider.js';

describe('Claude Code relays an MCP server elicitation to the turn', () => {
  let world: Awaited<ReturnType<typeof startElicitingHost>>;
  let env: Record<string, string>;

  beforeAll(async () => {
    world = await startElicitingHost(() => createClaudeSdkProvider());
    env = scriptedClaudeEnv(world.model);
    world.model.script(callConnectorTool('confirm_delete', {}));
  });

  afterAll(async () => {
    await world?.close();
  });

  it('declares form and URL elicitation in its MCP initialize', async () => {
    const info = await world.start('claude-sdk', env, 'ask');
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
      const info = await world.start('claude-sdk', env, 'ask');
      const { events, text } = await world.turn(info.id, 'Delete the files.', reply);
      expect(events.filter((event) => event.type === 'elicitation')).toEqual([
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
      expect(JSON.stringify(text)).toContain(said);
      expect(events.at(-1)).toEqual({ type: 'end', stopReason: 'end_turn' });
      await world.host.closeSession(info.id);
    },
    180_000,
  );
});
