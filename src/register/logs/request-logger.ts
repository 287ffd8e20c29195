/**
 * The logger Fastify gives each request (`req.log`), made only when the request logs something. Fastify
 * makes a pino child with the request id for every request; with the service log's redaction that is a
 * noticeable part of a receipt's time, and nearly every request logs nothing. The child, when made, has the
 * same bindings (reqId) and options as Fastify's own, and the level set on the request meanwhile.
 */
import type { FastifyBaseLogger } from 'fastify';
import type pino from 'pino';

type Bindings = pino.Bindings;
type ChildOptions = pino.ChildLoggerOptions;
type Level = FastifyBaseLogger['level'];
type Method = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';

class LazyRequestLogger implements FastifyBaseLogger {
  private made: FastifyBaseLogger | undefined;
  private ownLevel: Level | undefined;

  constructor(
    private readonly parent: FastifyBaseLogger,
    private readonly bindings: Bindings,
    private readonly options: ChildOptions,
  ) {}

  private logger(): FastifyBaseLogger {
    if (this.made === undefined) {
      this.made = this.parent.child(this.bindings, this.options);
      if (this.ownLevel !== undefined) this.made.level = this.ownLevel;
    }
    return this.made;
  }

  get level(): Level {
    return this.made?.level ?? this.ownLevel ?? this.parent.level;
  }

  set level(level: Level) {
    if (this.made !== undefined) this.made.level = level;
    else this.ownLevel = level;
  }

  private log(method: Method, args: unknown[]): void {
    const logger = this.logger();
    (logger[method] as (...a: unknown[]) => void).apply(logger, args);
  }

  fatal(...args: unknown[]): void {
    this.log('fatal', args);
  }

  error(...args: unknown[]): void {
    this.log('error', args);
  }

  warn(...args: unknown[]): void {
    this.log('warn', args);
  }

  info(...args: unknown[]): void {
    this.log('info', args);
  }

  debug(...args: unknown[]): void {
    this.log('debug', args);
  }

  trace(...args: unknown[]): void {
    this.log('trace', args);
  }

  silent(...args: unknown[]): void {
    this.log('silent', args);
  }

  child(bindings: Bindings, options?: ChildOptions): FastifyBaseLogger {
    return this.logger().child(bindings, options);
  }
}

/** Fastify's childLoggerFactory: the request's logger, made on its first use. */
export function lazyRequestLogger(parent: FastifyBaseLogger, bindings: Bindings, options: ChildOptions): FastifyBaseLogger {
  return new LazyRequestLogger(parent, bindings, options);
}
