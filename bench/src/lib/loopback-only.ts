/**
 * Preload (`node --import`) for peers that have no host option (supergateway): every TCP
 * listen that names no host, or a wildcard host, binds 127.0.0.1 instead.
 */
import net from 'node:net';

const WILDCARDS = new Set<unknown>([undefined, '', '::', '0.0.0.0']);
const listen = net.Server.prototype.listen as (this: net.Server, ...args: unknown[]) => net.Server;

net.Server.prototype.listen = function listenOnLoopback(this: net.Server, ...args: unknown[]) {
  const [first] = args as [unknown];
  if (typeof first === 'number' || (typeof first === 'string' && /^\d+$/.test(first))) {
    const callback = args.find((arg) => typeof arg === 'function');
    const backlog = typeof args[2] === 'number' ? args[2] : undefined;
    const host = typeof args[1] === 'string' && !WILDCARDS.has(args[1]) ? args[1] : '127.0.0.1';
    return listen.call(this, { port: Number(first), host, backlog }, callback);
  }
  const options = first as net.ListenOptions | null;
  if (
    options &&
    typeof options === 'object' &&
    options.path === undefined &&
    WILDCARDS.has(options.host)
  ) {
    return listen.call(this, { ...options, host: '127.0.0.1' }, ...args.slice(1));
  }
  return listen.apply(this, args);
} as typeof net.Server.prototype.listen;
