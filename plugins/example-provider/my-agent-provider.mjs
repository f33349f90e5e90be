/** A provider for an agent that reads its MCP servers from the JSON file in MY_AGENT_CONFIG. */
const PLUGIN_NAME = 'my-agent-provider';
const PROVIDER = 'my-agent';
/** Before every other tap of the hook (the `PROJECTION_STAGE` of `@tutti/core`). */
const PROJECTION_STAGE = -1000;

export default {
  name: PLUGIN_NAME,
  version: '1.0.0',
  apply(host) {
    // The projection: the prepared runtime in this agent's own config format.
    host.hooks.sessionNew
      .for(PROVIDER)
      .tapPromise({ name: PLUGIN_NAME, stage: PROJECTION_STAGE }, async (_params, runtime) => ({
        servers: Object.fromEntries(
          runtime.mcpServers.map(({ name, url, headers }) => [name, { url, headers }]),
        ),
        skills: runtime.skillRoots,
        instructions: runtime.guidance ?? '',
      }));
    host.registerProvider({
      name: PROVIDER,
      flags: { httpMcp: true, listChanged: false },
      launch: { command: 'my-agent' },
      // The servers of the final config, for the host's binding check.
      bindingsIn: (config) =>
        Object.entries(config.servers).map(([name, { url, headers }]) => ({
          name,
          type: 'http',
          url,
          headers,
        })),
      // The file the agent reads at start, in the session's own folder (0600: it holds the token).
      async materialize(config, _runtime, setup) {
        const file = await setup.files.write('config.json', JSON.stringify(config));
        return { env: { MY_AGENT_CONFIG: file } };
      },
      // The host's spawn: own process group, stopped and cleaned up by the host on close.
      async newSession({ setup, env }) {
        const agent = setup.spawn({ env });
        await agent.started;
        return { providerSessionId: `my-agent-${agent.pid}` };
      },
    });
  },
};
