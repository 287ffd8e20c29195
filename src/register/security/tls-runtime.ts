/**
 * The TLS state of a running service: the server certificate read at start (HTTPS, or plain HTTP when
 * there is none or it cannot be used) and the trusted client certificates. Read once at start; the
 * client trust also after POST /cer/ca.
 */
import type { ServerOptions } from 'node:https';
import type { Clock } from '../../shared/clock.js';
import { ClientTrust, clientDir } from './client-certificates.js';
import { type ServerCertificate, loadServerCertificate } from './tls-certificate.js';

export interface TlsRuntime {
  /** the listener speaks HTTPS */
  readonly https: boolean;
  /** the server certificate in use */
  readonly server: ServerCertificate | undefined;
  readonly clientTrust: ClientTrust;
  /** SVC_EFR_SSL_CERT and SVC_EFR_SSL_PASSWORD are set (they win over an uploaded certificate and its password) */
  readonly envCertificate: boolean;
  readonly envPassword: boolean;
}

/** What the service writes to its log: a pino logger fits. */
export interface LogSink {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
}

export function openTls(dataDir: string, env: NodeJS.ProcessEnv, clock: Clock, log?: LogSink): TlsRuntime {
  const load = loadServerCertificate(dataDir, env, clock.now());
  for (const note of load.notes) log?.warn({ type: 'TLS' }, note);
  let server: ServerCertificate | undefined;
  if (load.state === 'ok') {
    server = load.certificate;
    const leaf = server.certificates[0];
    log?.info(
      { type: 'TLS', source: server.source, reader: server.reader, subject: leaf?.subject, serial: leaf?.serialNumber, validTo: leaf?.validTo },
      'HTTPS with the server certificate',
    );
  } else if (load.state === 'unusable') {
    log?.error({ type: 'TLS', source: load.source, reason: load.reason }, `the server certificate ${load.source} cannot be used (${load.reason}); serving plain HTTP`);
  }
  const clientTrust = new ClientTrust(dataDir, clock);
  for (const problem of clientTrust.problems) log?.warn({ type: 'TLS' }, `client certificates: ${problem}`);
  if (clientTrust.required && !server) {
    log?.error(
      { type: 'TLS', folder: clientDir(dataDir) },
      'client certificates are required (the folder cer/client exists) but there is no usable server certificate: over plain HTTP no client certificate can be checked, so every request is refused (except POST /cer/ssl and /cer/ca from this machine)',
    );
  }
  return { https: server !== undefined, server, clientTrust, envCertificate: Boolean(env.SVC_EFR_SSL_CERT), envPassword: env.SVC_EFR_SSL_PASSWORD !== undefined };
}

/** The options of the HTTPS server: the certificate, and when client certificates are required, a request for one checked against the CAs. */
export function tlsServerOptions(rt: TlsRuntime): ServerOptions | undefined {
  if (!rt.server) return undefined;
  const base: ServerOptions = { ...rt.server.tls };
  if (!rt.clientTrust.required) return base;
  // rejectUnauthorized false: the handshake succeeds and the request is refused with a readable answer
  return { ...base, requestCert: true, rejectUnauthorized: false, ca: rt.clientTrust.caPems() };
}
