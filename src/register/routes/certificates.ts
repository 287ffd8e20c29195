/**
 * POST /cer/ssl, POST /cer/ca, GET /cer/<serial>, GET /authorization: the server certificate, the trusted client CAs, the communication certificate.
 * Uploads are binary: this plugin's scope reads bodies as bytes (not as text like the other routes)
 * and has its own multipart parser.
 */
import { existsSync } from 'node:fs';
import type { X509Certificate } from 'node:crypto';
import multipart from '@fastify/multipart';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { FiscalError } from '../../shared/errors.js';
import type { Obj, Value } from '../codec/index.js';
import type { ServiceContext } from '../context.js';
import { rnOfQuery } from '../register-number.js';
import { configChanged } from '../cfg.js';
import { storeCaCertificates } from '../security/client-certificates.js';
import { authorizationJwt, communicationCertificate, communicationFile, normalSerial } from '../security/communication-certificate.js';
import { requireLocalOrPassword } from '../security/local-or-password.js';
import { storeServerCertificate } from '../security/tls-certificate.js';
import { fiscalCertificate, fiscalCertificateView, fiscalCertificateWarnings, storeFiscalCertificate } from '../fiscal/certificate-store.js';
import { moduleFor } from '../fiscal/registry.js';
import { formatOf, guarded, queryOf, sendDoc } from './http.js';

const MAX_CERTIFICATE_BYTES = 1024 * 1024;
const ROOT = 'CertificateC';

interface Upload {
  data: Buffer;
  /** a `password` field of the JSON or form body */
  password?: string;
}

function isJson(req: FastifyRequest, body: Buffer): boolean {
  const type = req.headers['content-type'];
  if (type) return /[/+]json\b/i.test(type);
  return body[0] === 0x7b; // '{'
}

/** A certificate given as text: PEM as it is, else base64 of the binary file. */
function fromText(text: string, pemAllowed: boolean): Buffer {
  if (pemAllowed && text.includes('-----BEGIN')) return Buffer.from(text, 'utf8');
  const compact = text.replace(/\s+/g, '');
  if (!/^[A-Za-z0-9+/_-]*={0,2}$/.test(compact)) throw new FiscalError('#CERTIFICATE', { detail: `cannot decode: the text is not base64${pemAllowed ? ' or PEM' : ''}` });
  return Buffer.from(compact, compact.includes('-') || compact.includes('_') ? 'base64url' : 'base64');
}

/** The file of an upload: multipart form field `field`, JSON field `jsonField` (base64, or PEM where allowed), or the raw body. */
async function uploadOf(req: FastifyRequest, field: string, jsonField: string, pemAllowed: boolean): Promise<Upload> {
  if (req.isMultipart()) {
    let data: Buffer | undefined;
    let password: string | undefined;
    try {
      for await (const part of req.parts({ limits: { fileSize: MAX_CERTIFICATE_BYTES, files: 3, fields: 10, parts: 13 } })) {
        if (part.type === 'file') {
          // every file part is read to its end, or the later parts never arrive
          const bytes = await part.toBuffer();
          if (part.fieldname === field && data === undefined) data = bytes;
        } else if (part.fieldname === field && data === undefined && typeof part.value === 'string') {
          data = fromText(part.value, pemAllowed);
        } else if (part.fieldname === 'password' && typeof part.value === 'string') {
          password = part.value;
        }
      }
    } catch (e) {
      if (e instanceof FiscalError) throw e;
      const code = (e as { code?: unknown }).code;
      if (code === 'FST_REQ_FILE_TOO_LARGE') throw new FiscalError('#TOO_LARGE', { value: MAX_CERTIFICATE_BYTES });
      throw new FiscalError('#MALFORMED', { format: 'multipart form', detail: e instanceof Error ? e.message : String(e) });
    }
    return { data: data ?? Buffer.alloc(0), ...(password === undefined ? {} : { password }) };
  }
  const body = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
  if (body.length > MAX_CERTIFICATE_BYTES) throw new FiscalError('#TOO_LARGE', { value: MAX_CERTIFICATE_BYTES });
  if (body.length > 0 && isJson(req, body)) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(body.toString('utf8'));
    } catch (e) {
      throw new FiscalError('#MALFORMED', { format: 'JSON', detail: e instanceof Error ? e.message : String(e) });
    }
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new FiscalError('#MALFORMED', { format: 'JSON', detail: `expected an object such as {"${jsonField}": "..."}` });
    const fields = parsed as Record<string, unknown>;
    const value = fields[jsonField];
    if (value !== undefined && typeof value !== 'string') throw new FiscalError('#INVALID_TYPE', { field: jsonField, expected: 'text', value: JSON.stringify(value) });
    const password = fields.password;
    if (password !== undefined && typeof password !== 'string') throw new FiscalError('#INVALID_TYPE', { field: 'password', expected: 'text', value: JSON.stringify(password) });
    return { data: value ? fromText(value, pemAllowed) : Buffer.alloc(0), ...(password === undefined ? {} : { password }) };
  }
  return { data: body };
}

/** Whether the register's authority tells test from production certificates (not Slovakia's eKasa). */
function namesSystem(ctx: ServiceContext, rn: string): boolean {
  const reg = ctx.registers.get(rn);
  return !reg || moduleFor(reg.state.cfg).authority?.certificateNamesSystem !== false;
}

function describe(cert: X509Certificate): Obj {
  return {
    Serial: normalSerial(cert.serialNumber),
    Subject: cert.subject.replace(/\n/g, ', '),
    Issuer: cert.issuer.replace(/\n/g, ', '),
    ValidFrom: new Date(Date.parse(cert.validFrom)).toISOString(),
    ValidTo: new Date(Date.parse(cert.validTo)).toISOString(),
  };
}

/** The certificates GET /cer/<serial> serves: the communication certificate, the server certificate and its chain, the client CAs and whitelisted ones. */
async function heldCertificates(ctx: ServiceContext): Promise<X509Certificate[]> {
  const held: X509Certificate[] = [];
  if (existsSync(communicationFile(ctx.dataDir))) held.push(await communicationCertificate(ctx));
  held.push(...(ctx.tls?.server?.certificates ?? []));
  held.push(...(ctx.tls?.clientTrust.certificates() ?? []));
  return held;
}

export function certificateRoutes(app: FastifyInstance, ctx: ServiceContext): void {
  void app.register(async (scope) => {
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', { parseAs: 'buffer' }, (_req, body, done) => done(null, body));
    await scope.register(multipart, { limits: { fileSize: MAX_CERTIFICATE_BYTES } });

    scope.post('/cer/ssl', async (req, res) =>
      guarded(ctx, req, res, ROOT, async () => {
        const q = queryOf(req);
        // the query `password` is the certificate's here: the profile password comes by HTTP Basic
        requireLocalOrPassword(ctx, req, {}, 'def', 'POST /cer/ssl');
        const upload = await uploadOf(req, 'ssl', 'sslCert', false);
        if (upload.data.length === 0) throw new FiscalError('#CERTIFICATE', { detail: 'no certificate given (raw body, JSON field sslCert or form field ssl)' });
        const password = upload.password ?? q.password ?? q.passphrase;
        const read = storeServerCertificate(ctx.dataDir, upload.data, password);
        const leaf = read.certificates[0];
        const warnings: Value[] = ['the new certificate is used from the next start of the service'];
        if (ctx.tls?.envCertificate) warnings.push('SVC_EFR_SSL_CERT is set: its certificate is used instead of this one');
        if (ctx.tls?.envPassword) warnings.push('SVC_EFR_SSL_PASSWORD is set: it is used as the password of this certificate instead of the one given');
        const now = ctx.clock.now().getTime();
        if (leaf && now > Date.parse(leaf.validTo)) warnings.push(`the certificate expired on ${leaf.validTo}`);
        req.log.info({ type: 'TLS', serial: leaf?.serialNumber, subject: leaf?.subject, reader: read.reader }, 'server certificate uploaded; used after a restart');
        return sendDoc(res, formatOf(req), ROOT, { Result: { RC: 'OK', Warning: warnings }, ...(leaf ? describe(leaf) : {}) });
      }),
    );

    scope.post('/cer/ca', async (req, res) =>
      guarded(ctx, req, res, ROOT, async () => {
        // a CA decides who may connect: the same rule as the other administrative routes
        requireLocalOrPassword(ctx, req, queryOf(req), 'def', 'POST /cer/ca');
        const upload = await uploadOf(req, 'caCert', 'caCert', true);
        const wasRequired = ctx.tls?.clientTrust.required ?? false;
        const stored = storeCaCertificates(ctx.dataDir, upload.data);
        // trusted from the next connection on (the TLS context is renewed), no restart needed
        ctx.tls?.clientTrust.load();
        const warnings: Value[] = [];
        if (!stored.stored) warnings.push(`the certificate is stored already (${stored.file})`);
        for (const c of stored.certificates) if (!c.ca) warnings.push(`certificate ${normalSerial(c.serialNumber)} is no CA certificate (basicConstraints CA:FALSE or absent)`);
        if (!wasRequired) warnings.push('the folder cer/client was made: from now on every request needs a trusted TLS client certificate');
        if (ctx.tls && !ctx.tls.https) warnings.push('client certificates are now required, but the service has no server certificate: install one with POST /cer/ssl and restart');
        req.log.info({ type: 'TLS', file: stored.file, serials: stored.certificates.map((c) => c.serialNumber) }, 'client CA certificate uploaded');
        const first = stored.certificates[0];
        return sendDoc(res, formatOf(req), ROOT, {
          Result: warnings.length ? { RC: 'OK', Warning: warnings } : { RC: 'OK' },
          File: stored.file,
          ...(first ? describe(first) : {}),
        });
      }),
    );

    // the fiscal certificate of a register (Croatia, Slovenia, Slovakia): PKCS#12, the key stored sealed
    scope.post('/cer/fiscal', async (req, res) =>
      guarded(ctx, req, res, ROOT, async () => {
        const q = queryOf(req);
        const rn = q.rn || (q.tl && q.tt) ? rnOfQuery(ctx, q) : 'def';
        // the query `password` is the certificate's here: the profile password comes by HTTP Basic
        requireLocalOrPassword(ctx, req, {}, rn, 'POST /cer/fiscal');
        const upload = await uploadOf(req, 'fiscalCert', 'fiscalCert', true);
        if (upload.data.length === 0) throw new FiscalError('#CERTIFICATE', { detail: 'no certificate given (raw body, JSON field fiscalCert or form field fiscalCert)' });
        const cert = storeFiscalCertificate(ctx.dataDir, rn, upload.data, upload.password ?? q.password ?? q.passphrase);
        const warnings = fiscalCertificateWarnings(cert, ctx.profiles.settings(rn).raw, ctx.clock.now(), namesSystem(ctx, rn));
        req.log.info({ type: 'FISCAL', rn, serial: cert.serial, subject: cert.subject, test: cert.test, validTo: cert.notAfter.toISOString() }, 'fiscal certificate installed');
        // what needs the certificate first (Slovenia: the business premise's registration) goes now
        for (const reg of rn === 'def' ? ctx.registers.list() : [ctx.registers.get(rn)]) if (reg) await configChanged(ctx, reg);
        return sendDoc(res, formatOf(req), ROOT, { Result: warnings.length ? { RC: 'OK', Warning: warnings } : { RC: 'OK' }, RN: rn, ...fiscalCertificateView(cert, ctx.clock.now()) });
      }),
    );

    scope.get('/cer/fiscal', async (req, res) =>
      guarded(ctx, req, res, ROOT, async () => {
        const q = queryOf(req);
        const rn = q.rn || (q.tl && q.tt) ? rnOfQuery(ctx, q) : 'def';
        const cert = fiscalCertificate(ctx.dataDir, rn);
        if (!cert) throw new FiscalError('#NOT_FOUND', { value: `fiscal certificate of register ${rn}` });
        const warnings = fiscalCertificateWarnings(cert, ctx.profiles.settings(rn).raw, ctx.clock.now(), namesSystem(ctx, rn));
        return sendDoc(res, formatOf(req), ROOT, { Result: warnings.length ? { RC: 'OK', Warning: warnings } : { RC: 'OK' }, RN: rn, ...fiscalCertificateView(cert, ctx.clock.now()) });
      }),
    );

    scope.get('/cer/:serial', async (req, res) =>
      guarded(ctx, req, res, 'Result', async () => {
        const raw = (req.params as { serial?: string }).serial ?? '';
        const wanted = normalSerial(raw);
        const found = /^[0-9a-f]+$/.test(wanted) ? (await heldCertificates(ctx)).find((c) => normalSerial(c.serialNumber) === wanted) : undefined;
        if (!found) throw new FiscalError('#NOT_FOUND', { value: `certificate with serial number ${raw}` });
        return res.code(200).type('application/x-pem-file').header('content-disposition', `inline; filename="${wanted}.pem"`).send(found.toString());
      }),
    );

    scope.get('/authorization', async (req, res) =>
      guarded(ctx, req, res, 'Result', async () => {
        const q = queryOf(req);
        const rn = q.rn || (q.tl && q.tt) ? rnOfQuery(ctx, q) : 'def';
        requireLocalOrPassword(ctx, req, q, rn, 'GET /authorization');
        const jwt = await authorizationJwt(ctx, rn);
        return res.code(200).type('text/plain; charset=utf-8').header('cache-control', 'no-store').send(jwt);
      }),
    );
  });
}
