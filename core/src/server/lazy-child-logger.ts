/**
 * The per-request logger fastify hands each request (`request.log`), built only when the
 * request logs something.
 *
 * Why: fastify makes a pino child (bound to the request id) for every request, which
 * serializes its bindings at once. Almost no request of this server logs, and that child
 * was measurable on the call path (docs/benchmarks.md).
 */
import type { FastifyBaseLogger } from 'fastify';

type Bindings = Parameters<FastifyBaseLogger['child']>[0];
type ChildOptions = Parameters<FastifyBaseLogger['child']>[1];
type LogArgs = Parameters<FastifyBaseLogger['info']>;

/** A logger that makes `parent.child(bindings, options)` on its first use. */
class LazyChildLogger implements FastifyBaseLogger {
  readonly #parent: FastifyBaseLogger;
  readonly #bindings: Bindings;
  readonly #options: ChildOptions;
  #child: FastifyBaseLogger | undefined;

  constructor(parent: FastifyBaseLogger, bindings: Bindings, options: ChildOptions) {
    this.#parent = parent;
    this.#bindings = bindings;
    this.#options = options;
  }

  #real(): FastifyBaseLogger {
    this.#child ??= this.#parent.child(this.#bindings, this.#options);
    return this.#child;
  }

  get level(): FastifyBaseLogger['level'] {
    return this.#child ? this.#child.level : (this.#options?.level ?? this.#parent.level);
  }

  set level(level: FastifyBaseLogger['level']) {
    this.#real().level = level;
  }

  fatal(...args: LogArgs): void {
    this.#real().fatal(...args);
  }

  error(...args: LogArgs): void {
    this.#real().error(...args);
  }

  warn(...args: LogArgs): void {
    this.#real().warn(...args);
  }

  info(...args: LogArgs): void {
    this.#real().info(...args);
  }

  debug(...args: LogArgs): void {
    this.#real().debug(...args);
  }

  trace(...args: LogArgs): void {
    this.#real().trace(...args);
  }

  silent(...args: LogArgs): void {
    this.#real().silent(...args);
  }

  child(bindings: Bindings, options?: ChildOptions): FastifyBaseLogger {
    return this.#real().child(bindings, options);
  }
}

/** fastify's `childLoggerFactory`: a {@link LazyChildLogger} per request. */
export function lazyChildLoggerFactory(
  logger: FastifyBaseLogger,
  bindings: Bindings,
  options: ChildOptions,
): FastifyBaseLogger {
  return new LazyChildLogger(logger, bindings, options);
}
