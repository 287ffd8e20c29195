/**
 * certificateData: the export picks the signer out of a stored chain by serial; the verifier reads one
 * certificate, its bare base64, or a chain in any order (the end of the chain), and names a broken block.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { certificateOfData, signingCertificatePem } from './certificate-data.js';

const work = mkdtempSync(join(tmpdir(), 'efr-dk-certdata-'));
test.after(() => rmSync(work, { recursive: true, force: true }));

function openssl(args: string[]): void {
  const r = spawnSync('openssl', args, { encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
}

const w = (f: string): string => join(work, f);
openssl(['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', w('ca.key'), '-out', w('ca.pem'), '-days', '30', '-subj', '/CN=Rod CA']);
openssl(['req', '-newkey', 'rsa:2048', '-nodes', '-keyout', w('key.pem'), '-out', w('leaf.csr'), '-subj', '/CN=Kasse POS']);
openssl(['x509', '-req', '-in', w('leaf.csr'), '-CA', w('ca.pem'), '-CAkey', w('ca.key'), '-set_serial', '0x0A1B2C', '-out', w('leaf.pem'), '-days', '30']);
const CA = readFileSync(w('ca.pem'), 'utf8');
const LEAF = readFileSync(w('leaf.pem'), 'utf8');

test('the export writes the certificate with the serial asked for, alone', () => {
  const one = signingCertificatePem(`${LEAF}${CA}`, '0A1B2C');
  assert.equal(one?.match(/BEGIN CERTIFICATE/g)?.length, 1);
  assert.equal(one?.replace(/\s+/g, ''), LEAF.replace(/\s+/g, ''));
  assert.equal(signingCertificatePem(`${CA}${LEAF}`, '0a1b2c')?.replace(/\s+/g, ''), LEAF.replace(/\s+/g, ''), 'whatever the order, any case');
  assert.equal(signingCertificatePem(CA, '0A1B2C'), undefined);
});

test('the verifier reads one certificate, its bare base64, or a chain in either order', () => {
  const serialOf = (data: string): string => {
    const c = certificateOfData(data);
    assert.notEqual(typeof c, 'string', String(c));
    return typeof c === 'string' ? c : c.serialNumber;
  };
  assert.equal(serialOf(LEAF), '0A1B2C');
  assert.equal(serialOf(LEAF.replace(/-----(BEGIN|END) CERTIFICATE-----/g, '')), '0A1B2C');
  assert.equal(serialOf(`${LEAF}\n${CA}`), '0A1B2C');
  assert.equal(serialOf(`${CA}\n${LEAF}`), '0A1B2C');
  assert.equal(certificateOfData('  \n'), 'the certificateData is empty');
  assert.match(String(certificateOfData(`${LEAF}-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----`)), /^the certificateData is not a certificate \(certificate 2 of 2\): /);
});
