/**
 * The TSE's certificate names its serial (hex SHA-256 of the public key) as subject CN and serialNumber;
 * a register whose certificate was issued before with another subject keeps its key and serial and gets
 * the certificate issued again from that key, the earlier one kept beside it.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { X509Certificate, createHash, createPrivateKey, webcrypto } from 'node:crypto';
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { x509Module } from '../../../shared/lazy-modules.js';
import { tseCertificate } from './tse-export.js';
import { openTse, tseDir } from './tse.js';
import { keySerial } from './tse-certificates.js';

test('a certificate of an earlier subject is issued again from the same key; the serial stays', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'efr-de-cert-'));
  try {
    const tse = openTse(dataDir, 'R1');
    const dir = tseDir(dataDir, 'R1');
    // the certificate as this service issued it before: another subject
    const alg = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' };
    const pkcs8 = createPrivateKey(readFileSync(join(dir, 'tse.key.pem'))).export({ type: 'pkcs8', format: 'der' });
    const x509 = await x509Module();
    const old = await x509.X509CertificateGenerator.createSelfSigned({
      serialNumber: '01', name: `CN=efr software TSE ${tse.serial.toString('hex').slice(0, 16)}`, notBefore: new Date(2000, 0, 1), notAfter: new Date(2100, 0, 1), signingAlgorithm: alg,
      keys: { privateKey: await webcrypto.subtle.importKey('pkcs8', pkcs8, alg, true, ['sign']), publicKey: await webcrypto.subtle.importKey('raw', tse.publicKey, alg, true, ['verify']) } as CryptoKeyPair,
    });
    const oldDer = Buffer.from(old.rawData);
    writeFileSync(join(dir, 'tse.cert.der'), oldDer);

    const der = await tseCertificate(dataDir, 'R1');
    const cert = new X509Certificate(der);
    const serial = tse.serial.toString('hex');
    assert.equal(cert.subject, `CN=${serial}\nserialNumber=${serial}\nO=efr\nOU=software TSE`);
    assert.equal(keySerial(cert.publicKey), serial, 'the same key: the serial does not change');
    assert.ok(cert.verify(cert.publicKey), 'self-signed with the TSE key');
    assert.deepEqual(readFileSync(join(dir, 'tse.cert.der')), der);
    const kept = readdirSync(dir).filter((f) => /^tse\.cert\.[0-9a-f]{16}\.der$/.test(f));
    assert.deepEqual(kept, [`tse.cert.${createHash('sha256').update(oldDer).digest('hex').slice(0, 16)}.der`]);
    assert.deepEqual(readFileSync(join(dir, kept[0] as string)), oldDer, 'the earlier certificate is kept');
    assert.deepEqual(await tseCertificate(dataDir, 'R1'), der, 'issued once');
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
});
