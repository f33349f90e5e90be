import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { isTuttiError } from '@tutti/core';
import { ERROR_CODES } from '@tutti/core/client';
import { tuttiCommand } from './tuttid.js';
import { parseTuttidArgs, TUTTID_OPTIONS, TUTTID_USAGE } from './tuttid-args.js';

describe('tuttid arguments', () => {
  it('takes -h and --help, and documents every option it takes in the usage', () => {
    const env = { TUTTI_HOME: '/tmp/tutti-args-home' };
    expect(parseTuttidArgs(['--help'], env).help).toBe(true);
    expect(parseTuttidArgs(['-h'], env).help).toBe(true);
    expect(parseTuttidArgs([], env).help).toBe(false);
    for (const name of Object.keys(TUTTID_OPTIONS)) expect(TUTTID_USAGE).toContain(`--${name} `);
  });

  it('takes every flag an error message tells a person to start tuttid with', () => {
    for (const [code, spec] of Object.entries(ERROR_CODES)) {
      for (const [, name] of spec.message.matchAll(/(?<![\w-])--([a-z][a-z-]*)/g)) {
        expect(Object.keys(TUTTID_OPTIONS), `${code}: --${name}`).toContain(name);
      }
    }
  });

  it('traces to --otlp-endpoint, else to the OTEL variables, else nowhere', () => {
    const env = { TUTTI_HOME: '/tmp/tutti-args-home' };
    expect(parseTuttidArgs([], env).tracing).toEqual({ baggage: false });
    expect(parseTuttidArgs(['--otlp-endpoint', 'http://127.0.0.1:4318/'], env).tracing).toEqual({
      endpoint: 'http://127.0.0.1:4318/v1/traces',
      baggage: false,
    });
    const base = { ...env, OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318' };
    expect(parseTuttidArgs(['--trace-baggage'], base).tracing).toEqual({
      endpoint: 'http://127.0.0.1:4318/v1/traces',
      baggage: true,
    });
    const traces = { ...base, OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'https://collector.test/t' };
    expect(parseTuttidArgs([], traces).tracing.endpoint).toBe('https://collector.test/t');
    expect(
      parseTuttidArgs([], { ...traces, OTEL_SDK_DISABLED: 'true' }).tracing.endpoint,
    ).toBeUndefined();
    expect(
      parseTuttidArgs([], { ...traces, OTEL_TRACES_EXPORTER: 'none' }).tracing.endpoint,
    ).toBeUndefined();
    expect(() => parseTuttidArgs(['--otlp-endpoint', 'collector:4318'], env)).toThrow(
      '--otlp-endpoint takes an http or https URL',
    );
    expect(() => parseTuttidArgs([], { ...env, OTEL_EXPORTER_OTLP_ENDPOINT: 'grpc://x' })).toThrow(
      'the OTEL_EXPORTER_OTLP endpoint variable takes an http or https URL',
    );
  });

  it('samples new traces as the OTEL sampler variables say, and refuses a sampler it cannot follow', () => {
    const env = {
      TUTTI_HOME: '/tmp/tutti-args-home',
      OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318',
    };
    expect(parseTuttidArgs([], env).tracing.sampleRatio).toBeUndefined();
    const ratio = {
      ...env,
      OTEL_TRACES_SAMPLER: 'parentbased_traceidratio',
      OTEL_TRACES_SAMPLER_ARG: '0.1',
    };
    expect(parseTuttidArgs([], ratio).tracing.sampleRatio).toBe(0.1);
    expect(
      parseTuttidArgs([], { ...env, OTEL_TRACES_SAMPLER: 'parentbased_always_on' }).tracing
        .sampleRatio,
    ).toBeUndefined();
    for (const bad of [
      { OTEL_TRACES_SAMPLER: 'jaeger_remote' },
      { OTEL_TRACES_SAMPLER: 'traceidratio', OTEL_TRACES_SAMPLER_ARG: '2' },
    ]) {
      expect(() => parseTuttidArgs([], { ...env, ...bad })).toThrow(
        'OTEL_TRACES_SAMPLER takes parentbased_traceidratio',
      );
    }
  });

  it('keeps the audit trail without values unless told otherwise', () => {
    const env = { TUTTI_HOME: '/tmp/tutti-args-home' };
    expect(parseTuttidArgs([], env).audit).toEqual({ enabled: true, captureValues: false });
    expect(parseTuttidArgs(['--no-audit'], env).audit.enabled).toBe(false);
    expect(parseTuttidArgs(['--audit-values'], env).audit.captureValues).toBe(true);
  });

  it('takes --credential-store auto, keychain or file, auto by default, and refuses others', () => {
    const env = { TUTTI_HOME: '/tmp/tutti-args-home' };
    expect(parseTuttidArgs([], env).credentialStore).toBe('auto');
    for (const mode of ['auto', 'keychain', 'file'] as const) {
      expect(parseTuttidArgs(['--credential-store', mode], env).credentialStore).toBe(mode);
    }
    expect(() => parseTuttidArgs(['--credential-store', 'vault'], env)).toThrow(
      '--credential-store takes auto, keychain or file',
    );
  });

  it('takes an https client metadata URL with a path, and refuses any other', () => {
    const env = { TUTTI_HOME: '/tmp/tutti-args-home' };
    const url = 'https://example.com/tutti/client.json';
    expect(parseTuttidArgs(['--oauth-client-metadata-url', url], env).oauthClientMetadataUrl).toBe(
      url,
    );
    expect(parseTuttidArgs([], env).oauthClientMetadataUrl).toBeUndefined();
    for (const bad of ['http://example.com/c.json', 'https://example.com/', 'not a url']) {
      expect(() => parseTuttidArgs(['--oauth-client-metadata-url', bad], env)).toThrow(
        '--oauth-client-metadata-url takes an https URL with a path',
      );
    }
  });

  it('takes a release size cap in MiB and leaves the default otherwise', () => {
    const env = { TUTTI_HOME: '/tmp/tutti-args-home' };
    expect(parseTuttidArgs(['--max-release-mb', '1024'], env).maxReleaseMb).toBe(1024);
    expect(parseTuttidArgs([], env).maxReleaseMb).toBeUndefined();
  });

  it.each(['0', '-5', '1.5', 'lots'])('refuses --max-release-mb %s with a clear error', (value) => {
    let error: unknown;
    try {
      parseTuttidArgs([`--max-release-mb=${value}`], { TUTTI_HOME: '/tmp/x' });
    } catch (caught) {
      error = caught;
    }
    expect(isTuttiError(error, 'TUTTI_ERR_DAEMON_BAD_ARGUMENT')).toBe(true);
    expect((error as Error).message).toContain('--max-release-mb takes a whole number of MiB');
  });

  it('takes a session cap and leaves the default otherwise', () => {
    const env = { TUTTI_HOME: '/tmp/tutti-args-home' };
    expect(parseTuttidArgs(['--max-sessions', '8'], env).limits.maxSessions).toBe(8);
    expect(parseTuttidArgs([], env).limits.maxSessions).toBeUndefined();
    expect(() => parseTuttidArgs(['--max-sessions', '0'], env)).toThrow(
      '--max-sessions takes a whole number from 1 up',
    );
  });

  it('takes the elicitation wait and the parked-call caps, and leaves the defaults otherwise', () => {
    const env = { TUTTI_HOME: '/tmp/tutti-args-home' };
    const { limits } = parseTuttidArgs(
      [
        '--elicitation-timeout',
        '5000',
        '--max-parked-calls',
        '8',
        '--max-parked-calls-per-session',
        '2',
      ],
      env,
    );
    expect(limits).toMatchObject({
      elicitationTimeoutMs: 5000,
      maxParkedCalls: 8,
      maxParkedCallsPerToken: 2,
    });
    const defaults = parseTuttidArgs([], env).limits;
    expect(defaults.elicitationTimeoutMs).toBeUndefined();
    expect(defaults.maxParkedCalls).toBeUndefined();
    expect(() => parseTuttidArgs(['--max-parked-calls-per-session', '0'], env)).toThrow(
      '--max-parked-calls-per-session takes a whole number from 1 up',
    );
  });

  it('takes the log level and the log file rotation, with their defaults, and refuses bad ones', () => {
    const env = { TUTTI_HOME: '/tmp/tutti-args-home' };
    expect(parseTuttidArgs([], env)).toMatchObject({
      logFile: { maxBytes: 10 * 1024 * 1024, maxFiles: 5 },
    });
    expect(parseTuttidArgs([], env).logLevel).toBeUndefined();
    const set = parseTuttidArgs(
      ['--log-level', 'debug', '--log-file-size', '4096', '--log-file-count', '0'],
      env,
    );
    expect(set).toMatchObject({ logLevel: 'debug', logFile: { maxBytes: 4096, maxFiles: 0 } });
    expect(() => parseTuttidArgs(['--log-level', 'loud'], env)).toThrow(
      '--log-level takes one of trace, debug, info, warn, error, fatal, silent',
    );
    expect(() => parseTuttidArgs(['--log-file-size', '0'], env)).toThrow(
      '--log-file-size takes a whole number from 1 up',
    );
    expect(() => parseTuttidArgs(['--log-file-count=1.5'], env)).toThrow(
      '--log-file-count takes a whole number from 0 up',
    );
  });

  it('takes --agent-registry as a file path made absolute, or an https URL (http on loopback only)', () => {
    const env = { TUTTI_HOME: '/tmp/tutti-args-home' };
    expect(parseTuttidArgs([], env).agentRegistry).toBeUndefined();
    expect(parseTuttidArgs(['--agent-registry', '/srv/registry.json'], env).agentRegistry).toBe(
      '/srv/registry.json',
    );
    expect(parseTuttidArgs(['--agent-registry', 'registry.json'], env).agentRegistry).toBe(
      join(process.cwd(), 'registry.json'),
    );
    expect(
      parseTuttidArgs(['--agent-registry', 'https://example.com/registry.json'], env).agentRegistry,
    ).toBe('https://example.com/registry.json');
    expect(
      parseTuttidArgs(['--agent-registry', 'http://127.0.0.1:8080/registry.json'], env)
        .agentRegistry,
    ).toBe('http://127.0.0.1:8080/registry.json');
    for (const bad of ['http://example.com/registry.json', 'ftp://example.com/r.json']) {
      expect(() => parseTuttidArgs(['--agent-registry', bad], env)).toThrow(
        '--agent-registry takes a file path or an https URL',
      );
    }
  });

  it('tells the banner to run `tutti` by name when it is on PATH, else through node', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'tutti-path-'));
    try {
      expect(tuttiCommand({ PATH: dir })).toMatch(/^node \S+\/cli\/bin\/tutti\.js$/);
      await writeFile(join(dir, 'tutti'), '#!/bin/sh\n');
      expect(tuttiCommand({ PATH: dir })).toMatch(/^node /);
      await chmod(join(dir, 'tutti'), 0o755);
      expect(tuttiCommand({ PATH: `relative:${dir}` })).toBe('tutti');
      expect(tuttiCommand({ PATH: 'relative' })).toMatch(/^node /);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
