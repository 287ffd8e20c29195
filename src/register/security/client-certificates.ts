/**
 * TLS client certificates: when `<data>/cer/client` exists, a request without a
 * trusted client certificate is refused with 403 and a Result naming the reason. Trust by whitelist
 * (.pem .crt .cer .der in that folder: the exact certificate, compared by SHA-256 fingerprint, within its
 * validity period) or by CA (`ca*.pem` in that folder: the chain is verified by TLS during the handshake).
 */
import { X509Certificate } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { Socket } from 'node:net';
import { TLSSocket } from 'node:tls';
import type { FastifyInstance } from 'fastify';
import type { Clock } from '../../shared/clock.js';
import { FiscalError } from '../../shared/errors.js';
import { writeFileAtomic } from '../../shared/files.js';
import type { ServiceContext } from '../context.js';
import { failureOf, failureReply } from '../respond.js';
import { formatOf, send } from '../routes/http.js';
import { isLocal } from './local-or-password.js';
import { cerDir } from './tls-certificate.js';

export function clientDir(dataDir: string): string {
  return join(cerDir(dataDir), 'client');
}

const WHITELIST_EXT = /\.(pem|crt|cer|der)$/i;
const CA_FILE = /^ca.*\.pem$/i;

/** Every certificate in the bytes: PEM (any number) or one DER certificate. */
export function parseCertificates(data: Buffer): X509Certificate[] {
  const text = data.toString('latin1');
  if (text.includes('-----BEGIN CERTIFICATE-----')) {
    return (text.match(/-----BEGIN CERTIFICATE-----[^-]+-----END CERTIFICATE-----/g) ?? []).map((pem) => new X509Certificate(pem));
  }
  return [new X509Certificate(data)];
}

export type Verdict = { ok: true } | { ok: false; reason: string };

interface Cached {
  generation: number;
  verdict: Verdict;
}

/** The trusted client certificates, read from `cer/client`. */
export class ClientTrust {
  private present = false;
  private whitelist = new Map<string, X509Certificate>();
  private cas: X509Certificate[] = [];
  private stamp = '';
  private generation = 0;
  private lastReload = 0;
  private readonly verdicts = new WeakMap<Socket, Cached>();
  private readonly listeners: Array<() => void> = [];
  /** problems found while reading the folder (files that are no certificate) */
  problems: string[] = [];

  constructor(
    private readonly dataDir: string,
    private readonly clock: Clock,
  ) {
    this.load();
  }

  /** Client certificates are required (the folder exists). */
  get required(): boolean {
    return this.present;
  }

  /** The CA certificates as PEM, for the `ca` option of TLS (an empty list: no CA, not the system's roots). */
  caPems(): string[] {
    return this.cas.map((c) => c.toString());
  }

  /** Every certificate in the folder (CAs and whitelisted ones), for GET /cer/<serial>. */
  certificates(): X509Certificate[] {
    return [...this.cas, ...this.whitelist.values()];
  }

  /** Called after the trust changed (the listener gives TLS the new CA list). */
  onChange(fn: () => void): void {
    this.listeners.push(fn);
  }

  private folderStamp(): string {
    const dir = clientDir(this.dataDir);
    if (!existsSync(dir)) return '';
    try {
      return readdirSync(dir)
        .sort()
        .map((name) => {
          const s = statSync(join(dir, name));
          return `${name}:${s.size}:${s.mtimeMs}`;
        })
        .join('|') || 'empty';
    } catch {
      return 'unreadable';
    }
  }

  /** Reads the folder again; tells the listeners when anything changed. */
  load(): void {
    const dir = clientDir(this.dataDir);
    const stamp = this.folderStamp();
    this.lastReload = Date.now();
    if (stamp === this.stamp && this.generation > 0) return;
    this.stamp = stamp;
    const whitelist = new Map<string, X509Certificate>();
    const cas: X509Certificate[] = [];
    const problems: string[] = [];
    this.present = existsSync(dir);
    if (this.present) {
      let names: string[] = [];
      try {
        names = readdirSync(dir).sort();
      } catch (e) {
        problems.push(`cannot read ${dir}: ${e instanceof Error ? e.message : String(e)}`);
      }
      for (const name of names) {
        if (!WHITELIST_EXT.test(name)) continue;
        let certs: X509Certificate[];
        try {
          certs = parseCertificates(readFileSync(join(dir, name)));
        } catch (e) {
          problems.push(`${name} is not a certificate (${e instanceof Error ? e.message : String(e)})`);
          continue;
        }
        if (CA_FILE.test(name)) cas.push(...certs);
        else for (const c of certs) whitelist.set(c.fingerprint256, c);
      }
    }
    this.whitelist = whitelist;
    this.cas = cas;
    this.problems = problems;
    this.generation++;
    for (const fn of this.listeners) fn();
  }

  /** Reads the folder again when a certificate was not trusted, at most every 5 seconds (a file copied in works without a restart). */
  private reloadSoon(): boolean {
    if (Date.now() - this.lastReload < 5000) return false;
    const before = this.generation;
    this.load();
    return this.generation !== before;
  }

  private judge(socket: Socket): Verdict {
    if (!(socket instanceof TLSSocket)) {
      return { ok: false, reason: 'the service has no usable server certificate, so it speaks plain HTTP and cannot check a client certificate; install one with POST /cer/ssl from this machine' };
    }
    const peer = socket.getPeerX509Certificate();
    if (!peer) return { ok: false, reason: 'no client certificate was presented' };
    const pinned = this.whitelist.get(peer.fingerprint256);
    if (pinned) {
      const now = this.clock.now().getTime();
      if (now > Date.parse(pinned.validTo)) return { ok: false, reason: `the client certificate (serial ${peer.serialNumber}) expired on ${pinned.validTo}` };
      if (now < Date.parse(pinned.validFrom)) return { ok: false, reason: `the client certificate (serial ${peer.serialNumber}) is valid only from ${pinned.validFrom}` };
      return { ok: true };
    }
    // the chain was verified against the ca*.pem certificates during the handshake
    if (socket.authorized && this.cas.length > 0) return { ok: true };
    const why = this.cas.length > 0 && socket.authorizationError ? ` (${String(socket.authorizationError)})` : '';
    return { ok: false, reason: `the client certificate "${peer.subject.replace(/\n/g, ', ')}" (serial ${peer.serialNumber}) is not trusted${why}` };
  }

  /** The verdict on a connection, once per connection and trust generation. `fresh` is true when it was just made. */
  check(socket: Socket): Verdict & { fresh: boolean } {
    const cached = this.verdicts.get(socket);
    if (cached && cached.generation === this.generation) return { ...cached.verdict, fresh: false };
    let verdict = this.judge(socket);
    if (!verdict.ok && socket instanceof TLSSocket && this.reloadSoon()) verdict = this.judge(socket);
    this.verdicts.set(socket, { generation: this.generation, verdict });
    return { ...verdict, fresh: true };
  }
}

/**
 * Stores uploaded CA certificates as `cer/client/ca-<n>.pem` (this also switches client certificates on);
 * a certificate stored already is not stored twice. Throws #CERTIFICATE when the body holds none.
 */
export function storeCaCertificates(dataDir: string, data: Buffer): { file: string; certificates: X509Certificate[]; stored: boolean } {
  let certs: X509Certificate[];
  try {
    certs = data.length === 0 ? [] : parseCertificates(data);
  } catch {
    throw new FiscalError('#CERTIFICATE', { detail: 'the body is no PEM or DER certificate' });
  }
  if (certs.length === 0) throw new FiscalError('#CERTIFICATE', { detail: 'no certificate given (raw PEM or DER body, JSON field caCert, or form field caCert)' });
  const dir = clientDir(dataDir);
  mkdirSync(dir, { recursive: true });
  let next = 1;
  /** fingerprint → file of the CA certificates stored already */
  const known = new Map<string, string>();
  for (const name of readdirSync(dir).sort()) {
    const n = /^ca-(\d+)\.pem$/i.exec(name);
    if (n) next = Math.max(next, Number(n[1]) + 1);
    if (!CA_FILE.test(name)) continue;
    try {
      for (const c of parseCertificates(readFileSync(join(dir, name)))) if (!known.has(c.fingerprint256)) known.set(c.fingerprint256, name);
    } catch {
      // an unreadable file is reported by ClientTrust
    }
  }
  const fresh = certs.filter((c) => !known.has(c.fingerprint256));
  if (fresh.length === 0) return { file: known.get(certs[0]?.fingerprint256 ?? '') ?? '', certificates: certs, stored: false };
  const file = `ca-${next}.pem`;
  writeFileAtomic(join(dir, file), fresh.map((c) => c.toString()).join(''));
  return { file, certificates: fresh, stored: true };
}

/** Routes a local administrator may still reach over plain HTTP while client certificates are required: to install a server certificate. */
const SETUP_ROUTES = new Set(['POST /cer/ssl', 'POST /cer/ca']);

/** Registers the onRequest hook that refuses requests without a trusted client certificate. */
export function clientCertificateHook(app: FastifyInstance, ctx: ServiceContext): void {
  app.addHook('onRequest', async (req, res) => {
    const trust = ctx.tls?.clientTrust;
    if (!trust || !trust.required) return;
    const verdict = trust.check(req.raw.socket);
    if (verdict.ok) return;
    const path = req.url.split('?')[0] ?? '';
    if (!ctx.tls?.https && isLocal(req) && SETUP_ROUTES.has(`${req.method} ${path}`)) return;
    if (verdict.fresh) req.log.warn({ remote: req.socket.remoteAddress, reason: verdict.reason }, 'request refused: no trusted TLS client certificate');
    const failure = failureOf(new FiscalError('#CLIENT_CERTIFICATE', { detail: verdict.reason }), ctx.registers.lang(ctx.registers.get('def')));
    // always 403, also with HttpServer_respond200: a POS must not take this for a processed request
    return send(res, failureReply(formatOf(req), 'Result', failure, false));
  });
}
