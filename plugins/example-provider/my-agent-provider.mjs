/** A provider for an agent that reads its MCP servers from the JSON file in MY_AGENT_CONFIG. */
export default {
  name: 'my-agent-provider',
  version: '1.0.0',
  apply(host) {
    host.registerProvider({
      name: 'my-agent',
      flags: { httpMcp: true, listChanged: false },
      launch: { command: 'my-agent' },
      // The prepared runtime in this agent's own config format, and the binding read back.
      project: ({ mcpServers, skillRoots, guidance }) => ({
        servers: Object.fromEntries(mcpServers.map(({ name, ...server }) => [name, server])),
        skills: skillRoots,
        instructions: guidance ?? '',
      }),
      bindingsIn: ({ servers }) =>
        Object.entries(servers).map(([name, server]) => ({ name, ...server })),
      driver: (setup) => ({
        // What the agent reads at start, in the session's own folder (0600: it holds the token).
        async materialize(config) {
          const file = await setup.files.write('config.json', JSON.stringify(config));
          return { env: { MY_AGENT_CONFIG: file } };
        },
        // The host's spawn: own process group, stopped and cleaned up by the host on close.
        async open({ env }) {
          const agent = setup.spawn({ env });
          await agent.started;
          return { providerSessionId: `my-agent-${agent.pid}` };
        },
      }),
    });
  },
};
