import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { connectorSummarySchema } from './connector-summary.js';
import { parseConnectorSummaries } from './connector-summary-check.js';
import {
  adviceOf,
  CLI_STATUSES,
  INTERFACE_ADVICE,
  INTERFACE_STATUSES,
  type InterfaceStatus,
  PENDING_REASONS,
} from './interface-status.js';
import { withAdvice } from './connector-catalog.js';

const github = {
  key: 'github',
  name: 'GitHub',
  description: 'Issues',
  skills: [{ name: 'github-workflow', title: 'GitHub Workflow', description: 'PRs' }],
  interfaces: [
    { kind: 'mcp', serverName: 'connector', toolPrefix: 'github_', status: 'ready' },
    {
      kind: 'cli',
      command: 'tutti-connector-github',
      status: 'starting',
      advice: INTERFACE_ADVICE.starting,
    },
  ],
};

const zodList = connectorSummarySchema.array();

describe('parseConnectorSummaries', () => {
  it('takes a valid list and returns it as it is', () => {
    const list = [github];
    expect(parseConnectorSummaries(list)).toBe(list);
    const releases = [
      {
        ...github,
        running: { version: '1.0.0', revision: 1 },
        pending: { version: '2.0.0', revision: 2, reason: PENDING_REASONS.failed },
      },
    ];
    expect(parseConnectorSummaries(releases)).toBe(releases);
    expect(zodList.safeParse(releases).success).toBe(true);
    expect(parseConnectorSummaries([])).toEqual([]);
  });

  it.each([
    ['not an array', { connectors: [] }],
    ['an extra field', [{ ...github, url: 'http://127.0.0.1:1/mcp' }]],
    ['a key with "_"', [{ ...github, key: 'git_hub' }]],
    ['an empty name', [{ ...github, name: '' }]],
    [
      'another server name',
      [{ ...github, interfaces: [{ ...github.interfaces[0], serverName: 'x' }] }],
    ],
    ['an unknown status', [{ ...github, interfaces: [{ ...github.interfaces[1], status: 'up' }] }]],
    ['an unknown interface kind', [{ ...github, interfaces: [{ kind: 'rest', status: 'ready' }] }]],
    ['a skill with a path', [{ ...github, skills: [{ ...github.skills[0], path: '/x' }] }]],
    [
      'advice on a ready interface',
      [{ ...github, interfaces: [{ ...github.interfaces[0], advice: 'All good.' }] }],
    ],
    [
      'a not-ready interface without its advice',
      [{ ...github, interfaces: [{ ...github.interfaces[0], status: 'failed' }] }],
    ],
    [
      'advice other than the fixed text of the status',
      [
        {
          ...github,
          interfaces: [
            { ...github.interfaces[0], status: 'failed', advice: 'DATABASE_URL is not set' },
          ],
        },
      ],
    ],
    [
      'a pending release with its own reason',
      [{ ...github, pending: { version: '2.0.0', revision: 2, reason: 'ENOENT /home/me' } }],
    ],
    ['a running release without its revision', [{ ...github, running: { version: '1.0.0' } }]],
    [
      'a running release with a path',
      [{ ...github, running: { version: '1.0.0', revision: 1, path: '/x' } }],
    ],
    [
      'a CLI that is restarting',
      [
        {
          ...github,
          interfaces: [
            { ...github.interfaces[1], status: 'restarting', advice: INTERFACE_ADVICE.restarting },
          ],
        },
      ],
    ],
  ])('refuses %s', (_what, value) => {
    expect(parseConnectorSummaries(value)).toBeUndefined();
    expect(zodList.safeParse(value).success).toBe(false);
  });

  it('takes exactly the lists connectorSummarySchema takes', () => {
    // A status with its advice; now and then one of another status, or none, or a stray one.
    const face = (statuses: readonly InterfaceStatus[]) =>
      fc
        .tuple(fc.constantFrom(...statuses), fc.nat(9), fc.constantFrom(...INTERFACE_STATUSES))
        .map(([status, roll, other]) => {
          if (roll === 0) return { status, ...(adviceOf(other) && { advice: adviceOf(other) }) };
          if (roll === 1) return { status, advice: 'Working fine.' };
          return withAdvice(status);
        });
    const key = fc.stringMatching(/^[a-z0-9][a-z0-9-]{0,31}$/);
    const skill = fc.record({
      name: fc.stringMatching(/^[a-z0-9]+(-[a-z0-9]+)*$/),
      title: fc.string({ minLength: 1, maxLength: 200 }),
      description: fc.string({ maxLength: 60 }),
    });
    const mcp = fc
      .record({
        kind: fc.constant('mcp'),
        serverName: fc.constant('connector'),
        toolPrefix: key.map((k) => `${k}_`),
        face: face(INTERFACE_STATUSES),
      })
      .map(({ face, ...rest }) => ({ ...rest, ...face }));
    // CLI statuses plus, rarely, one a CLI cannot have.
    const cli = fc
      .record({
        kind: fc.constant('cli'),
        command: key.map((k) => `tutti-connector-${k}`),
        face: face([...CLI_STATUSES, ...CLI_STATUSES, 'restarting']),
      })
      .map(({ face, ...rest }) => ({ ...rest, ...face }));
    const release = fc.record({ version: fc.constantFrom('1.0.0', '0.1.2'), revision: fc.nat() });
    const summary = fc.record(
      {
        key,
        name: fc.string({ minLength: 1, maxLength: 200 }),
        description: fc.string({ maxLength: 60 }),
        skills: fc.array(skill, { maxLength: 2 }),
        interfaces: fc.array(fc.oneof(mcp, cli), { maxLength: 3 }),
        running: fc.option(release, { nil: undefined }),
        pending: fc.option(
          fc.record({
            version: fc.constantFrom('1.0.0', '2.0.0-rc.1'),
            revision: fc.nat(),
            reason: fc.constantFrom(...Object.values(PENDING_REASONS)),
          }),
          { nil: undefined },
        ),
      },
      { requiredKeys: ['key', 'name', 'description', 'skills', 'interfaces'] },
    );
    const valid = fc.array(summary, { minLength: 1, maxLength: 2 });
    // One change somewhere in a valid list: a member replaced by another value (often a
    // string at or past a length limit), removed, or an extra member added.
    const replacement = fc.oneof(
      fc.jsonValue(),
      fc.constantFrom('', '_', 'A', 'a--b', 'x'.repeat(64), 'x'.repeat(65), 'x'.repeat(201)),
      fc.constantFrom('x'.repeat(1024), 'x'.repeat(1025), 'x'.repeat(2048), 'x'.repeat(2049)),
    );
    const changed = fc
      .tuple(valid, fc.nat(), fc.constantFrom('replace', 'delete', 'add'), replacement)
      .map(([list, at, how, value]) => {
        const objects: Record<string, unknown>[] = [];
        const walk = (node: unknown) => {
          if (node === null || typeof node !== 'object') return;
          if (!Array.isArray(node)) objects.push(node as Record<string, unknown>);
          for (const child of Object.values(node)) walk(child);
        };
        walk(list);
        const target = objects[at % objects.length]!;
        const keys = Object.keys(target);
        const name = keys[at % keys.length]!;
        if (how === 'replace') target[name] = value;
        else if (how === 'delete') delete target[name];
        else target.extra = value;
        return list;
      });
    const lists = fc.oneof({ weight: 2, arbitrary: valid }, { weight: 5, arbitrary: changed });
    let taken = 0;
    let refused = 0;
    fc.assert(
      fc.property(lists, (generated) => {
        const value = JSON.parse(JSON.stringify(generated));
        const mine = parseConnectorSummaries(value) !== undefined;
        if (mine) taken += 1;
        else refused += 1;
        expect(mine).toBe(zodList.safeParse(value).success);
      }),
      { numRuns: 3000 },
    );
    // Both verdicts often enough for the property to bite.
    expect(taken).toBeGreaterThan(300);
    expect(refused).toBeGreaterThan(300);
  });
});
