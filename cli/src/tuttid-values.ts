/**
 * The readers of `tuttid`'s option values (ports, counts, sizes, modes, URLs, the
 * OpenTelemetry variables): each answers the value or refuses it with
 * TUTTI_ERR_DAEMON_BAD_ARGUMENT saying what the option takes.
 */
import { resolve } from 'node:path';
import { type CredentialStoreMode, SANDBOX_MODES, type SandboxMode, TuttiError } from '@tutti/core';
import { checkDownloadUrl, sampleRatioOf, tracesEndpointOf } from '@tutti/core/internal';
import { DEFAULT_LOG_FILES } from './daemon-log/log-file.js';

export function portOf(value: string | undefined, flag: string): number {
  if (value === undefined) return 0;
  const port = Number(value);
  if (!Number.isInteger(port) || port < 0 || port > 65_535) {
    throw new TuttiError('TUTTI_ERR_DAEMON_BAD_ARGUMENT', {
      problem: `${flag} takes a port number`,
    });
  }
  return port;
}

export function countOf(value: string | undefined, flag: string): number | undefined {
  if (value === undefined) return undefined;
  const count = Number(value);
  if (!/^\d+$/.test(value) || !Number.isSafeInteger(count) || count < 1) {
    throw new TuttiError('TUTTI_ERR_DAEMON_BAD_ARGUMENT', {
      problem: `${flag} takes a whole number from 1 up`,
    });
  }
  return count;
}

/**
 * `--agent-registry`: a URL by the installer's download rules (https, or http on this
 * machine only, since the index pins the checksums of the binaries it names), else a file
 * path, made absolute.
 */
export function agentRegistryOf(value: string | undefined): { agentRegistry?: string } {
  if (value === undefined) return {};
  if (!/^[a-z][a-z0-9+.-]*:\/\//i.test(value)) {
    if (value.trim() === '' || value.includes('\0')) {
      throw new TuttiError('TUTTI_ERR_DAEMON_BAD_ARGUMENT', {
        problem: '--agent-registry takes the path of a registry.json file or its https URL',
      });
    }
    return { agentRegistry: resolve(value) };
  }
  try {
    return { agentRegistry: checkDownloadUrl(value).href };
  } catch {
    throw new TuttiError('TUTTI_ERR_DAEMON_BAD_ARGUMENT', {
      problem:
        '--agent-registry takes a file path or an https URL (http only on 127.0.0.1), e.g. https://example.com/registry.json',
    });
  }
}

/** The sample ratio the OTEL sampler variables ask for; a sampler tuttid cannot follow is refused. */
export function sampleOf(env: NodeJS.ProcessEnv): { sampleRatio?: number } {
  const sampler = env.OTEL_TRACES_SAMPLER?.trim();
  if (!sampler || sampler === 'parentbased_always_on' || sampler === 'always_on') return {};
  const ratio = sampleRatioOf(env);
  if (ratio === undefined) {
    throw new TuttiError('TUTTI_ERR_DAEMON_BAD_ARGUMENT', {
      problem:
        'OTEL_TRACES_SAMPLER takes parentbased_traceidratio (or traceidratio) with OTEL_TRACES_SAMPLER_ARG a ratio from 0 to 1, or parentbased_always_on',
    });
  }
  return { sampleRatio: ratio };
}

/**
 * The OTLP traces URL: `--otlp-endpoint` (a collector's base http(s) URL) with `/v1/traces`,
 * else what the standard OpenTelemetry variables name, else none.
 */
export function endpointOf(
  value: string | undefined,
  env: NodeJS.ProcessEnv,
): { endpoint?: string } {
  const endpoint =
    value === undefined
      ? tracesEndpointOf(env)
      : tracesEndpointOf({ OTEL_EXPORTER_OTLP_ENDPOINT: value });
  if (endpoint === undefined) return {};
  let url: URL | undefined;
  try {
    url = new URL(endpoint);
  } catch {
    url = undefined;
  }
  if (url?.protocol !== 'http:' && url?.protocol !== 'https:') {
    throw new TuttiError('TUTTI_ERR_DAEMON_BAD_ARGUMENT', {
      problem: `${value === undefined ? 'the OTEL_EXPORTER_OTLP endpoint variable' : '--otlp-endpoint'} takes an http or https URL, e.g. http://127.0.0.1:4318`,
    });
  }
  return { endpoint: url.href };
}

/**
 * A client ID metadata document's URL: https with a path (the MCP authorization
 * specification's rule), as `--oauth-client-metadata-url` takes it.
 */
export function clientMetadataUrlOf(value: string | undefined): {
  oauthClientMetadataUrl?: string;
} {
  if (value === undefined) return {};
  let url: URL | undefined;
  try {
    url = new URL(value);
  } catch {
    url = undefined;
  }
  if (url?.protocol !== 'https:' || url.pathname === '/' || url.hash) {
    throw new TuttiError('TUTTI_ERR_DAEMON_BAD_ARGUMENT', {
      problem:
        '--oauth-client-metadata-url takes an https URL with a path, e.g. https://example.com/tutti/client.json',
    });
  }
  return { oauthClientMetadataUrl: url.href };
}

const CREDENTIAL_STORES: readonly CredentialStoreMode[] = ['auto', 'keychain', 'file'];

export function credentialStoreOf(value: string | undefined): CredentialStoreMode {
  if (value === undefined) return 'auto';
  const mode = CREDENTIAL_STORES.find((store) => store === value);
  if (!mode) {
    throw new TuttiError('TUTTI_ERR_DAEMON_BAD_ARGUMENT', {
      problem: '--credential-store takes auto, keychain or file',
    });
  }
  return mode;
}

export function sandboxOf(value: string | undefined): SandboxMode {
  if (value === undefined) return 'auto';
  const mode = SANDBOX_MODES.find((known) => known === value);
  if (!mode) {
    throw new TuttiError('TUTTI_ERR_DAEMON_BAD_ARGUMENT', {
      problem: '--sandbox takes auto, required or off',
    });
  }
  return mode;
}

const LOG_LEVELS = ['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent'];

export function logLevelOf(value: string): string {
  if (!LOG_LEVELS.includes(value)) {
    throw new TuttiError('TUTTI_ERR_DAEMON_BAD_ARGUMENT', {
      problem: `--log-level takes one of ${LOG_LEVELS.join(', ')}`,
    });
  }
  return value;
}

export function wholeOf(value: string | undefined, flag: string): number {
  if (value === undefined) return DEFAULT_LOG_FILES;
  if (!/^\d+$/.test(value) || !Number.isSafeInteger(Number(value))) {
    throw new TuttiError('TUTTI_ERR_DAEMON_BAD_ARGUMENT', {
      problem: `${flag} takes a whole number from 0 up`,
    });
  }
  return Number(value);
}

export function megabytesOf(value: string): number {
  const megabytes = Number(value);
  if (!Number.isInteger(megabytes) || megabytes < 1) {
    throw new TuttiError('TUTTI_ERR_DAEMON_BAD_ARGUMENT', {
      problem: '--max-release-mb takes a whole number of MiB, at least 1',
    });
  }
  return megabytes;
}
