/**
 * The fetch of remote (Streamable HTTP) connectors behind a proxy: Node 20's own `fetch`
 * ignores `HTTP_PROXY`, `HTTPS_PROXY` and `NO_PROXY`, so a daemon on a machine that reaches
 * the internet only through a proxy could never reach a remote connector. With any of them
 * set, requests go through undici's `EnvHttpProxyAgent`, which honours all three (upper or
 * lower case) as curl does. One agent per proxy setting, shared by the daemon's upstreams
 * as Node's own global dispatcher would be.
 */
import type { FetchLike } from '@modelcontextprotocol/client';
import { EnvHttpProxyAgent, fetch as undiciFetch } from 'undici';

type ProxyEnv = Readonly<Record<string, string | undefined>>;

const agents = new Map<string, EnvHttpProxyAgent>();

function setting(env: ProxyEnv, name: string): string | undefined {
  const value = env[name] ?? env[name.toLowerCase()];
  return value === undefined || value === '' ? undefined : value;
}

/** The proxy settings of `env` (`HTTP_PROXY`, `HTTPS_PROXY`, `NO_PROXY`, either case). */
export function proxySettings(env: ProxyEnv): {
  httpProxy?: string;
  httpsProxy?: string;
  noProxy?: string;
} {
  const httpProxy = setting(env, 'HTTP_PROXY');
  const httpsProxy = setting(env, 'HTTPS_PROXY');
  const noProxy = setting(env, 'NO_PROXY');
  return {
    ...(httpProxy !== undefined && { httpProxy }),
    ...(httpsProxy !== undefined && { httpsProxy }),
    ...(noProxy !== undefined && { noProxy }),
  };
}

/** A fetch through the proxy `env` names, or undefined when it names none (plain fetch). */
export function proxyFetch(env: ProxyEnv = process.env): FetchLike | undefined {
  const settings = proxySettings(env);
  if (settings.httpProxy === undefined && settings.httpsProxy === undefined) return undefined;
  const key = JSON.stringify(settings);
  let agent = agents.get(key);
  if (!agent) {
    agent = new EnvHttpProxyAgent(settings);
    agents.set(key, agent);
  }
  const dispatcher = agent;
  return ((url, init) =>
    undiciFetch(url, {
      ...(init as Parameters<typeof undiciFetch>[1]),
      dispatcher,
    })) as FetchLike;
}
