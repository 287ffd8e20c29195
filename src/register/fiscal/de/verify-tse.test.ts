/**
 * `efr verify --country de` on TARs laid out as other vendors' TSEs lay them out: a brainpoolP384r1 TSE
 * under a CA chain (root and sub-CA in the TAR, PEM and DER, .crt/.pem/.der), ecdsa-plain-SHA384, logTime
 * as GeneralizedTime and unixTime, system logs of operations we never write, an audit log, an export that
 * starts in the middle of the series; and each way one breaks, named by its file.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describeTseReport, verifyTse } from './verify-tse.js';
import { DE_VERIFIER } from './verifier.js';
import { type Issued, explicitTime, fields, int, issue, makeRootCa, systemData, tarBytes, transactionData, vendorLog } from './tse-tar.testing.js';

const T0 = 1_732_000_000n;

interface Scenario {
  dir: string;
  root: Issued;
  sub: Issued;
  tse: Issued;
  /** the files of the TAR, in the order written */
  entries: Array<[string, Buffer]>;
  names: Record<string, string>;
}

function scenario(): Scenario {
  const dir = mkdtempSync(join(tmpdir(), 'efr-de-vendor-'));
  const root = makeRootCa(dir, 'ROOT_CA');
  const sub = issue(dir, 'SUB_CA', root, 'ca');
  const tse = issue(dir, 'TSE', sub, 'tse');
  const S = tse.serial;
  const entries: Array<[string, Buffer]> = [];
  const names: Record<string, string> = {};
  const add = (key: string, name: string, bytes: Buffer): void => {
    names[key] = name;
    entries.push([name, bytes]);
  };
  const at = (n: bigint): bigint => T0 + n * 60n;
  const sys = (n: bigint, op: string, data: Buffer, timeFormat: 'unixTime' | 'generalizedTime' = 'unixTime'): Buffer =>
    vendorLog(tse.key, S, { kind: 'system', counter: n, time: at(n), certified: systemData(op, data), timeFormat });
  // counters 1..4 were exported before: this export starts at 5
  add('registerClient', `Gent_20241119T070500Z_Sig-5_Log-Sys_registerClient.log`, sys(5n, 'registerClient', fields([1, Buffer.from('KASSE-1')]), 'generalizedTime'));
  add('startAudit', `Unixt_${at(6n)}_Sig-6_Log-Sys_startAudit.log`, sys(6n, 'startAudit', fields()));
  add('audit', `Unixt_${at(7n)}_Sig-7_Log-Aud.log`, vendorLog(tse.key, S, { kind: 'audit', counter: 7n, time: at(7n), seAuditData: Buffer.from('3003020101', 'hex') }));
  add('configureLogging', `Unixt_${at(8n)}_Sig-8_Log-Sys_configureLogging.log`, sys(8n, 'configureLogging', fields([1, Buffer.from('transactionLog')], [2, Buffer.from([0xff])])));
  add('selfTest', `Unixt_${at(9n)}_Sig-9_Log-Sys_selfTest.log`, sys(9n, 'selfTest', fields([1, Buffer.from('SMAERS')], [2, Buffer.from([0xff])])));
  add('enterSecureState', `Unixt_${at(10n)}_Sig-10_Log-Sys_enterSecureState.log`, sys(10n, 'enterSecureState', fields(explicitTime(1, new Date(Number(at(10n)) * 1000)))));
  add('authenticateUser', `Unixt_${at(11n)}_Sig-11_Log-Sys_authenticateUser.log`, sys(11n, 'authenticateUser', fields([1, Buffer.from('Admin')], [2, int(0n)], [3, Buffer.from([0xff])], [4, int(3n)])));
  // the BSI TSE simulator writes the fields without the SEQUENCE around them
  const bare = Buffer.concat([Buffer.from([0x81, 0x04]), Buffer.from(int(at(12n) - 5n)), Buffer.from([0x82, 0x04]), Buffer.from(int(at(12n)))]);
  add('updateTime', `Unixt_${at(12n)}_Sig-12_Log-Sys_updateTime.log`, sys(12n, 'updateTime', bare));
  const tra = (n: bigint, op: string, tn: bigint, pd: string): Buffer => vendorLog(tse.key, S, { kind: 'transaction', counter: n, time: at(n), certified: transactionData(op, 'KASSE-1', pd, 'Kassenbeleg-V1', tn) });
  add('start', `Unixt_${at(13n)}_Sig-13_Log-Tra_No-42_Start_Client-KASSE-1.log`, tra(13n, 'StartTransaction', 42n, ''));
  add('finish', `Unixt_${at(14n)}_Sig-14_Log-Tra_No-42_Finish_Client-KASSE-1.log`, tra(14n, 'FinishTransaction', 42n, 'Beleg^1.00_0.00_0.00_0.00_0.00^1.00:Bar'));
  // started before this export began
  add('finishEarlier', `Unixt_${at(15n)}_Sig-15_Log-Tra_No-41_Finish_Client-KASSE-1.log`, tra(15n, 'FinishTransaction', 41n, 'Beleg^2.00_0.00_0.00_0.00_0.00^2.00:Bar'));
  add('tseCert', `${S.toUpperCase()}_X509.der`, tse.certDer);
  add('subCa', 'SUB_CA_X509.pem', sub.certPem);
  add('rootCa', 'ROOT_CA_X509.crt', root.certDer);
  add('info', 'info.csv', Buffer.from('"description:","Test TSE";"manufacturer:","Test";"version:","1"\r\n'));
  return { dir, root, sub, tse, entries, names };
}

const s = scenario();
test.after(() => rmSync(s.dir, { recursive: true, force: true }));

const files = (change: (m: Map<string, Buffer>) => void = () => undefined): Map<string, Buffer> => {
  const m = new Map(s.entries);
  change(m);
  return m;
};
const name = (key: string): string => s.names[key] as string;

test("a vendor's partial export with a CA chain, other system operations and an audit log verifies", () => {
  const r = verifyTse(files());
  assert.equal(r.ok, true, describeTseReport(r));
  assert.equal(r.count, 11);
  const text = describeTseReport(r);
  assert.match(text, /^OK: 11 log messages/);
  assert.match(text, new RegExp(`TSE ${s.tse.serial}: 11 log messages, signature counters 5 to 15`));
  assert.match(text, /starts in the middle of the TSE's series: counters 1 to 4 are in earlier exports/);
  assert.match(text, /chain verified up to the root in ROOT_CA_X509\.crt/);
  assert.match(text, /ending at counter 15: a later log message, if any, is in a later export/);
});

test("a TSE certificate named for another serial than its key's", () => {
  const wrong = 'ab'.repeat(32);
  const r = verifyTse(files((m) => {
    m.set(`${wrong}_X509.der`, m.get(name('tseCert')) as Buffer);
    m.delete(name('tseCert'));
  }));
  assert.equal(r.ok, false);
  assert.equal(r.broken?.file, `${wrong}_X509.der`);
  assert.match(r.broken?.reason ?? '', new RegExp(`named for serial ${wrong}, the SHA-256 of its certificate's key is ${s.tse.serial}`));
});

test('the TSE certificate as PEM in a .cer file, the CA chain in one PEM file', () => {
  const r = verifyTse(files((m) => {
    m.delete(name('tseCert'));
    m.delete(name('subCa'));
    m.delete(name('rootCa'));
    m.set(`${s.tse.serial}_X509.cer`, s.tse.certPem);
    m.set('CA_chain.pem', Buffer.concat([s.sub.certPem, s.root.certPem]));
  }));
  assert.equal(r.ok, true, describeTseReport(r));
  assert.match(describeTseReport(r), /chain verified up to the root in CA_chain\.pem/);
});

test('without its CA certificates the chain is said to end in the TAR, the logs still verify', () => {
  const r = verifyTse(files((m) => {
    m.delete(name('subCa'));
    m.delete(name('rootCa'));
  }));
  assert.equal(r.ok, true, describeTseReport(r));
  assert.match(describeTseReport(r), /its issuer \(CN=SUB_CA, O=Test TSE Vendor\) is not in the TAR/);
});

test('a changed signature is named by its file', () => {
  const r = verifyTse(files((m) => {
    const b = Buffer.from(m.get(name('selfTest')) as Buffer);
    b[b.length - 1] = (b[b.length - 1] as number) ^ 1;
    m.set(name('selfTest'), b);
  }));
  assert.equal(r.ok, false);
  assert.equal(r.broken?.file, name('selfTest'));
  assert.match(r.broken?.reason ?? '', /signature does not verify/);
});

test('a missing TSE certificate is named at the first log it leaves unverified', () => {
  const r = verifyTse(files((m) => m.delete(name('tseCert'))));
  assert.equal(r.ok, false);
  assert.equal(r.broken?.file, name('registerClient'));
  assert.match(r.broken?.reason ?? '', new RegExp(`no certificate in the TAR whose key has this log's serial number ${s.tse.serial}`));
});

test('a gap inside the export names the log after it', () => {
  const r = verifyTse(files((m) => m.delete(name('enterSecureState'))));
  assert.equal(r.ok, false);
  assert.equal(r.broken?.file, name('authenticateUser'));
  assert.match(r.broken?.reason ?? '', /signature counter 11 follows 9/);
});

test("a TSE certificate whose signature is not its issuer's", () => {
  const cert = Buffer.from(s.tse.certDer);
  cert[cert.length - 1] = (cert[cert.length - 1] as number) ^ 1;
  const r = verifyTse(files((m) => m.set(name('tseCert'), cert)));
  assert.equal(r.ok, false);
  assert.equal(r.broken?.file, name('tseCert'));
  assert.match(r.broken?.reason ?? '', /not signed by the key of its issuer in SUB_CA_X509\.pem/);
});

test('a CA certificate of the same name but another key is no issuer of the TSE certificate', () => {
  const other = mkdtempSync(join(tmpdir(), 'efr-de-other-'));
  try {
    const fakeSub = issue(other, 'SUB_CA', makeRootCa(other, 'ROOT_CA'), 'ca');
    const r = verifyTse(files((m) => m.set(name('subCa'), fakeSub.certPem)));
    assert.equal(r.ok, true, describeTseReport(r));
    assert.match(describeTseReport(r), /its issuer \(CN=SUB_CA, O=Test TSE Vendor\) is not in the TAR/);
  } finally {
    rmSync(other, { recursive: true, force: true });
  }
});

test("a system log whose systemOperationData lacks a mandatory field of its operation", () => {
  const bad = vendorLog(s.tse.key, s.tse.serial, { kind: 'system', counter: 9n, time: T0, certified: systemData('selfTest', fields([1, Buffer.from('SMAERS')])) });
  const r = verifyTse(files((m) => m.set(name('selfTest'), bad)));
  assert.equal(r.ok, false);
  assert.equal(r.broken?.file, name('selfTest'));
  assert.match(r.broken?.reason ?? '', /systemOperationData of selfTest has no result \[2\]/);
  // updateTime names the time before the update as well as after it (TR-03151: both mandatory, de.md)
  const noBefore = vendorLog(s.tse.key, s.tse.serial, { kind: 'system', counter: 12n, time: T0, certified: systemData('updateTime', fields(explicitTime(2, new Date(Number(T0) * 1000)))) });
  const u = verifyTse(files((m) => m.set(name('updateTime'), noBefore)));
  assert.equal(u.broken?.file, name('updateTime'));
  assert.match(u.broken?.reason ?? '', /systemOperationData of updateTime has no timeBeforeUpdate \[1\]/);
});

test('a file named for another signature counter than its log message has', () => {
  const r = verifyTse(files((m) => {
    m.set(`Unixt_${T0}_Sig-99_Log-Sys_selfTest.log`, m.get(name('selfTest')) as Buffer);
    m.delete(name('selfTest'));
  }));
  assert.equal(r.ok, false);
  assert.match(r.broken?.reason ?? '', /named for signature counter 99, the log message has 9/);
});

test('a file that is no log message, a certificate that is no certificate', () => {
  const notLog = verifyTse(files((m) => m.set(name('audit'), Buffer.from('not DER'))));
  assert.equal(notLog.broken?.file, name('audit'));
  assert.match(notLog.broken?.reason ?? '', /^not a log message/);
  const notCert = verifyTse(files((m) => m.set(name('rootCa'), Buffer.from('not a certificate'))));
  assert.equal(notCert.broken?.file, name('rootCa'));
  assert.match(notCert.broken?.reason ?? '', /not an X\.509 certificate/);
});

test('efr verify --country de reads the TAR from disk and says so when the file is not one', async () => {
  const tar = join(s.dir, 'vendor.tar');
  writeFileSync(tar, await tarBytes(s.entries));
  const ok = await DE_VERIFIER.verify(tar);
  assert.equal(ok.ok, true, ok.text);
  assert.match(ok.text, /^OK: 11 log messages/);
  const junk = join(s.dir, 'junk.tar');
  writeFileSync(junk, Buffer.alloc(2000, 7));
  const bad = await DE_VERIFIER.verify(junk);
  assert.equal(bad.ok, false);
  assert.match(bad.text, /^BROKEN at .*junk\.tar: .*not a readable TAR/);
});

test('a system log in the layout this service wrote before verifies and is counted in the result', () => {
  const legacy = vendorLog(s.tse.key, s.tse.serial, {
    kind: 'system', counter: 5n, time: T0,
    certified: [[0, Buffer.from('initialize')], [1, Buffer.from('SE-API')], [2, Buffer.from('efr')], [3, Buffer.alloc(0)]],
  });
  const r = verifyTse(files((m) => m.set(name('registerClient'), legacy)));
  assert.equal(r.ok, true, describeTseReport(r));
  assert.match(describeTseReport(r), /1 system log\(s\) of older journal records not in TR-03151's SystemLogMessage layout/);
});

test('system logs as the BSI TSE simulator and other vendors may write them: no systemOperationData, an operation of its own', () => {
  const noData = vendorLog(s.tse.key, s.tse.serial, { kind: 'system', counter: 5n, time: T0, certified: [[0, Buffer.from('Initialize')]] });
  const own = vendorLog(s.tse.key, s.tse.serial, { kind: 'system', counter: 8n, time: T0, certified: systemData('setConfiguration', Buffer.from('3006020101020102', 'hex')) });
  const r = verifyTse(files((m) => {
    m.set(name('registerClient'), noData);
    m.set(name('configureLogging'), own);
  }));
  assert.equal(r.ok, true, describeTseReport(r));
});
