import { describe, expect, it } from 'vitest';
import {
  checkMcpParamHeaders,
  decodeHeaderValue,
  scanMcpHeaderDeclarations,
} from './mcp-param-headers.js';

describe('Mcp-Param headers', () => {
  const schema = {
    type: 'object',
    'x-mcp-header': 'Root',
    properties: {
      region: { type: 'string', 'x-mcp-header': 'Region' },
      options: {
        type: 'object',
        properties: { dryRun: { type: 'boolean', 'x-mcp-header': 'Dry-Run' } },
      },
      bad: { type: 'string', 'x-mcp-header': 'has space' },
      list: { type: 'array', items: { type: 'string', 'x-mcp-header': 'Item' } },
    },
  };

  it('finds declarations along properties chains only, with valid header names', () => {
    expect(scanMcpHeaderDeclarations(schema)).toEqual([
      { path: ['region'], headerName: 'Region', type: 'string' },
      { path: ['options', 'dryRun'], headerName: 'Dry-Run', type: 'boolean' },
    ]);
  });

  it('decodes the base64 form and refuses a non-canonical one', () => {
    expect(decodeHeaderValue('plain')).toBe('plain');
    expect(decodeHeaderValue(`=?base64?${Buffer.from('日本').toString('base64')}?=`)).toBe('日本');
    expect(decodeHeaderValue('=?base64?YQ?=')).toBeUndefined();
    expect(decodeHeaderValue('=?base64?/w==?=')).toBeUndefined();
  });

  it('checks nested and boolean values case-insensitively by header name', () => {
    const declarations = scanMcpHeaderDeclarations(schema);
    const headers: Record<string, string> = {
      'mcp-param-region': 'eu',
      'mcp-param-dry-run': 'true',
    };
    const read = (name: string) => headers[name.toLowerCase()];
    expect(
      checkMcpParamHeaders(declarations, { region: 'eu', options: { dryRun: true } }, read),
    ).toBeUndefined();
    expect(
      checkMcpParamHeaders(declarations, { region: 'eu', options: { dryRun: false } }, read)?.code,
    ).toBe(-32020);
    expect(checkMcpParamHeaders(declarations, { region: null }, read)).toBeUndefined();
  });
});
