/**
 * HTTPS, client certificates, /cer/*, /authorization and the listener over real
 * TLS: every certificate is made here with the openssl command line (a server CA and a server certificate
 * in modern, 3DES and RC2-40 PKCS#12 files, a client CA with a client certificate, self-signed client
 * certificates), and every request goes through a real socket.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { createServer, connect as connectTcp } from 'node:net';
import { connect as connectTls } from 'node:tls';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import { Agent, FormData, request } from 'undici';
import { decodeProtectedHeader, importX509, jwtVerify } from 'jose';
import { ManualClock } from '../src/shared/clock.js';
import { type RunningService, startService } from '../src/register/server.js';
import { type HttpAnswer, answerOf, sale, tempDir } from './helpers.js';

const work = tempDir('efr-tls-certs-');
const file = (name: string): string => join(work, name);
const bytes = (name: string): Buffer => readFileSync(file(name));

function openssl(...args: string[]): void {
  const r = spawnSync('openssl', args, { cwd: work, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`openssl ${args.join(' ')} failed: ${r.stderr}`);
}

interface Identity {
  cert: Buffer;
  key: Buffer;
}

const id = (name: string): Identity => ({ cert: bytes(`${name}.pem`), key: bytes(`${name}.key`) });

before(() => {
  // the server side: a CA and a certificate for localhost / 127.0.0.1 (RSA, as legacy PKCS#12 files usually hold)
  openssl('req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', 'ca.key', '-out', 'ca.pem', '-days', '30', '-subj', '/CN=EFR test server CA', '-addext', 'basicConstraints=critical,CA:TRUE', '-addext', 'keyUsage=critical,keyCertSign,cRLSign');
  writeFileSync(file('server.ext'), 'subjectAltName=DNS:localhost,IP:127.0.0.1\nextendedKeyUsage=serverAuth\n');
  openssl('req', '-newkey', 'rsa:2048', '-nodes', '-keyout', 'server.key', '-out', 'server.csr', '-subj', '/CN=localhost');
  openssl('x509', '-req', '-in', 'server.csr', '-CA', 'ca.pem', '-CAkey', 'ca.key', '-CAcreateserial', '-out', 'server.pem', '-days', '30', '-extfile', 'server.ext');
  const pkcs12 = (out: string, password: string, ...legacy: string[]): void =>
    openssl('pkcs12', '-export', ...legacy, '-inkey', 'server.key', '-in', 'server.pem', '-certfile', 'ca.pem', '-out', out, '-passout', `pass:${password}`);
  pkcs12('modern.pfx', 'pw-modern');
  pkcs12('des.pfx', 'pw-des', '-legacy', '-certpbe', 'PBE-SHA1-3DES', '-keypbe', 'PBE-SHA1-3DES');
  pkcs12('rc2.pfx', 'pw-rc2', '-legacy', '-certpbe', 'PBE-SHA1-RC2-40', '-keypbe', 'PBE-SHA1-RC2-40');
  pkcs12('nopass.pfx', '');
  writeFileSync(file('bundle.pem'), Buffer.concat([bytes('server.pem'), bytes('server.key')]));

  // the client side: a client CA with a certificate for POS A; self-signed POS B (whitelisted) and POS C (trusted by nobody)
  const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes'];
  openssl('req', '-x509', ...ec, '-keyout', 'cca.key', '-out', 'cca.pem', '-days', '30', '-subj', '/CN=EFR test client CA', '-addext', 'basicConstraints=critical,CA:TRUE', '-addext', 'keyUsage=critical,keyCertSign,cRLSign');
  writeFileSync(file('client.ext'), 'extendedKeyUsage=clientAuth\n');
  openssl('req', ...ec, '-keyout', 'posA.key', '-out', 'posA.csr', '-subj', '/CN=POS A');
  openssl('x509', '-req', '-in', 'posA.csr', '-CA', 'cca.pem', '-CAkey', 'cca.key', '-CAcreateserial', '-out', 'posA.pem', '-days', '30', '-extfile', 'client.ext');
  openssl('req', '-x509', ...ec, '-keyout', 'posB.key', '-out', 'posB.pem', '-days', '30', '-subj', '/CN=POS B');
  openssl('req', '-x509', ...ec, '-keyout', 'posC.key', '-out', 'posC.pem', '-days', '30', '-subj', '/CN=POS C');
  openssl('x509', '-in', 'cca.pem', '-outform', 'DER', '-out', 'cca.der');
});

after(() => {
  spawnSync('rm', ['-rf', work]);
});

/** A request through a fresh connection that trusts the test's server CA and shows `identity`, if any. */
async function call(method: 'GET' | 'POST', url: string, options: { identity?: Identity; body?: string | Buffer | FormData; headers?: Record<string, string> } = {}): Promise<HttpAnswer> {
  const dispatcher = new Agent({ connect: { ca: bytes('ca.pem'), servername: 'localhost', ...(options.identity ? { cert: options.identity.cert, key: options.identity.key } : {}) } });
  try {
    return await answerOf(await request(url, { method, dispatcher, ...(options.body === undefined ? {} : { body: options.body }), ...(options.headers ? { headers: options.headers } : {}) }));
  } finally {
    await dispatcher.close();
  }
}

function start(dataDir: string, env: NodeJS.ProcessEnv = {}, extra: { clock?: ManualClock; host?: string } = {}): Promise<RunningService> {
  return startService({ port: 0, host: extra.host ?? '127.0.0.1', dataDir, log: true, env, ...(extra.clock ? { clock: extra.clock } : {}) });
}

/** The serial number of the certificate the server shows in the TLS handshake. */
function servedSerial(port: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connectTls({ port, host: '127.0.0.1', servername: 'localhost', ca: bytes('ca.pem') }, () => {
      const serial = socket.getPeerX509Certificate()?.serialNumber ?? '';
      socket.end();
      resolve(serial);
    });
    socket.on('error', reject);
  });
}

async function logOf(dataDir: string, expected: RegExp): Promise<string> {
  const path = join(dataDir, 'log', 'efr.log');
  let text = '';
  for (let i = 0; i < 40; i++) {
    text = existsSync(path) ? readFileSync(path, 'utf8') : '';
    if (expected.test(text)) break;
    await new Promise((r) => setTimeout(r, 50));
  }
  return text;
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const address = server.address();
  await new Promise((r) => server.close(r));
  return typeof address === 'object' && address ? address.port : 0;
}

/** Whether a TCP connection to the port is accepted. */
function accepts(port: number, host = '127.0.0.1'): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connectTcp({ port, host }, () => {
      socket.destroy();
      resolve(true);
    });
    socket.on('error', () => resolve(false));
  });
}

const serverSerial = (): string => new X509Certificate(bytes('server.pem')).serialNumber;

test('HTTPS with a PKCS#12 file from SVC_EFR_SSL_CERT, and with a PEM file (certificate and key)', async () => {
  const svc = await start(tempDir(), { SVC_EFR_SSL_CERT: file('modern.pfx'), SVC_EFR_SSL_PASSWORD: 'pw-modern' });
  try {
    assert.match(svc.url, /^https:/);
    const state = await call('GET', `${svc.url}/state`);
    assert.equal(state.status, 200, state.text);
    assert.equal(await servedSerial(svc.port), serverSerial());
    // plain HTTP on the HTTPS port gets no answer
    await assert.rejects(request(`http://127.0.0.1:${svc.port}/state`).then((r) => r.body.text()));
  } finally {
    await svc.close();
  }
  const pem = await start(tempDir(), { SVC_EFR_SSL_CERT: file('bundle.pem') });
  try {
    assert.match(pem.url, /^https:/);
    assert.equal((await call('GET', `${pem.url}/state`)).status, 200);
    assert.equal(await servedSerial(pem.port), serverSerial());
  } finally {
    await pem.close();
  }
});

test('HTTPS with <data>/cer/ssl.pfx: modern, legacy 3DES and legacy RC2-40 files load', async () => {
  for (const [name, password] of [['modern', 'pw-modern'], ['des', 'pw-des'], ['rc2', 'pw-rc2']] as const) {
    const dataDir = tempDir();
    mkdirSync(join(dataDir, 'cer'));
    writeFileSync(join(dataDir, 'cer', 'ssl.pfx'), bytes(`${name}.pfx`));
    const svc = await start(dataDir, { SVC_EFR_SSL_PASSWORD: password });
    try {
      assert.match(svc.url, /^https:/, name);
      const state = await call('GET', `${svc.url}/state`);
      assert.equal(state.status, 200, `${name}: ${state.text}`);
      assert.equal(await servedSerial(svc.port), serverSerial(), name);
    } finally {
      await svc.close();
    }
    // node reads modern and 3DES files itself; OpenSSL 3 refuses RC2 without its legacy provider, so node-forge reads that one
    const log = await logOf(dataDir, /HTTPS with the server certificate/);
    assert.match(log, new RegExp(`"reader":"${name === 'rc2' ? 'node-forge' : 'node'}"`), `${name}: ${log}`);
  }
});

test('a wrong password or a file that is no certificate: plain HTTP and a log line, no crash', async () => {
  const dataDir = tempDir();
  mkdirSync(join(dataDir, 'cer'));
  writeFileSync(join(dataDir, 'cer', 'ssl.pfx'), bytes('modern.pfx'));
  const svc = await start(dataDir, { SVC_EFR_SSL_PASSWORD: 'not-the-password' });
  try {
    assert.match(svc.url, /^http:/);
    assert.equal((await call('GET', `${svc.url}/state`)).status, 200);
  } finally {
    await svc.close();
  }
  const log = await logOf(dataDir, /cannot be used/);
  assert.match(log, /ssl\.pfx cannot be used \(cannot decode the PKCS#12 file: wrong password\); serving plain HTTP/, log);
  assert.doesNotMatch(log, /not-the-password/);

  const junk = tempDir();
  mkdirSync(join(junk, 'cer'));
  writeFileSync(join(junk, 'cer', 'ssl.pfx'), 'this is no certificate');
  const svc2 = await start(junk);
  try {
    assert.match(svc2.url, /^http:/);
    assert.equal((await call('GET', `${svc2.url}/state`)).status, 200);
  } finally {
    await svc2.close();
  }
  assert.match(await logOf(junk, /not a PKCS#12 file/), /not a PKCS#12 file\); serving plain HTTP/);
});

test('POST /cer/ssl: raw, base64 JSON and multipart; 400 for a wrong password and for no PKCS#12 file; active after a restart', async () => {
  const dataDir = tempDir();
  let svc = await start(dataDir);
  try {
    assert.match(svc.url, /^http:/);
    const url = `${svc.url}/cer/ssl`;
    const pwdFile = join(dataDir, 'cer', 'ssl.pfx.pwd');

    const wrong = await call('POST', `${url}?password=nope`, { body: bytes('modern.pfx'), headers: { 'content-type': 'application/x-pkcs12' } });
    assert.equal(wrong.status, 400, wrong.text);
    assert.equal(wrong.json.CertificateC.Result.ErrorCode, '#CERTIFICATE');
    assert.match(wrong.json.CertificateC.Result.UserMessage, /wrong password/);
    const pem = await call('POST', `${url}?password=x`, { body: bytes('server.pem'), headers: { 'content-type': 'application/octet-stream' } });
    assert.equal(pem.status, 400, pem.text);
    assert.match(pem.json.CertificateC.Result.UserMessage, /not a PKCS#12 file/);
    const none = await call('POST', url, { body: '', headers: { 'content-type': 'application/octet-stream' } });
    assert.equal(none.status, 400, none.text);
    assert.equal(existsSync(join(dataDir, 'cer', 'ssl.pfx')), false, 'nothing stored after refusals');

    // raw body, password in the query (`passphrase` works as well)
    const raw = await call('POST', `${url}?passphrase=pw-des`, { body: bytes('des.pfx'), headers: { 'content-type': 'application/x-pkcs12' } });
    assert.equal(raw.status, 200, raw.text);
    assert.equal(raw.json.CertificateC.Result.RC, 'OK');
    assert.equal(raw.json.CertificateC.Serial, serverSerial().toLowerCase().replace(/^0+/, ''));
    assert.deepEqual(readFileSync(join(dataDir, 'cer', 'ssl.pfx')), bytes('des.pfx'));
    // the password is stored, encrypted
    assert.ok(existsSync(pwdFile));
    assert.doesNotMatch(readFileSync(pwdFile, 'utf8'), /pw-des/);

    // JSON with base64; the body's password wins over the query's
    const json = await call('POST', `${url}?password=wrong`, { body: JSON.stringify({ sslCert: bytes('modern.pfx').toString('base64'), password: 'pw-modern' }), headers: { 'content-type': 'application/json' } });
    assert.equal(json.status, 200, json.text);
    assert.deepEqual(readFileSync(join(dataDir, 'cer', 'ssl.pfx')), bytes('modern.pfx'));
    const badJson = await call('POST', url, { body: JSON.stringify({ sslCert: Buffer.from('not a pfx').toString('base64'), password: 'x' }), headers: { 'content-type': 'application/json' } });
    assert.equal(badJson.status, 400, badJson.text);

    // multipart: the file in form field `ssl`, the password in form field `password`
    const form = new FormData();
    form.append('password', 'pw-rc2');
    form.append('ssl', new Blob([new Uint8Array(bytes('rc2.pfx'))], { type: 'application/x-pkcs12' }), 'ssl.pfx');
    const multi = await call('POST', url, { body: form });
    assert.equal(multi.status, 200, multi.text);
    assert.deepEqual(readFileSync(join(dataDir, 'cer', 'ssl.pfx')), bytes('rc2.pfx'));
    assert.match(String(multi.json.CertificateC.Result.Warning), /next start/);
    const wrongForm = new FormData();
    wrongForm.append('password', 'nope');
    wrongForm.append('ssl', new Blob([new Uint8Array(bytes('rc2.pfx'))]), 'ssl.pfx');
    assert.equal((await call('POST', url, { body: wrongForm })).status, 400);
    assert.deepEqual(readFileSync(join(dataDir, 'cer', 'ssl.pfx')), bytes('rc2.pfx'), 'a refused upload keeps the certificate');

    // still plain HTTP: the new certificate is active after a restart
    assert.match(svc.url, /^http:/);
  } finally {
    await svc.close();
  }
  svc = await start(dataDir);
  try {
    assert.match(svc.url, /^https:/);
    assert.equal((await call('GET', `${svc.url}/state`)).status, 200);
    assert.equal(await servedSerial(svc.port), serverSerial());
    // uploading without a password removes the stored one
    const nopass = await call('POST', `${svc.url}/cer/ssl`, { body: bytes('nopass.pfx'), headers: { 'content-type': 'application/octet-stream' } });
    assert.equal(nopass.status, 200, nopass.text);
    assert.equal(existsSync(join(dataDir, 'cer', 'ssl.pfx.pwd')), false);
  } finally {
    await svc.close();
  }
  svc = await start(dataDir);
  try {
    assert.match(svc.url, /^https:/);
    assert.equal((await call('GET', `${svc.url}/state`)).status, 200);
  } finally {
    await svc.close();
  }
});

test('client certificates: refused without one and with an untrusted one; accepted when whitelisted or signed by an uploaded CA', async () => {
  const dataDir = tempDir();
  mkdirSync(join(dataDir, 'cer', 'client'), { recursive: true });
  writeFileSync(join(dataDir, 'cer', 'ssl.pfx'), bytes('modern.pfx'));
  // POS B is whitelisted: its own certificate in the folder
  writeFileSync(join(dataDir, 'cer', 'client', 'pos-b.crt'), bytes('posB.pem'));
  const clock = new ManualClock(new Date());
  const svc = await start(dataDir, { SVC_EFR_SSL_PASSWORD: 'pw-modern' }, { clock });
  try {
    const state = `${svc.url}/state`;
    const without = await call('GET', state);
    assert.equal(without.status, 403, without.text);
    assert.equal(without.json.Result.ErrorCode, '#CLIENT_CERTIFICATE');
    assert.match(without.json.Result.UserMessage, /no client certificate was presented/);
    const untrusted = await call('GET', state, { identity: id('posC') });
    assert.equal(untrusted.status, 403, untrusted.text);
    assert.match(untrusted.json.Result.UserMessage, /POS C.*is not trusted/);
    // XML when asked for XML
    const xml = await call('GET', state, { headers: { accept: 'application/xml' } });
    assert.equal(xml.status, 403);
    assert.match(xml.text, /<Result[^>]*>|ErrorCode/);

    assert.equal((await call('GET', state, { identity: id('posB') })).status, 200);
    // POS A's certificate is signed by a CA nobody trusts yet
    assert.equal((await call('GET', state, { identity: id('posA') })).status, 403);

    // the CA is uploaded (raw PEM) by a trusted client; no restart needed
    const uploaded = await call('POST', `${svc.url}/cer/ca`, { identity: id('posB'), body: bytes('cca.pem'), headers: { 'content-type': 'application/x-pem-file' } });
    assert.equal(uploaded.status, 200, uploaded.text);
    assert.equal(uploaded.json.CertificateC.File, 'ca-1.pem');
    assert.ok(existsSync(join(dataDir, 'cer', 'client', 'ca-1.pem')));
    const a = await call('GET', state, { identity: id('posA') });
    assert.equal(a.status, 200, a.text);
    assert.equal((await call('GET', state, { identity: id('posC') })).status, 403, 'POS C stays untrusted');

    // JSON (base64 DER) and multipart uploads; the same CA is not stored twice; none given: 400
    const again = await call('POST', `${svc.url}/cer/ca`, { identity: id('posB'), body: JSON.stringify({ caCert: bytes('cca.der').toString('base64') }), headers: { 'content-type': 'application/json' } });
    assert.equal(again.status, 200, again.text);
    assert.match(String(again.json.CertificateC.Result.Warning), /stored already \(ca-1\.pem\)/);
    const form = new FormData();
    form.append('caCert', new Blob([new Uint8Array(bytes('ca.pem'))]), 'server-ca.pem');
    const multi = await call('POST', `${svc.url}/cer/ca`, { identity: id('posB'), body: form });
    assert.equal(multi.status, 200, multi.text);
    assert.equal(multi.json.CertificateC.File, 'ca-2.pem');
    const none = await call('POST', `${svc.url}/cer/ca`, { identity: id('posB'), body: JSON.stringify({}), headers: { 'content-type': 'application/json' } });
    assert.equal(none.status, 400, none.text);
    const junk = await call('POST', `${svc.url}/cer/ca`, { identity: id('posB'), body: 'no certificate', headers: { 'content-type': 'text/plain' } });
    assert.equal(junk.status, 400, junk.text);
    assert.deepEqual(readdirSync(join(dataDir, 'cer', 'client')).sort(), ['ca-1.pem', 'ca-2.pem', 'pos-b.crt']);

    // a whitelisted certificate is trusted within its validity period (the service's clock)
    clock.advance(60 * 86_400_000);
    const expired = await call('GET', state, { identity: id('posB') });
    assert.equal(expired.status, 403, expired.text);
    assert.match(expired.json.Result.UserMessage, /expired/);
  } finally {
    await svc.close();
  }
  assert.match(await logOf(dataDir, /no trusted TLS client certificate/), /request refused: no trusted TLS client certificate/);
});

test('POST /cer/ca on a service without client certificates switches them on at once (no restart)', async () => {
  const dataDir = tempDir();
  mkdirSync(join(dataDir, 'cer'));
  writeFileSync(join(dataDir, 'cer', 'ssl.pfx'), bytes('modern.pfx'));
  const svc = await start(dataDir, { SVC_EFR_SSL_PASSWORD: 'pw-modern' });
  try {
    assert.equal((await call('GET', `${svc.url}/state`)).status, 200, 'open before');
    const uploaded = await call('POST', `${svc.url}/cer/ca`, { body: bytes('cca.pem'), headers: { 'content-type': 'application/x-pem-file' } });
    assert.equal(uploaded.status, 200, uploaded.text);
    assert.match(String(uploaded.json.CertificateC.Result.Warning), /every request needs a trusted TLS client certificate/);
    const without = await call('GET', `${svc.url}/state`);
    assert.equal(without.status, 403, without.text);
    assert.match(without.json.Result.UserMessage, /no client certificate was presented/);
    assert.equal((await call('GET', `${svc.url}/state`, { identity: id('posA') })).status, 200);
    assert.equal((await call('GET', `${svc.url}/state`, { identity: id('posB') })).status, 403);
  } finally {
    await svc.close();
  }
});

test('an expired server certificate is still served, with a log line', async () => {
  const dataDir = tempDir();
  mkdirSync(join(dataDir, 'cer'));
  writeFileSync(join(dataDir, 'cer', 'ssl.pfx'), bytes('modern.pfx'));
  const clock = new ManualClock(new Date(Date.now() + 90 * 86_400_000));
  const svc = await start(dataDir, { SVC_EFR_SSL_PASSWORD: 'pw-modern' }, { clock });
  try {
    assert.match(svc.url, /^https:/);
    assert.equal(await servedSerial(svc.port), serverSerial());
  } finally {
    await svc.close();
  }
  assert.match(await logOf(dataDir, /expired on/), /the server certificate expired on/);
});

test('client certificates required but no server certificate: every request refused over plain HTTP, except installing one from this machine', async () => {
  const dataDir = tempDir();
  mkdirSync(join(dataDir, 'cer', 'client'), { recursive: true });
  const svc = await start(dataDir);
  try {
    assert.match(svc.url, /^http:/);
    const refused = await call('GET', `${svc.url}/state`);
    assert.equal(refused.status, 403, refused.text);
    assert.match(refused.json.Result.UserMessage, /plain HTTP/);
    const install = await call('POST', `${svc.url}/cer/ssl?password=pw-modern`, { body: bytes('modern.pfx'), headers: { 'content-type': 'application/x-pkcs12' } });
    assert.equal(install.status, 200, install.text);
  } finally {
    await svc.close();
  }
  assert.match(await logOf(dataDir, /every request is refused/), /no usable server certificate/);
});

test('GET /authorization: a JWT verified with the certificate from GET /cer/<serial>; GET /cer/<serial> serves the held certificates', async () => {
  const dataDir = tempDir();
  mkdirSync(join(dataDir, 'cer'));
  writeFileSync(join(dataDir, 'cer', 'ssl.pfx'), bytes('modern.pfx'));
  const svc = await start(dataDir, { SVC_EFR_SSL_PASSWORD: 'pw-modern' });
  try {
    await call('POST', `${svc.url}/profile`, { body: JSON.stringify({ Badge: 'B', TaxId: 'ATU12345678' }), headers: { 'content-type': 'application/json' } });
    const auth = await call('GET', `${svc.url}/authorization`);
    assert.equal(auth.status, 200, auth.text);
    assert.match(auth.contentType, /^text\/plain/);
    const jwt = auth.text;
    const header = decodeProtectedHeader(jwt);
    assert.equal(header.alg, 'ES256');
    assert.ok(header.kid);
    const cer = await call('GET', `${svc.url}/cer/${String(header.kid).toUpperCase()}`);
    assert.equal(cer.status, 200, cer.text);
    assert.equal(cer.contentType, 'application/x-pem-file');
    assert.equal(cer.text, readFileSync(join(dataDir, 'cer', 'communication.pem'), 'utf8'));
    const { payload } = await jwtVerify(jwt, await importX509(cer.text, 'ES256'));
    assert.equal(payload.sub, 'def');
    assert.equal(payload.taxId, 'ATU12345678');
    assert.equal((payload.exp ?? 0) - (payload.iat ?? 0), 3600);
    assert.equal(payload.iss, svc.ctx.signer.keyId);
    // the certificate is the instance key's: the same public key as keys/instance.pub.pem
    assert.equal(new X509Certificate(cer.text).publicKey.export({ type: 'spki', format: 'pem' }), readFileSync(join(dataDir, 'keys', 'instance.pub.pem'), 'utf8'));
    // a token changed by one character does not verify
    const forged = jwt.slice(0, -2) + (jwt.endsWith('A') ? 'BB' : 'AA');
    await assert.rejects(jwtVerify(forged, await importX509(cer.text, 'ES256')));
    // the same certificate on the next call
    assert.equal(decodeProtectedHeader((await call('GET', `${svc.url}/authorization`)).text).kid, header.kid);

    // the server certificate and its CA, by serial number (leading zeros and case do not matter)
    const server = await call('GET', `${svc.url}/cer/00${serverSerial().toLowerCase()}`);
    assert.equal(server.status, 200, server.text);
    assert.equal(new X509Certificate(server.text).fingerprint256, new X509Certificate(bytes('server.pem')).fingerprint256);
    const ca = await call('GET', `${svc.url}/cer/${new X509Certificate(bytes('ca.pem')).serialNumber}`);
    assert.equal(ca.status, 200, ca.text);
    assert.equal((await call('GET', `${svc.url}/cer/abcdef0123`)).status, 404);
    assert.equal((await call('GET', `${svc.url}/cer/not-hex`)).status, 404);
  } finally {
    await svc.close();
  }
});

test('HttpServer_Port from the environment wins over the profile and --port; the setting is blocked for POST /profile', async () => {
  const dataDir = tempDir();
  // the profile's port first
  const profilePort = await freePort();
  const first = await start(dataDir);
  try {
    const set = await call('POST', `${first.url}/profile`, { body: JSON.stringify({ Badge: 'B', Attributes: `HttpServer_Port=${profilePort}` }), headers: { 'content-type': 'application/json' } });
    assert.equal(set.status, 200, set.text);
  } finally {
    await first.close();
  }
  const port = await freePort();
  const svc = await start(dataDir, { SVC_EFR_PROFILE_CFG__DOT__def__DOT__HttpServer_Port: String(port) });
  try {
    assert.notEqual(port, profilePort);
    assert.equal(svc.port, port);
    assert.equal((await call('GET', `http://127.0.0.1:${port}/state`)).status, 200);
    const blocked = await call('POST', `${svc.url}/profile`, { body: JSON.stringify({ Badge: 'B', Attributes: 'HttpServer_Port=1' }), headers: { 'content-type': 'application/json' } });
    assert.equal(blocked.status, 400, blocked.text);
    assert.match(blocked.text, /Setting of HttpServer_Port for def is blocked/);
    assert.equal(svc.port, port);
  } finally {
    await svc.close();
  }
});

test('POST /profile with HttpServer_Port moves the listener after the answer; requests in flight are answered', async () => {
  const dataDir = tempDir();
  const svc = await start(dataDir);
  const newPort = await freePort();
  try {
    const oldPort = svc.port;
    // a value that is no port is refused, naming the attribute; the listener stays
    for (const bad of ['0', '65536', 'http', '80.5']) {
      const refused = await call('POST', `http://127.0.0.1:${oldPort}/profile`, { body: JSON.stringify({ Badge: 'B', Attributes: `HttpServer_Port=${bad}` }), headers: { 'content-type': 'application/json' } });
      assert.equal(refused.status, 400, refused.text);
      assert.match(refused.text, /#INVALID_TYPE/);
      assert.match(refused.text, /Attributes\.HttpServer_Port/);
    }
    assert.equal(svc.port, oldPort);
    // transactions on their own connections, in flight while the listener moves
    const pool = new Agent({ connections: 20 });
    const sales = Array.from({ length: 8 }, () =>
      request(`http://127.0.0.1:${oldPort}/register`, { method: 'POST', dispatcher: pool, body: JSON.stringify(sale()), headers: { 'content-type': 'application/json' } }).then(async (r) => ({ status: r.statusCode, text: await r.body.text() })),
    );
    await new Promise((r) => setTimeout(r, 30));
    const moved = await call('POST', `http://127.0.0.1:${oldPort}/profile`, { body: JSON.stringify({ Badge: 'B', Attributes: `HttpServer_Port=${newPort}` }), headers: { 'content-type': 'application/json' } });
    assert.equal(moved.status, 200, moved.text);
    for (const s of await Promise.all(sales)) assert.equal(s.status, 200, s.text);
    await pool.close();
    for (let i = 0; i < 100 && svc.port !== newPort; i++) await new Promise((r) => setTimeout(r, 20));
    assert.equal(svc.port, newPort);
    const state = await call('GET', `http://127.0.0.1:${newPort}/state`);
    assert.equal(state.status, 200, state.text);
    for (let i = 0; i < 100 && (await accepts(oldPort)); i++) await new Promise((r) => setTimeout(r, 20));
    assert.equal(await accepts(oldPort), false, 'the old port is closed');
    // the eight transactions are in the journal
    const find = await call('GET', `http://127.0.0.1:${newPort}/find?_=Tra&limit=100rows`);
    assert.equal(find.json.Find.Records.length, 8, find.text);
  } finally {
    await svc.close();
  }
  // and after a restart the profile's port is used
  const again = await start(dataDir);
  try {
    assert.equal(again.port, newPort);
    assert.equal((await call('GET', `${again.url}/state`)).status, 200);
  } finally {
    await again.close();
  }
});

test('HttpServer_IPv4: a dual-stack listener (::) becomes IPv4 only', async () => {
  const svc = await start(tempDir(), {}, { host: '::' });
  try {
    assert.equal(await accepts(svc.port, '::1'), true, 'IPv6 before');
    const set = await call('POST', `http://127.0.0.1:${svc.port}/profile`, { body: JSON.stringify({ Badge: 'B', Attributes: 'HttpServer_IPv4' }), headers: { 'content-type': 'application/json' } });
    assert.equal(set.status, 200, set.text);
    for (let i = 0; i < 100 && (await accepts(svc.port, '::1')); i++) await new Promise((r) => setTimeout(r, 20));
    assert.equal(await accepts(svc.port, '::1'), false, 'no IPv6 after');
    assert.equal(await accepts(svc.port, '127.0.0.1'), true, 'IPv4 after');
  } finally {
    await svc.close();
  }
});
