import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import { CertificateProblem, looksLikePkcs12, readKeyAndCertificates, readPkcs12 } from './pkcs12.js';

const dir = mkdtempSync(join(tmpdir(), 'efr-pkcs12-'));
const bytes = (name: string): Buffer => readFileSync(join(dir, name));

function openssl(...args: string[]): void {
  const r = spawnSync('openssl', args, { cwd: dir, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`openssl ${args.join(' ')}: ${r.stderr}`);
}

before(() => {
  const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes'];
  openssl('req', '-x509', ...ec, '-keyout', 'a.key', '-out', 'a.pem', '-days', '5', '-subj', '/CN=a');
  openssl('req', '-x509', ...ec, '-keyout', 'b.key', '-out', 'b.pem', '-days', '5', '-subj', '/CN=b');
  openssl('pkcs12', '-export', '-inkey', 'a.key', '-in', 'a.pem', '-certfile', 'b.pem', '-out', 'a.pfx', '-passout', 'pass:pw');
  openssl('pkcs12', '-export', '-legacy', '-certpbe', 'PBE-SHA1-RC2-40', '-keypbe', 'PBE-SHA1-RC2-40', '-inkey', 'a.key', '-in', 'a.pem', '-out', 'rc2.pfx', '-passout', 'pass:pw');
  openssl('pkcs12', '-export', '-nokeys', '-in', 'a.pem', '-out', 'nokey.pfx', '-passout', 'pass:pw');
});

after(() => rmSync(dir, { recursive: true, force: true }));

function problem(fn: () => unknown): CertificateProblem {
  try {
    fn();
  } catch (e) {
    if (e instanceof CertificateProblem) return e;
    throw e;
  }
  assert.fail('no CertificateProblem');
}

test('PKCS#12: the key\'s certificate comes first; an EC key in an RC2-40 file is read by node-forge', () => {
  assert.ok(looksLikePkcs12(bytes('a.pfx')));
  const modern = readPkcs12(bytes('a.pfx'), 'pw');
  assert.equal(modern.reader, 'node');
  assert.equal(modern.certificates[0]?.fingerprint256, new X509Certificate(bytes('a.pem')).fingerprint256);
  assert.equal(modern.certificates.length, 2);
  const legacy = readPkcs12(bytes('rc2.pfx'), 'pw');
  assert.equal(legacy.reader, 'node-forge');
  assert.match(String(legacy.tls.key), /BEGIN PRIVATE KEY/);
  assert.equal(legacy.certificates[0]?.fingerprint256, new X509Certificate(bytes('a.pem')).fingerprint256);
});

test('PKCS#12: the reasons of a refusal', () => {
  assert.equal(problem(() => readPkcs12(bytes('a.pfx'), 'wrong')).kind, 'wrong-password');
  assert.equal(problem(() => readPkcs12(bytes('rc2.pfx'), 'wrong')).kind, 'wrong-password');
  assert.equal(problem(() => readPkcs12(bytes('a.pem'), 'pw')).kind, 'not-pkcs12');
  assert.equal(problem(() => readPkcs12(Buffer.from([0x30, 0x03, 0x02, 0x01, 0x03]), 'pw')).kind, 'not-pkcs12');
  assert.equal(problem(() => readPkcs12(Buffer.alloc(0), undefined)).kind, 'not-pkcs12');
  const truncated = bytes('a.pfx').subarray(0, 400);
  assert.ok(['not-pkcs12', 'undecodable', 'wrong-password'].includes(problem(() => readPkcs12(truncated, 'pw')).kind));
});

test('PEM: certificate and key in one file; a certificate of another key is refused', () => {
  const good = readKeyAndCertificates(Buffer.concat([bytes('a.pem'), bytes('a.key')]), undefined);
  assert.equal(good.reader, 'pem');
  assert.equal(good.certificates[0]?.subject, 'CN=a');
  assert.equal(problem(() => readKeyAndCertificates(Buffer.concat([bytes('b.pem'), bytes('a.key')]), undefined)).kind, 'key-mismatch');
  assert.equal(problem(() => readKeyAndCertificates(bytes('a.pem'), undefined)).kind, 'no-key');
});
