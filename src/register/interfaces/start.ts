/**
 * Starts the interfaces besides HTTP, as the `def` profile says at start:
 * - the file interface when `req/` and `res/` exist in the data folder, or in the folder FileWatch_path
 *   names (relative to the data folder; a network folder: polled every 300 ms);
 * - UDP on the HTTP port (or UdpServer_Port), on the HTTP listener's host, unless UdpServer_disable is
 *   set, the instance is a cloud instance (UDP carries no access token), or client certificates are
 *   required (`<data>/cer/client` exists: a datagram carries no certificate). When client certificates
 *   become required while the service runs (POST /cer/ca), the UDP socket is closed.
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
  /** the port the HTTP listener got (when port 0 was asked for); absent without HTTP listener */
  httpPort?: number | undefined;
  /** limits and timing of the file interface (tests) */
  file?: Omit<FileInterfaceOptions, 'folder' | 'polling'>;
  /** limits of UDP (tests) */
  udp?: UdpOptions;
}

export interface RunningInterfaces {
  file?: FileInterface;
  udp?: UdpInterface;
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

/** Where UDP listens: UdpServer_Port, else the HTTP port; the HTTP listener's host. */
export function udpTarget(def: Settings, options: InterfaceOptions): ListenTarget {
  const http = listenTarget(def, options);
  const text = def.raw.get('udpserver_port');
  const own = text !== undefined && /^\d{1,5}$/.test(text) && Number(text) >= 1 && Number(text) <= 65535 ? Number(text) : undefined;
  return { host: http.host, port: own ?? (http.port !== 0 ? http.port : (options.httpPort ?? 0)) };
}

export async function startInterfaces(ctx: ServiceContext, options: InterfaceOptions, logger?: LogSink): Promise<RunningInterfaces> {
  const running: RunningInterfaces = {
    async close() {
      await Promise.all([running.file?.close(), running.udp?.close()]);
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
      logger?.warn({ type: 'UDP', folder: clientDir(ctx.dataDir) }, NO_UDP_CERTIFICATES);
    } else {
      const udp = new UdpInterface(ctx, options.udp, logger);
      try {
        await udp.listen(udpTarget(ctx.profiles.settings('def'), options));
        running.udp = udp;
        // HttpServer_Port or UdpServer_Port changed by POST /profile: UDP follows the HTTP listener
        const previous = ctx.listenerSettingsChanged;
        ctx.listenerSettingsChanged = () => {
          previous?.();
          setImmediate(() => void udp.move(udpTarget(ctx.profiles.settings('def'), options)).catch(() => undefined));
        };
        // cer/client made while running (POST /cer/ca): no datagram is taken from then on (close() says so at once)
        let stopped = false;
        ctx.tls?.clientTrust.onChange(() => {
          if (stopped || !clientCertificatesRequired(ctx)) return;
          stopped = true;
          logger?.warn({ type: 'UDP', folder: clientDir(ctx.dataDir) }, `${NO_UDP_CERTIFICATES}; the UDP socket is closed`);
          void udp.close().catch(() => undefined);
        });
      } catch (e) {
        const t = udpTarget(ctx.profiles.settings('def'), options);
        logger?.error({ type: 'UDP', err: e, host: t.host, port: t.port }, `cannot open UDP ${t.host} port ${t.port}; no UDP interface`);
      }
    }
  } catch (e) {
    await running.close();
    throw e;
  }
  return running;
}
