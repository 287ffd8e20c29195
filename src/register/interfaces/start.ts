/**
 * Starts the interfaces besides HTTP, as the `def` profile says at start:
 * - the file interface when `req/` and `res/` exist in the data folder, or in the folder FileWatch_path
 *   names (relative to the data folder; a network folder: polled every 300 ms);
 * - UDP only when UdpServer_Port is set (profile attribute of `def` or its environment preset), on that
 *   port and the HTTP listener's host, unless UdpServer_disable is set, the instance is a cloud instance
 *   (UDP carries no access token), or client certificates are required (`<data>/cer/client` exists: a
 *   datagram carries no certificate). UDP answers a forged sender address, so it is off until an
 *   operator asks for it. UdpServer_Port set, changed or removed by POST /profile opens, moves or closes
 *   the socket. When client certificates become required while the service runs (POST /cer/ca), the UDP
 *   socket is closed and stays closed until the next start.
 */
import { existsSync, statSync } from 'node:fs';
import { isAbsolute, join, resolve } from 'node:path';
import type { ServiceContext } from '../context.js';
import { type ListenTarget, listenTarget } from '../listener.js';
import type { Settings } from '../profile/attributes.js';
import { clientDir } from '../security/client-certificates.js';
import type { LogSink } from '../security/tls-runtime.js';
import { FileInterface, type FileInterfaceOptions } from './file-interface.js';
import { UdpInterface, type UdpOptions } from './udp.js';

export interface InterfaceOptions {
  /** the HTTP listener's options (`--port`, `--host`) */
  port: number;
  host?: string | undefined;
  /** limits and timing of the file interface (tests) */
  file?: Omit<FileInterfaceOptions, 'folder' | 'polling'>;
  /** limits of UDP (tests) */
  udp?: UdpOptions;
}

export interface RunningInterfaces {
  file?: FileInterface;
  /** the UDP socket open now (it opens and closes with UdpServer_Port) */
  readonly udp: UdpInterface | undefined;
  close(): Promise<void>;
}

function truthy(v: string | undefined): boolean {
  return v !== undefined && !['false', '0', 'no', 'off'].includes(v.toLowerCase());
}

function isFolder(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

/** The folder of req/ and res/, and whether it is a network folder (FileWatch_path). */
export function fileFolder(def: Settings, dataDir: string): { folder: string; network: boolean } {
  const path = def.raw.get('filewatch_path')?.trim();
  if (path && path !== 'true') return { folder: isAbsolute(path) ? path : resolve(dataDir, path), network: true };
  return { folder: dataDir, network: false };
}

/** Client certificates are required for every request: `<data>/cer/client` exists (as the listener's trust read it). */
export function clientCertificatesRequired(ctx: ServiceContext): boolean {
  return ctx.tls ? ctx.tls.clientTrust.required : existsSync(clientDir(ctx.dataDir));
}

const NO_UDP_CERTIFICATES = 'client certificates are required (the folder cer/client exists): no UDP interface (a datagram carries no certificate)';

/** UdpServer_Port as a port number; undefined when it is not set or is no port 1-65535. */
export function udpPort(def: Settings): number | undefined {
  const text = def.raw.get('udpserver_port')?.trim();
  return text !== undefined && /^\d{1,5}$/.test(text) && Number(text) >= 1 && Number(text) <= 65535 ? Number(text) : undefined;
}

/** Where UDP listens: UdpServer_Port on the HTTP listener's host; undefined (no UDP) without UdpServer_Port. */
export function udpTarget(def: Settings, options: InterfaceOptions): ListenTarget | undefined {
  const port = udpPort(def);
  return port === undefined ? undefined : { host: listenTarget(def, options).host, port };
}

/**
 * The UDP socket as the `def` profile asks for it: opened when UdpServer_Port is set, moved when it changes,
 * closed when it is removed. One change at a time, in the order they came.
 */
class UdpControl {
  private udp: UdpInterface | undefined;
  /** closed, or client certificates became required: no UDP until the next start */
  private done = false;
  private queue: Promise<void> = Promise.resolve();

  constructor(
    private readonly ctx: ServiceContext,
    private readonly options: InterfaceOptions,
    private readonly logger: LogSink | undefined,
  ) {}

  private run(step: () => Promise<void>): Promise<void> {
    const next = this.queue.then(step);
    this.queue = next.catch((e: unknown) => this.logger?.error({ type: 'UDP', err: e }, 'UDP interface change failed'));
    return next;
  }

  get current(): UdpInterface | undefined {
    return this.udp;
  }

  /** Opens, moves or closes the socket as UdpServer_Port now says; `atStart` says so in the log when it stays off. */
  apply(atStart = false): Promise<void> {
    return this.run(async () => {
      if (this.done) return;
      const def = this.ctx.profiles.settings('def');
      const target = udpTarget(def, this.options);
      const udp = this.udp;
      if (!target) {
        const text = def.raw.get('udpserver_port');
        if (text !== undefined) this.logger?.warn({ type: 'UDP', value: text }, `UdpServer_Port "${text}" is no port number (1-65535); no UDP interface`);
        if (udp) {
          this.udp = undefined;
          await udp.close();
          this.logger?.info({ type: 'UDP' }, 'UdpServer_Port removed: the UDP socket is closed');
        } else if (text === undefined && atStart) {
          this.logger?.info({ type: 'UDP' }, 'UdpServer_Port not set: no UDP interface');
        }
        return;
      }
      if (udp) {
        await udp.move(target);
        return;
      }
      const opened = new UdpInterface(this.ctx, this.options.udp, this.logger);
      try {
        await opened.listen(target);
        // stopped while the socket was being opened
        if (this.done) await opened.close();
        else this.udp = opened;
      } catch (e) {
        await opened.close();
        this.logger?.error({ type: 'UDP', err: e, host: target.host, port: target.port }, `cannot open UDP ${target.host} port ${target.port}; no UDP interface`);
      }
    });
  }

  get stopped(): boolean {
    return this.done;
  }

  /** Client certificates are now required: the socket closes at once and nothing opens it again. */
  stop(): Promise<void> {
    this.done = true;
    const udp = this.udp;
    this.udp = undefined;
    // close() says so at once: no datagram is taken from then on, even while a move waits in the queue
    const closing = udp?.close() ?? Promise.resolve();
    return this.run(() => closing);
  }

  async close(): Promise<void> {
    this.done = true;
    await this.queue;
    const udp = this.udp;
    this.udp = undefined;
    await udp?.close();
  }
}

export async function startInterfaces(ctx: ServiceContext, options: InterfaceOptions, logger?: LogSink): Promise<RunningInterfaces> {
  let udp: UdpControl | undefined;
  const running: RunningInterfaces = {
    get udp() {
      return udp?.current;
    },
    async close() {
      await Promise.all([running.file?.close(), udp?.close()]);
    },
  };
  try {
    const { folder, network } = fileFolder(ctx.profiles.settings('def'), ctx.dataDir);
    if (isFolder(join(folder, 'req')) && isFolder(join(folder, 'res'))) {
      const file = new FileInterface(ctx, { ...options.file, folder, polling: network }, logger);
      try {
        await file.start();
        running.file = file;
      } catch (e) {
        // the service still answers over HTTP; the log says why the folders are not served
        await file.close();
        logger?.error({ type: 'FILE_IF', folder, err: e }, 'the file interface cannot start');
      }
    } else if (network) {
      logger?.warn({ type: 'FILE_IF', folder }, 'FileWatch_path names a folder without req/ and res/; no file interface');
    }
    const def = ctx.profiles.settings('def');
    if (truthy(def.raw.get('udpserver_disable'))) {
      logger?.info({ type: 'UDP' }, 'UdpServer_disable: no UDP interface');
    } else if (ctx.cloud) {
      logger?.info({ type: 'UDP' }, 'cloud instance: no UDP interface (a datagram carries no access token)');
    } else if (clientCertificatesRequired(ctx)) {
      if (udpPort(def) !== undefined) logger?.warn({ type: 'UDP', folder: clientDir(ctx.dataDir) }, NO_UDP_CERTIFICATES);
    } else {
      const control = new UdpControl(ctx, options, logger);
      udp = control;
      await control.apply(true);
      // HttpServer_IPv4 or UdpServer_Port changed by POST /profile: after its answer, as the HTTP listener
      const previous = ctx.listenerSettingsChanged;
      ctx.listenerSettingsChanged = () => {
        previous?.();
        setImmediate(() => void control.apply().catch(() => undefined));
      };
      // cer/client made while running (POST /cer/ca): no datagram is taken from then on
      ctx.tls?.clientTrust.onChange(() => {
        if (control.stopped || !clientCertificatesRequired(ctx)) return;
        if (control.current) logger?.warn({ type: 'UDP', folder: clientDir(ctx.dataDir) }, `${NO_UDP_CERTIFICATES}; the UDP socket is closed`);
        void control.stop().catch(() => undefined);
      });
    }
  } catch (e) {
    await running.close();
    throw e;
  }
  return running;
}
