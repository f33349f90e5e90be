import { describe, expect, it } from 'vitest';
import { labelOf, type ToolProofContext } from './tool-proof.js';

const context = (forms: string[]): ToolProofContext => ({
  forms,
  served: (tool) => tool === 'notes_add' || tool === 'a__b',
});

describe('labelOf', () => {
  it('proves a served tool named in one of the agent forms', () => {
    expect(
      labelOf({ name: 'mcp__connector__notes_add' }, context(['mcp__{server}__{tool}'])),
    ).toEqual({ server: 'connector', tool: 'notes_add', connector: true });
    expect(labelOf({ name: 'connector_notes_add' }, context(['{server}_{tool}']))).toEqual({
      server: 'connector',
      tool: 'notes_add',
      connector: true,
    });
    expect(labelOf({ name: 'notes_add (connector)' }, context(['{tool} ({server})']))).toEqual({
      server: 'connector',
      tool: 'notes_add',
      connector: true,
    });
  });

  it('reads a form that anything may follow (a call id), trying each split against the served tools', () => {
    const forms = context(['mcp_{server}_{tool}__*']);
    expect(labelOf({ name: 'mcp_connector_notes_add__1733-abc' }, forms)).toEqual({
      server: 'connector',
      tool: 'notes_add',
      connector: true,
    });
    expect(labelOf({ name: 'mcp_connector_a__b__17' }, forms).tool).toBe('a__b');
    expect(
      labelOf({ name: 'run_shell_command__mcp_connector_notes_add__1' }, forms).connector,
    ).toBe(false);
    expect(labelOf({ name: 'mcp_connector_notes_add' }, forms).connector).toBe(false);
  });

  it('takes the whole rest of the name as the tool, double underscores included', () => {
    expect(labelOf({ name: 'mcp__connector__a__b' }, context(['mcp__{server}__{tool}']))).toEqual({
      server: 'connector',
      tool: 'a__b',
      connector: true,
    });
  });

  it('proves nothing from a title, whatever it says', () => {
    for (const label of ['mcp__connector__notes_add', 'connector_notes_add', 'notes_add']) {
      expect(labelOf({ label }, context(['mcp__{server}__{tool}', '{server}_{tool}']))).toEqual({
        server: '',
        tool: label,
        connector: false,
      });
    }
  });

  it('proves nothing for a name the session was not served, or with text around it', () => {
    const forms = context(['mcp__{server}__{tool}']);
    for (const name of [
      'mcp__connector__x',
      'mcp__connector__notes_add; touch f',
      'xmcp__connector__notes_add',
      'mcp__connector__',
      'mcp__other__notes_add',
    ]) {
      expect(labelOf({ name }, forms).connector, name).toBe(false);
    }
  });

  it('keeps the server another MCP server is named by, and proves it is not connector', () => {
    expect(labelOf({ server: 'mine', tool: 'notes_add' }, context([]))).toEqual({
      server: 'mine',
      tool: 'notes_add',
      connector: false,
    });
    expect(labelOf({ server: 'connector', tool: 'gone' }, context([]))).toEqual({
      server: '',
      tool: 'connector/gone',
      connector: false,
    });
  });
});
