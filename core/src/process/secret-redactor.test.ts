import { describe, expect, it } from 'vitest';
import { lastLines, createSecretRedactor } from './secret-redactor.js';

describe('SecretRedactor', () => {
  it('masks registered secrets, bearer tokens and credential assignments', () => {
    const redactor = createSecretRedactor();
    redactor.add('s3cr3t-registered-value');
    const text = [
      'connecting with s3cr3t-registered-value',
      'Authorization: Bearer abcdefghijklmnop123',
      'OPENAI_API_KEY=sk-live-0123456789 loaded',
      'password: "hunter2hunter2"',
      'nothing to hide here',
    ].join('\n');
    expect(redactor.redact(text)).toBe(
      [
        'connecting with [redacted]',
        'Authorization: Bearer [redacted]',
        'OPENAI_API_KEY=[redacted] loaded',
        'password: [redacted]',
        'nothing to hide here',
      ].join('\n'),
    );
  });

  it('masks the parts of an OAuth exchange that grant access, and not an exit code', () => {
    const redactor = createSecretRedactor();
    const text = [
      'GET /oauth/callback?code=Zx9-code-value&state=abc&iss=http%3A%2F%2Fas',
      'grant_type=authorization_code&code=Q1w2e3r4&code_verifier=V3rifier-value-1234',
      '{"access_token":"eyJ.at.sig","refresh_token":"rt-0123456789","token_type":"Bearer"}',
      '{"client_id":"c-1","client_secret": "cs-0123456789"}',
      'the server exited with code=2',
    ].join('\n');
    expect(redactor.redact(text)).toBe(
      [
        'GET /oauth/callback?code=[redacted]&state=abc&iss=http%3A%2F%2Fas',
        'grant_type=authorization_code&code=[redacted]&code_verifier=[redacted]',
        '{"access_token":"[redacted]","refresh_token":"[redacted]","token_type":"Bearer"}',
        '{"client_id":"c-1","client_secret": "[redacted]"}',
        'the server exited with code=2',
      ].join('\n'),
    );
  });

  it('forgets a secret once every registration of it is undone', () => {
    const redactor = createSecretRedactor();
    const first = redactor.add('shared-secret-value');
    const second = redactor.add('shared-secret-value');
    first();
    expect(redactor.redact('shared-secret-value')).toBe('[redacted]');
    second();
    expect(redactor.redact('shared-secret-value')).toBe('shared-secret-value');
  });

  it('registers the values of env names that look like credentials only', () => {
    const redactor = createSecretRedactor();
    redactor.addEnv({ GITHUB_TOKEN: 'ghp_abcdefghijkl', LANG: 'en_US.UTF-8' });
    expect(redactor.redact('ghp_abcdefghijkl en_US.UTF-8')).toBe('[redacted] en_US.UTF-8');
  });
});

describe('lastLines', () => {
  it('keeps the last non-empty lines, each bounded', () => {
    expect(lastLines('a\n\nb\nc\n', 2)).toEqual(['b', 'c']);
    expect(lastLines('x'.repeat(600), 1, 10)).toEqual([`${'x'.repeat(10)}…`]);
  });

  it('drops terminal colours and cursor moves', () => {
    expect(
      lastLines('\u001b[31merror\u001b[0m: provider `missing` not found\n\u001b[2K\u001b[1Gdone'),
    ).toEqual(['error: provider `missing` not found', 'done']);
  });
});
