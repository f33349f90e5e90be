import { describe, expect, it } from 'vitest';
import { TuttiError } from '../errors/index.js';
import { connectorSummarySchema } from './connector-summary.js';
import { INTERFACE_ADVICE } from './interface-status.js';
import { createConnectorCatalog } from './connector-catalog.js';

const GITHUB = {
  name: 'GitHub',
  description: 'GitHub repository and issue operations',
  mcp: { status: 'ready' as const },
  cli: { status: 'ready' as const },
  skills: [
    {
      name: 'github-workflow',
      title: 'GitHub Workflow',
      description: 'Work with repositories, issues and pull requests',
    },
  ],
};

function code(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (error) {
    return error instanceof TuttiError ? error.code : `not a TuttiError: ${String(error)}`;
  }
  return undefined;
}

describe('the connector catalog', () => {
  it('produces exactly the documented ConnectorSummary of a connector', () => {
    const routes = createConnectorCatalog();
    routes.commit('github', 1, GITHUB);
    expect(routes.list()).toEqual([
      {
        key: 'github',
        name: 'GitHub',
        description: 'GitHub repository and issue operations',
        skills: [
          {
            name: 'github-workflow',
            title: 'GitHub Workflow',
            description: 'Work with repositories, issues and pull requests',
          },
        ],
        interfaces: [
          { kind: 'mcp', serverName: 'connector', toolPrefix: 'github_', status: 'ready' },
          { kind: 'cli', command: 'tutti-connector-github', status: 'ready' },
        ],
      },
    ]);
    expect(connectorSummarySchema.parse(routes.get('github'))).toEqual(routes.get('github'));
  });

  it('lists only the interfaces a connector declares, with their run status and its advice', () => {
    const routes = createConnectorCatalog();
    routes.commit('notes', 1, { name: 'Notes', description: '', cli: { status: 'starting' } });
    expect(routes.get('notes')).toEqual({
      key: 'notes',
      name: 'Notes',
      description: '',
      skills: [],
      interfaces: [
        {
          kind: 'cli',
          command: 'tutti-connector-notes',
          status: 'starting',
          advice: INTERFACE_ADVICE.starting,
        },
      ],
    });
  });

  it('sorts connectors by key and skills by name', () => {
    const routes = createConnectorCatalog();
    for (const key of ['b', 'a-b', 'a', 'ab']) {
      routes.commit(key, 1, {
        name: key,
        description: '',
        skills: [
          { name: 'zeta', title: 'Z', description: '' },
          { name: 'alpha', title: 'A', description: '' },
        ],
      });
    }
    expect(routes.list().map((s) => s.key)).toEqual(['a', 'a-b', 'ab', 'b']);
    expect(routes.get('a')?.skills.map((s) => s.name)).toEqual(['alpha', 'zeta']);
    expect(Object.isFrozen(routes.list())).toBe(true);
    expect(Object.isFrozen(routes.get('a')?.skills[0])).toBe(true);
  });

  it('rejects a stale generation and keeps the listed metadata', () => {
    const routes = createConnectorCatalog();
    routes.commit('github', 3, GITHUB);
    expect(code(() => routes.commit('github', 3, { ...GITHUB, name: 'Other' }))).toBe(
      'TUTTI_ERR_REGISTRY_STALE_GENERATION',
    );
    expect(routes.get('github')?.name).toBe('GitHub');
    expect(routes.commit('github', 4, { ...GITHUB, name: 'GitHub 2' }).name).toBe('GitHub 2');
    expect(routes.generationOf('github')).toBe(4);
  });

  it('removes at or above the listed generation and keeps the fence after removal', () => {
    const routes = createConnectorCatalog();
    routes.commit('github', 2, GITHUB);
    expect(routes.remove('github', 1)).toBe(false);
    expect(routes.get('github')).toBeDefined();
    expect(routes.remove('github', 2)).toBe(true);
    expect(routes.list()).toEqual([]);
    expect(code(() => routes.commit('github', 2, GITHUB))).toBe(
      'TUTTI_ERR_REGISTRY_STALE_GENERATION',
    );
  });

  it('refuses metadata with fields that could carry URLs, ports, tokens or paths', () => {
    const routes = createConnectorCatalog();
    const withExtra: unknown[] = [
      { ...GITHUB, url: 'http://127.0.0.1:4000/mcp/connector' },
      { ...GITHUB, mcp: { status: 'ready', headers: { Authorization: 'Bearer x' } } },
      { ...GITHUB, cli: { status: 'ready', path: '/store/releases/abc/bin/gh' } },
      { ...GITHUB, skills: [{ ...GITHUB.skills[0], root: '/store/skills' }] },
      { ...GITHUB, skills: [{ ...GITHUB.skills[0], name: '../etc' }] },
    ];
    for (const metadata of withExtra) {
      expect(code(() => routes.commit('github', 1, metadata as typeof GITHUB))).toBe(
        'TUTTI_ERR_ROUTES_INVALID_METADATA',
      );
    }
    expect(routes.list()).toEqual([]);
    expect(routes.commit('github', 1, GITHUB).key).toBe('github');
  });

  it('rejects an unknown status, a missing name and duplicate skills', () => {
    const routes = createConnectorCatalog();
    const invalid: unknown[] = [
      { ...GITHUB, mcp: { status: 'enabled' } },
      { description: 'no name' },
      { ...GITHUB, skills: [GITHUB.skills[0], GITHUB.skills[0]] },
    ];
    for (const metadata of invalid) {
      expect(code(() => routes.commit('github', 1, metadata as typeof GITHUB))).toBe(
        'TUTTI_ERR_ROUTES_INVALID_METADATA',
      );
    }
    expect(code(() => routes.commit('Git_Hub', 1, GITHUB))).toBe('TUTTI_ERR_REGISTRY_INVALID_KEY');
  });
});
