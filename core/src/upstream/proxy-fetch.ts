/**
 * The fetch of remote (Streamable HTTP) connectors behind a proxy: Node 20's own `fetch`
 * ignores `HTTP_PROXY`, `HTTPS_PROXY` and `NO_PROXY`, so a daemon on a machine that reaches
 * the internet only through a proxy could never reach a remote connector. With any of them
 * set, requests go through undici's `EnvHttpProxyAgent`, which honours all three (upper or
 * lower case) as curl does. One agent per proxy setting, shared by the daemon's upstreams
 * as Node's own global dispatcher would be. undici is loaded on the first request through
 * a proxy: it is the largest import of the daemon (about 140 ms of a start's CPU), and most
 * machines set no proxy.
 */
import type { FetchLike } from '@modelcontextprotocol/client';
import type { EnvHttpProxyAgent, fetch as UndiciFetch } from 'undici';

type ProxyEnv = Readonly<Record<string, string | undefined>>;

interface ProxiedFetch {
  readonly agent: EnvHttpProxyAgent;
  readonly fetch: typeof UndiciFetch;
}

const agents = new Map<string, Promise<ProxiedFetch>>();

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
  const proxied = () => {
    let loading = agents.get(key);
    if (!loading) {
      loading = import('undici').then((undici) => ({
        agent: new undici.EnvHttpProxyAgent(settings),
        fetch: undici.fetch,
      }));
      // A failure (a malformed proxy URL) is answered to this request and tried again next.
      loading.catch(() => agents.delete(key));
      agents.set(key, loading);
    }
    return loading;
  };
  return (async (url, init) => {
    const { agent, fetch } = await proxied();
    return fetch(url, { ...(init as Parameters<typeof UndiciFetch>[1]), dispatcher: agent });
  }) as FetchLike;
}
