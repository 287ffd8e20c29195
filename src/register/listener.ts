/**
 * The HTTP(S) listener of the register service, apart from the Fastify app so that it can move: a
 * change of HttpServer_Port or HttpServer_IPv4 opens a new server on the new address first, then closes
 * the old one gracefully (no new connections; requests in flight are answered, with `Connection: close`,
 * and idle keep-alive connections are closed), so no transaction is lost.
 */
import { type IncomingMessage, type Server, type ServerResponse, createServer as createHttpServer } from 'node:http';
import { type ServerOptions as HttpsOptions, createServer as createHttpsServer } from 'node:https';
import { isIPv6 } from 'node:net';
import type { Settings } from './profile/attributes.js';
import type { LogSink } from './security/tls-runtime.js';

export interface ListenTarget {
  /** 0: any free port */
  port: number;
  host: string;
}

function truthy(v: string | undefined): boolean {
  return v !== undefined && !['false', '0', 'no', 'off'].includes(v.toLowerCase());
}

/**
 * Where to listen. Port: the `def` attribute HttpServer_Port (an environment setting
 * SVC_EFR_PROFILE_CFG__DOT__def__DOT__HttpServer_Port wins over the stored profile, as every environment
 * setting does), else `--port`. Host: `--host` (default 0.0.0.0, IPv4); HttpServer_IPv4 turns an IPv6 host
 * into its IPv4 counterpart: `::` (dual stack) into 0.0.0.0, `::1` into 127.0.0.1.
 */
export function listenTarget(def: Settings, options: { port: number; host?: string | undefined }, log?: LogSink): ListenTarget {
  let port = options.port;
  const text = def.raw.get('httpserver_port');
  if (text !== undefined && text !== '') {
    const n = Number(text);
    if (/^\d{1,5}$/.test(text) && n >= 1 && n <= 65535) port = n;
    else log?.warn({ type: 'LISTEN', value: text }, `HttpServer_Port "${text}" is no port number (1-65535); the listener stays on port ${options.port}`);
  }
  let host = options.host ?? '0.0.0.0';
  if (truthy(def.raw.get('httpserver_ipv4')) && isIPv6(host)) {
    const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(host)?.[1];
    if (host === '::') host = '0.0.0.0';
    else if (host === '::1') host = '127.0.0.1';
    else if (mapped) host = mapped;
    else log?.warn({ type: 'LISTEN', host }, `HttpServer_IPv4 is set, but --host ${host} is an IPv6 address with no IPv4 counterpart; the listener stays on it`);
  }
  return { port, host };
}

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

interface Timeouts {
  keepAliveTimeout: number;
  requestTimeout: number;
  connectionTimeout: number;
}

interface Open {
  server: Server;
  target: ListenTarget;
  inflight: Set<ServerResponse>;
}

/** A TLS server reads `requestCert` and `rejectUnauthorized` for each new connection; node's types do not name them. */
interface RequestCertSwitch {
  requestCert?: boolean;
  rejectUnauthorized?: boolean;
}

export class Listener {
  private current: Open | undefined;
  private readonly retiring = new Set<Promise<void>>();
  private readonly retired = new WeakSet<Server>();
  private queue: Promise<void> = Promise.resolve();
  private closed = false;

  constructor(
    private readonly handler: Handler,
    /** the HTTPS options, or undefined for plain HTTP; asked again for each new server */
    private readonly tls: () => HttpsOptions | undefined,
    private readonly timeouts: Timeouts,
    private readonly log?: LogSink,
  ) {}

  /** The port in use (the real one when 0 was asked for). */
  get port(): number {
    const address = this.current?.server.address();
    return typeof address === 'object' && address ? address.port : (this.current?.target.port ?? 0);
  }

  get target(): ListenTarget | undefined {
    return this.current ? { ...this.current.target } : undefined;
  }

  private create(): Open {
    const options = this.tls();
    const inflight = new Set<ServerResponse>();
    const open: Open = { server: undefined as unknown as Server, target: { port: 0, host: '' }, inflight };
    const handle: Handler = (req, res) => {
      inflight.add(res);
      res.once('close', () => {
        inflight.delete(res);
        // the connection is idle now: a server being closed lets it go
        if (this.retired.has(open.server)) setImmediate(() => open.server.closeIdleConnections());
      });
      if (this.retired.has(open.server)) res.setHeader('connection', 'close');
      this.handler(req, res);
    };
    const server = options ? createHttpsServer(options, handle) : createHttpServer(handle);
    server.keepAliveTimeout = this.timeouts.keepAliveTimeout;
    server.requestTimeout = this.timeouts.requestTimeout;
    server.setTimeout(this.timeouts.connectionTimeout);
    server.on('error', (e) => this.log?.error({ type: 'LISTEN', err: e }, 'listener error'));
    // a failed TLS handshake (a port scanner, a client that refuses our certificate) is no service error
    server.on('tlsClientError', () => undefined);
    open.server = server;
    return open;
  }

  private bind(open: Open, target: ListenTarget): Promise<void> {
    return new Promise((resolve, reject) => {
      const onError = (e: Error): void => {
        open.server.off('listening', onListening);
        reject(e);
      };
      const onListening = (): void => {
        open.server.off('error', onError);
        open.target = { ...target };
        resolve();
      };
      open.server.once('error', onError);
      open.server.once('listening', onListening);
      open.server.listen({ port: target.port, host: target.host });
    });
  }

  /** Stops accepting connections; resolves when the last request in flight was answered. */
  private retire(open: Open): Promise<void> {
    this.retired.add(open.server);
    const done = new Promise<void>((resolve) => {
      const force = setTimeout(() => open.server.closeAllConnections(), 30_000);
      force.unref();
      open.server.close(() => {
        clearTimeout(force);
        resolve();
      });
      for (const res of open.inflight) if (!res.headersSent) res.setHeader('connection', 'close');
      open.server.closeIdleConnections();
    });
    this.retiring.add(done);
    void done.then(() => this.retiring.delete(done));
    return done;
  }

  /** Opens the first server. */
  async listen(target: ListenTarget): Promise<void> {
    const open = this.create();
    await this.bind(open, target);
    this.current = open;
  }

  /** Moves to another address; keeps the old one (and logs) when the new one cannot be opened. Calls run one after the other. */
  move(target: ListenTarget): Promise<void> {
    const run = this.queue.then(() => this.moveNow(target));
    this.queue = run.catch(() => undefined);
    return run;
  }

  private async moveNow(target: ListenTarget): Promise<void> {
    const old = this.current;
    if (this.closed || !old) return;
    if (old.target.host === target.host && (old.target.port === target.port || target.port === this.port)) {
      old.target = { ...target };
      return;
    }
    const next = this.create();
    try {
      await this.bind(next, target);
    } catch (e) {
      const samePort = target.port !== 0 && target.port === this.port;
      if (!samePort || (e as NodeJS.ErrnoException).code !== 'EADDRINUSE') {
        this.log?.error({ type: 'LISTEN', err: e, port: target.port, host: target.host }, `cannot listen on ${target.host} port ${target.port}; the listener stays on ${old.target.host} port ${this.port}`);
        return;
      }
      // the same port on another address (IPv4 only instead of dual stack): the old one must let go first
      const oldPort = this.port;
      const retired = this.retire(old);
      this.current = undefined;
      const again = this.create();
      try {
        await this.bind(again, target);
        this.current = again;
      } catch (e2) {
        this.log?.error({ type: 'LISTEN', err: e2, port: target.port, host: target.host }, `cannot listen on ${target.host} port ${target.port}; back on ${old.target.host}`);
        const back = this.create();
        await this.bind(back, { port: oldPort, host: old.target.host });
        back.target = { ...old.target };
        this.current = back;
      }
      this.log?.info({ type: 'LISTEN', port: this.port, host: this.current.target.host }, 'listener moved');
      await retired;
      return;
    }
    this.current = next;
    this.log?.info({ type: 'LISTEN', port: this.port, host: target.host }, 'listener moved');
    void this.retire(old);
  }

  /** New TLS options (trusted CAs, whether a client certificate is asked for) for the next connections. */
  refreshTls(): void {
    const options = this.tls();
    const server = this.current?.server;
    if (!options || !server || !('setSecureContext' in server)) return;
    const tlsServer = server as Server & { setSecureContext(o: HttpsOptions): void } & RequestCertSwitch;
    tlsServer.setSecureContext(options);
    tlsServer.requestCert = options.requestCert === true;
    tlsServer.rejectUnauthorized = options.rejectUnauthorized !== false;
  }

  /** Stops listening; resolves when every request in flight was answered. */
  async close(): Promise<void> {
    this.closed = true;
    await this.queue;
    const open = this.current;
    this.current = undefined;
    if (open) void this.retire(open);
    await Promise.all([...this.retiring]);
  }
}
