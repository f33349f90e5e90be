import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { connectorSummarySchema } from './connector-summary.js';
import { parseConnectorSummaries } from './connector-summary-check.js';

const github = {
  key: 'github',
  name: 'GitHub',
  description: 'Issues',
  skills: [{ name: 'github-workflow', title: 'GitHub Workflow', description: 'PRs' }],
  interfaces: [
    { kind: 'mcp', serverName: 'connector', toolPrefix: 'github_', status: 'ready' },
    { kind: 'cli', command: 'tutti-connector-github', status: 'starting' },
  ],
};

const zodList = connectorSummarySchema.array();

describe('parseConnectorSummaries', () => {
  it('takes a valid list and returns it as it is', () => {
    const list = [github];
    expect(parseConnectorSummaries(list)).toBe(list);
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
  ])('refuses %s', (_what, value) => {
    expect(parseConnectorSummaries(value)).toBeUndefined();
    expect(zodList.safeParse(value).success).toBe(false);
  });

  it('takes exactly the lists connectorSummarySchema takes', () => {
    const text = (max: number) =>
      fc.oneof(
        fc.string({ maxLength: max + 2 }),
        fc.constantFrom('', 'a', 'github', 'git_hub', 'Git', 'a-b', '-a', 'a'.repeat(max)),
      );
    const status = fc.oneof(fc.constantFrom('ready', 'starting', 'unavailable'), fc.string());
    const mcp = fc.record(
      {
        kind: fc.constantFrom('mcp', 'cli', 'x'),
        serverName: fc.constantFrom('connector', 'other'),
        toolPrefix: fc.oneof(fc.constantFrom('github_', 'a-b_', '_', 'x'), fc.string()),
        status,
        extra: fc.jsonValue(),
      },
      { requiredKeys: ['kind', 'status'] },
    );
    const cli = fc.record(
      {
        kind: fc.constantFrom('cli', 'mcp'),
        command: fc.oneof(
          fc.constantFrom('tutti-connector-github', 'tutti-connector-', 'gh'),
          fc.string(),
        ),
        status,
        extra: fc.jsonValue(),
      },
      { requiredKeys: ['kind', 'status'] },
    );
    const skill = fc.record(
      {
        name: fc.oneof(fc.constantFrom('github-workflow', 'a', 'A', 'a--b', ''), text(64)),
        title: text(200),
        description: text(1024),
        extra: fc.jsonValue(),
      },
      { requiredKeys: ['name', 'title', 'description'] },
    );
    const summary = fc.record(
      {
        key: fc.oneof(fc.constantFrom('github', 'a', 'git_hub', '-x', 'a'.repeat(33)), fc.string()),
        name: text(200),
        description: text(2048),
        skills: fc.oneof(fc.array(skill, { maxLength: 2 }), fc.jsonValue()),
        interfaces: fc.oneof(fc.array(fc.oneof(mcp, cli), { maxLength: 3 }), fc.jsonValue()),
        extra: fc.jsonValue(),
      },
      { requiredKeys: ['key', 'name', 'description', 'skills', 'interfaces'] },
    );
    const list = fc.oneof(fc.array(summary, { maxLength: 2 }), fc.jsonValue());
    let taken = 0;
    fc.assert(
      fc.property(list, (generated) => {
        const value = JSON.parse(JSON.stringify(generated) ?? 'null');
        const mine = parseConnectorSummaries(value) !== undefined;
        if (mine) taken += 1;
        expect(mine).toBe(zodList.safeParse(value).success);
      }),
      { numRuns: 5000 },
    );
    expect(taken).toBeGreaterThan(50);
  });
});
