/**
 * `efr verify --country dk` hardening: a small Danish SAF-T Cash Register file signed here (RSA-SHA512
 * over the validator's 11 fields) under an openssl-made certificate. The certificate's fingerprints are
 * printed (compared with openssl's); a chain re-signed under another certificate passes alone but is
 * caught with `--key` (the expected certificate or its public key); a period file's first transaction is
 * checked through previous-signature.txt and a tampered one caught; a signature with junk appended is refused.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { X509Certificate, type KeyObject, createPrivateKey, sign } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DK_NAMESPACE, type DkCashTransaction, danishSignedMessage, verifyDanishExport } from './verify.js';

const ROOT = fileURLToPath(new URL('../../../..', import.meta.url));
const work = mkdtempSync(join(tmpdir(), 'efr-dk-verify-'));
test.after(() => rmSync(work, { recursive: true, force: true }));

interface Cert {
  key: KeyObject;
  certPem: string;
  pubPem: string;
}
let n = 0;
function makeCertificate(): Cert {
  n += 1;
  const key = join(work, `key${n}.pem`);
  const cert = join(work, `cert${n}.pem`);
  const r = spawnSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-subj', `/C=DK/O=Test/CN=POS ${n}`, '-days', '30', '-keyout', key, '-out', cert], { encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  const certPem = readFileSync(cert, 'utf8');
  return { key: createPrivateKey(readFileSync(key, 'utf8')), certPem, pubPem: new X509Certificate(certPem).publicKey.export({ type: 'spki', format: 'pem' }).toString() };
}
const GENUINE = makeCertificate();

type Trans = Omit<DkCashTransaction, 'certificateData'>;

function chain(amounts: string[], cert: Cert): Trans[] {
  let prev = '0';
  return amounts.map((a, i) => {
    const t = { nr: String(i + 1), transID: String(100 + i), transType: 'CASHSAL', transDate: '2025-03-04', transTime: `10:0${i}:00`, empID: '7', transAmntIn: a, transAmntEx: a };
    const signature = sign('sha512', Buffer.from(danishSignedMessage(prev, t, 'KASSE-1', '12345678'), 'utf8'), cert.key).toString('base64');
    prev = signature;
    return { ...t, signature };
  });
}

function xml(trans: Trans[], cert: Cert): string {
  const body = cert.certPem.replace(/-----(BEGIN|END) CERTIFICATE-----|\s/g, '');
  const ts = trans.map(
    (t) => `<cashtransaction><nr>${t.nr}</nr><transID>${t.transID}</transID><transType>${t.transType}</transType><transAmntIn>${t.transAmntIn}</transAmntIn><transAmntEx>${t.transAmntEx}</transAmntEx>
<amntTp>C</amntTp><empID>${t.empID}</empID><transDate>${t.transDate}</transDate><transTime>${t.transTime}</transTime><signature>${t.signature}</signature><keyVersion>1</keyVersion><certificateData>${body}</certificateData></cashtransaction>`,
  );
  return `<?xml version="1.0" encoding="UTF-8"?>
<auditfile xmlns="${DK_NAMESPACE}"><company><companyIdent>12345678</companyIdent><location><cashregister><registerID>KASSE-1</registerID>
${ts.join('\n')}
</cashregister></location></company></auditfile>
`;
}

function file(name: string, text: string): string {
  const dir = mkdtempSync(join(work, 'f-'));
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

const AMOUNTS = ['35.00', '-12.50', '100.00', '8.00', '19.95'];
const good = chain(AMOUNTS, GENUINE);

test('the fingerprints of the certificate used are printed, as openssl computes them', async () => {
  const r = await verifyDanishExport(file('good.xml', xml(good, GENUINE)));
  assert.equal(r.ok, true, r.text);
  assert.match(r.text, /all 5 checked signatures verify/);
  const certFile = file('c.pem', GENUINE.certPem);
  const x = spawnSync('openssl', ['x509', '-in', certFile, '-noout', '-fingerprint', '-sha256'], { encoding: 'utf8' });
  assert.equal(x.status, 0, x.stderr);
  const certFp = /=([0-9A-F:]{95})/.exec(x.stdout)?.[1] ?? 'none';
  assert.ok(r.text.includes(`certificate SHA-256 ${certFp}`), r.text);
  assert.match(r.text, /compare their fingerprints/);
});

test('a chain re-signed under another certificate passes alone, and is caught with --key', async () => {
  const forger = makeCertificate();
  const forged = chain(['35.00', '-12.50', '1.00', '8.00', '19.95'], forger);
  const path = file('forged.xml', xml(forged, forger));
  assert.equal((await verifyDanishExport(path)).ok, true);
  for (const pin of [GENUINE.certPem, GENUINE.pubPem]) {
    const r = await verifyDanishExport(path, { keys: [file('expected.pem', pin)] });
    assert.equal(r.ok, false);
    assert.match(r.text, /BROKEN at register KASSE-1, cashtransaction nr 1 \(transID 100\): signed with another key: .*not the --key .*the signature verifies with that other key/);
  }
  const genuine = await verifyDanishExport(file('good.xml', xml(good, GENUINE)), { keys: [file('expected.pem', GENUINE.certPem)] });
  assert.equal(genuine.ok, true, genuine.text);
  assert.match(genuine.text, /pinned: --key /);
  // through the command: exit 1 naming the transaction, 0 for the genuine file
  const cli = (...args: string[]) => spawnSync(process.execPath, ['--import', 'tsx', join(ROOT, 'src/cli.ts'), 'verify', '--country', 'dk', ...args], { cwd: ROOT, encoding: 'utf8', timeout: 60_000 });
  const keyFile = file('expected.pem', GENUINE.pubPem);
  const bad = cli('--key', keyFile, path);
  assert.equal(bad.status, 1, bad.stderr);
  assert.match(bad.stderr, /cashtransaction nr 1 \(transID 100\): signed with another key/);
  const ok = cli('--key', keyFile, file('good.xml', xml(good, GENUINE)));
  assert.equal(ok.status, 0, ok.stderr);
  const refused = spawnSync(process.execPath, ['--import', 'tsx', join(ROOT, 'src/cli.ts'), 'verify', '--country', 'pt', '--key', keyFile, path], { cwd: ROOT, encoding: 'utf8', timeout: 60_000 });
  assert.equal(refused.status, 2);
  assert.match(refused.stderr, /--key is not taken for --country pt/);
});

test('a period file with previous-signature.txt: the first transaction is checked, a tampered one caught', async () => {
  const later = good.slice(2);
  const previous = `KASSE-1 2 ${(good[1] as Trans).signature}\n`;
  const period = (trans: Trans[], prevText?: string): string => {
    const path = file('period.xml', xml(trans, GENUINE));
    if (prevText !== undefined) writeFileSync(join(path, '..', 'previous-signature.txt'), prevText);
    return path;
  };
  const r = await verifyDanishExport(period(later, previous));
  assert.equal(r.ok, true, r.text);
  assert.match(r.text, /all 3 checked signatures verify/);
  assert.match(r.text, /nr 3 chained to the signature of nr 2 from previous-signature\.txt/);
  const tampered = later.map((t) => (t.nr === '3' ? { ...t, transAmntIn: '10.00' } : t));
  const bad = await verifyDanishExport(period(tampered, previous));
  assert.equal(bad.ok, false);
  assert.match(bad.text, /BROKEN at register KASSE-1, cashtransaction nr 3 \(transID 102\): the signature does not verify/);
  const blind = await verifyDanishExport(period(tampered));
  assert.equal(blind.ok, true, blind.text);
  assert.match(blind.text, /2 of 3 signatures verified/);
  assert.doesNotMatch(blind.text, /\ball\b/);
  const wrongNr = await verifyDanishExport(period(later, `KASSE-1 1 ${(good[1] as Trans).signature}\n`));
  assert.equal(wrongNr.ok, false);
  assert.match(wrongNr.text, /nr 3 .*previous-signature\.txt gives nr 1 .* must be nr 2, not nr 3/);
});

test('a signature with junk appended, or of another length, is refused', async () => {
  for (const change of [(s: string) => `${s}AAAA`, (s: string) => `${s}junk`, (s: string) => s.slice(0, -4), (s: string) => `${s.slice(0, -2)}B=`]) {
    const trans = good.map((t) => (t.nr === '4' ? { ...t, signature: change(t.signature) } : t));
    const r = await verifyDanishExport(file('junk.xml', xml(trans, GENUINE)));
    assert.equal(r.ok, false, r.text);
    assert.match(r.text, /cashtransaction nr 4 \(transID 103\): the signature is not the exact base64 of a 256-byte signature/);
  }
});
