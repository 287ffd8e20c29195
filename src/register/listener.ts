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

/**
 * How long a client may take to send its request. Receiving only: once a request has arrived, its answer
 * may take as long as it takes (a transaction waiting for its register, an export), and the connection
 * stays open while nothing flows, so the socket has no idle timeout (`connectionTimeout` 0).
 */
export interface Timeouts {
  keepAliveTimeout: number;
  /** the request line and headers, from the connection's opening or the request's first byte (node's headersTimeout) */
  headersTimeout: number;
  /** the body, after the headers, plus its Content-Length at MIN_BODY_RATE (BodyWatch) */
  requestTimeout: number;
  /** the longest a body may pause, however long it may take in all (BodyWatch) */
  bodyIdleTimeout: number;
  connectionTimeout: number;
}

/**
 * A POS sends its request line and headers in one write: 15 s leave room for a few TCP retransmissions
 * on a bad link, and cut a client that sends its headers a byte at a time (or nothing) soon.
 */
export const HEADERS_TIMEOUT_MS = 15_000;
/**
 * 30 s for a body after its headers, plus the time its Content-Length needs at MIN_BODY_RATE: a
 * transaction (at most 2 MiB) gets about a minute, a backup zip uploaded to POST /backup/restore
 * (up to 1 GiB) hours, while a body that trickles in a byte at a time is cut after 30 s.
 */
export const REQUEST_TIMEOUT_MS = 30_000;
/** 64 KiB/s (half a megabit per second): below any LAN and most mobile links. */
export const MIN_BODY_RATE = 64 * 1024;
/** A body that makes no progress for 15 s is cut, also a large upload within its time. */
export const BODY_IDLE_TIMEOUT_MS = 15_000;

/** A whole number of milliseconds from the environment, else the default (0 and nonsense too: no timeout is no choice). */
function msOf(text: string | undefined, fallback: number): number {
  return text !== undefined && /^\d{1,9}$/.test(text.trim()) && Number(text) > 0 ? Number(text) : fallback;
}

/**
 * The receive timeouts: EFR_HEADERS_TIMEOUT_MS, EFR_REQUEST_TIMEOUT_MS and EFR_BODY_IDLE_TIMEOUT_MS of the
 * environment, else the defaults above.
 */
export function receiveTimeoutsOf(env: NodeJS.ProcessEnv): Pick<Timeouts, 'headersTimeout' | 'requestTimeout' | 'bodyIdleTimeout'> {
  return {
    headersTimeout: msOf(env.EFR_HEADERS_TIMEOUT_MS, HEADERS_TIMEOUT_MS),
    requestTimeout: msOf(env.EFR_REQUEST_TIMEOUT_MS, REQUEST_TIMEOUT_MS),
    bodyIdleTimeout: msOf(env.EFR_BODY_IDLE_TIMEOUT_MS, BODY_IDLE_TIMEOUT_MS),
  };
}

/**
 * How often the timeouts are looked at (node's connectionsCheckingInterval and BodyWatch): a quarter of the
 * shortest, at most a second, so that a cut comes within a second of its time (node's default is 30 s).
 */
function checkEveryOf(t: Timeouts): number {
  return Math.max(50, Math.min(1000, Math.floor(Math.min(t.headersTimeout, t.requestTimeout, t.bodyIdleTimeout) / 4)));
}

/** What node itself answers to a request that took too long to arrive. */
const TIMEOUT_408 = 'HTTP/1.1 408 Request Timeout\r\nConnection: close\r\n\r\n';

interface Upload {
  req: IncomingMessage;
  res: ServerResponse;
  started: number;
  /** ms the body may take while the request is still to be answered */
  allowed: number;
  /** the socket's bytes read when last looked at, and when they last grew */
  bytes: number;
  progressAt: number;
}

/**
 * The body timeouts, which node cannot give per request: its requestTimeout is one time for every request
 * of a server, and a time that lets a 1 GiB backup arrive would let a slow client hold a connection to
 * POST /register for as long. A body being received is looked at every `checkEvery` ms; it is cut (408 when
 * nothing was answered yet, and the connection closed) when it is later than its time or has not grown
 * for bodyIdleTimeout. A body that waits because the service has not read it yet (bytes are waiting for
 * the handler) is not the client's delay and is not cut. Once the request is answered (a refusal before
 * its body was read), node still reads the rest to keep the connection: that gets the plain
 * requestTimeout, not the allowance for a large upload.
 */
class BodyWatch {
  private readonly uploads = new Set<Upload>();
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly timeouts: Timeouts,
    private readonly checkEvery: number,
    private readonly log?: LogSink,
  ) {}

  add(req: IncomingMessage, res: ServerResponse): void {
    const length = Number(req.headers['content-length'] ?? 0);
    if (!(length > 0) && req.headers['transfer-encoding'] === undefined) return;
    const now = Date.now();
    const allowed = this.timeouts.requestTimeout + (length > 0 ? Math.ceil((length / MIN_BODY_RATE) * 1000) : 0);
    this.uploads.add({ req, res, started: now, allowed, bytes: req.socket.bytesRead, progressAt: now });
    if (!this.timer) {
      this.timer = setInterval(() => this.check(), this.checkEvery);
      this.timer.unref();
    }
  }

  private check(): void {
    const now = Date.now();
    for (const u of this.uploads) {
      const { req, res } = u;
      const socket = req.socket;
      if (req.complete || socket.destroyed) {
        this.uploads.delete(u);
        continue;
      }
      const bytes = socket.bytesRead;
      if (bytes !== u.bytes || req.readableLength > 0) {
        u.bytes = bytes;
        u.progressAt = now;
      }
      const allowed = res.headersSent ? this.timeouts.requestTimeout : u.allowed;
      const late = now - u.started > allowed && req.readableLength === 0;
      const stalled = now - u.progressAt > this.timeouts.bodyIdleTimeout;
      if (!late && !stalled) continue;
      this.uploads.delete(u);
      this.log?.info(
        { type: 'TIMEOUT', method: req.method, url: req.url?.split('?')[0], remote: socket.remoteAddress, received: bytes, ms: now - u.started },
        late ? 'request body not received in time; connection closed' : 'request body stalled; connection closed',
      );
      if (socket.writable && !res.headersSent) socket.write(TIMEOUT_408);
      socket.destroy();
    }
    if (this.uploads.size === 0 && this.timer) {
      clearInterval(this.timer);
      this.timer = undefined;
    }
  }

  close(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    this.uploads.clear();
  }
}

interface Open {
  server: Server;
  target: ListenTarget;
  inflight: Set<ServerResponse>;
  bodies: BodyWatch;
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
    const checkEvery = checkEveryOf(this.timeouts);
    const bodies = new BodyWatch(this.timeouts, checkEvery, this.log);
    const open: Open = { server: undefined as unknown as Server, target: { port: 0, host: '' }, inflight, bodies };
    const handle: Handler = (req, res) => {
      bodies.add(req, res);
      inflight.add(res);
      res.once('close', () => {
        inflight.delete(res);
        // the connection is idle now: a server being closed lets it go
        if (this.retired.has(open.server)) setImmediate(() => open.server.closeIdleConnections());
      });
      if (this.retired.has(open.server)) res.setHeader('connection', 'close');
      this.handler(req, res);
    };
    const server = options ? createHttpsServer({ ...options, connectionsCheckingInterval: checkEvery }, handle) : createHttpServer({ connectionsCheckingInterval: checkEvery }, handle);
    server.keepAliveTimeout = this.timeouts.keepAliveTimeout;
    server.headersTimeout = this.timeouts.headersTimeout;
    // bodies have their own times (BodyWatch); node's single requestTimeout would cut a large upload
    server.requestTimeout = 0;
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
        open.bodies.close();
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
