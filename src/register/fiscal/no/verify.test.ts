/**
 * `efr verify --country no`: a small SAF-T Cash Register file is built and signed here with node:crypto
 * (RSA-1024, SHA-1, the chained `prev;transDate;transTime;nr;transAmntIn;transAmntEx` string), two
 * registers under two key versions, zipped with its PEMs. The good file verifies; a changed amount, a
 * removed transaction, a wrong key, a missing key version and a malformed amount are each named; a file
 * starting mid-chain is OK with a note ("N-1 of N"), and with previous-signature.txt its first one is
 * checked too. A chain re-signed with another key (its key put in the zip) passes on its own but is caught
 * with `--key`; the printed fingerprints are compared with openssl's; a signature with junk appended is
 * refused. One signature is also checked with openssl, independently of the verifier, and the CLI's exit
 * codes are checked.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { type KeyObject, generateKeyPairSync, sign } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ZipFile } from 'yazl';
import { NO_NAMESPACE, type NoCashTransaction, signedString, verifyExportFile } from './verify.js';

const ROOT = fileURLToPath(new URL('../../../..', import.meta.url));
const work = mkdtempSync(join(tmpdir(), 'efr-no-verify-'));
test.after(() => rmSync(work, { recursive: true, force: true }));

interface Key {
  priv: KeyObject;
  pem: string;
}
function rsaKey(): Key {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 1024 });
  return { priv: privateKey, pem: publicKey.export({ type: 'spki', format: 'pem' }).toString() };
}
const key1 = rsaKey();
const key2 = rsaKey();

type Trans = NoCashTransaction;

/** Signs a register's chain: nr 1..n, each over the previous signature ('0' for nr 1). */
function chain(registerID: string, amounts: Array<[string, string]>, key: Key, keyVersion: string): { registerID: string; trans: Trans[]; data: string[] } {
  const trans: Trans[] = [];
  const data: string[] = [];
  let prev = '0';
  amounts.forEach(([amntIn, amntEx], i) => {
    const t = { nr: String(i + 1), transID: `${registerID}-T${i + 1}`, transDate: '2026-11-23', transTime: `10:${String(i).padStart(2, '0')}:00`, transAmntIn: amntIn, transAmntEx: amntEx };
    const s = signedString(prev, t);
    const signature = sign('sha1', Buffer.from(s, 'utf8'), key.priv).toString('base64');
    data.push(s);
    trans.push({ ...t, signature, keyVersion });
    prev = signature;
  });
  return { registerID, trans, data };
}

// 11 transactions so that nr 10 and 11 sort after 9 only numerically; a return, a pay-in, a training sale
const k1 = chain('K1', [['125.00', '100.00'], ['-16.40', '-13.12'], ['200.00', '200.00'], ['50.00', '40.00'], ['0.00', '0.00'], ['99.90', '79.92'], ['10.00', '8.00'], ['20.00', '16.00'], ['30.00', '24.00'], ['40.00', '32.00'], ['1250.00', '1000.00']], key1, '1');
const k2 = chain('K2', [['514.20', '418.50'], ['-514.20', '-418.50']], key2, '2');

function transXml(t: Trans): string {
  return `      <cashtransaction>
        <nr>${t.nr}</nr><transID>${t.transID}</transID><transType>CASHSAL</transType>
        <transAmntIn>${t.transAmntIn}</transAmntIn><transAmntEx>${t.transAmntEx}</transAmntEx><amntTp>C</amntTp>
        <transDate>${t.transDate}</transDate><transTime>${t.transTime}</transTime>
        <ctLine><nr>99</nr><lineID>1</lineID><lineType>SAL</lineType><lineAmntIn>${t.transAmntIn}</lineAmntIn><lineAmntEx>${t.transAmntEx}</lineAmntEx><amntTp>C</amntTp></ctLine>
        <payment><paymentType>CASH</paymentType><paidAmnt>${t.transAmntIn}</paidAmnt></payment>
        <signature>${t.signature}</signature><keyVersion>${t.keyVersion}</keyVersion><receiptNum>1</receiptNum>
      </cashtransaction>`;
}

function saftXml(registers: Array<{ registerID: string; trans: Trans[] }>, ns = NO_NAMESPACE): string {
  const regs = registers
    .map(
      (r) => `    <cashregister><registerID>${r.registerID}</registerID><regDesc>Kasse ${r.registerID}</regDesc>
      <event><eventID>1</eventID><eventType>POSSTART</eventType><eventDate>2026-11-23</eventDate><eventTime>09:00:00</eventTime></event>
${r.trans.map(transXml).join('\n')}
    </cashregister>`,
    )
    .join('\n');
  return `<?xml version="1.0" encoding="UTF-8"?>
<auditfile xmlns="${ns}">
  <header><fiscalYear>2026</fiscalYear><curCode>NOK</curCode><auditfileVersion>1.0</auditfileVersion></header>
  <company><companyIdent>999999999</companyIdent><companyName>Prøvebutikk AS</companyName>
  <location><name>Butikk</name>
${regs}
  </location></company>
</auditfile>
`;
}

async function zipOf(files: Record<string, string>, name: string): Promise<string> {
  const zip = new ZipFile();
  for (const [n, text] of Object.entries(files)) zip.addBuffer(Buffer.from(text, 'utf8'), n);
  zip.end();
  const chunks: Buffer[] = [];
  for await (const c of zip.outputStream) chunks.push(c as Buffer);
  const path = join(work, name);
  writeFileSync(path, Buffer.concat(chunks));
  return path;
}

const XML_NAME = 'SAF-T Cash Register_999999999_20261123120000.xml';
function exportZip(xml: string, name: string, keys: Record<string, string> = { '1': key1.pem, '2': key2.pem }): Promise<string> {
  const files: Record<string, string> = { [XML_NAME]: xml };
  for (const [v, pem] of Object.entries(keys)) files[`public-key-${v}.pem`] = pem;
  return zipOf(files, name);
}

function efrVerify(file: string, ...options: string[]): { code: number | null; out: string } {
  const r = spawnSync(process.execPath, ['--import', 'tsx', join(ROOT, 'src/cli.ts'), 'verify', '--country', 'no', ...options, file], { cwd: ROOT, encoding: 'utf8', timeout: 60_000 });
  return { code: r.status, out: `${r.stdout}${r.stderr}` };
}

const good = saftXml([k1, k2]);

test('a good export verifies: counts per register, all signatures', async () => {
  const r = await verifyExportFile(await exportZip(good, 'good.zip'));
  assert.equal(r.ok, true, r.text);
  assert.match(r.text, /all 13 signatures verify/);
  assert.match(r.text, /register K1: 11 cashtransactions \(nr 1 to 11\)/);
  assert.match(r.text, /register K2: 2 cashtransactions \(nr 1 to 2\)/);
});

test('one signature checks out with openssl, independently of the verifier', () => {
  const t = k1.trans[1] as Trans;
  const data = k1.data[1] as string;
  assert.equal(data, `${(k1.trans[0] as Trans).signature};2026-11-23;10:01:00;2;-16.40;-13.12`);
  writeFileSync(join(work, 'pub.pem'), key1.pem);
  writeFileSync(join(work, 'sig.bin'), Buffer.from(t.signature, 'base64'));
  writeFileSync(join(work, 'data.txt'), data);
  const ok = spawnSync('openssl', ['dgst', '-sha1', '-verify', join(work, 'pub.pem'), '-signature', join(work, 'sig.bin'), join(work, 'data.txt')], { encoding: 'utf8' });
  assert.equal(ok.status, 0, ok.stderr);
  assert.match(ok.stdout, /Verified OK/);
  writeFileSync(join(work, 'data.txt'), data.replace('-16.40', '-16.41'));
  const bad = spawnSync('openssl', ['dgst', '-sha1', '-verify', join(work, 'pub.pem'), '-signature', join(work, 'sig.bin'), join(work, 'data.txt')], { encoding: 'utf8' });
  assert.notEqual(bad.status, 0);
});

test('a changed amount is named by register, nr and transID', async () => {
  const trans = k1.trans.map((t) => (t.nr === '3' ? { ...t, transAmntIn: '20.00' } : t));
  const r = await verifyExportFile(await exportZip(saftXml([{ registerID: 'K1', trans }, k2]), 'amount.zip'));
  assert.equal(r.ok, false);
  assert.match(r.text, /register K1, cashtransaction nr 3 \(transID K1-T3\): the signature does not verify/);
});

test('a removed transaction is named as a gap', async () => {
  const trans = k1.trans.filter((t) => t.nr !== '7');
  const r = await verifyExportFile(await exportZip(saftXml([{ registerID: 'K1', trans }, k2]), 'gap.zip'));
  assert.equal(r.ok, false);
  assert.match(r.text, /register K1, cashtransaction nr 8 \(transID K1-T8\): gap: nr 8 follows nr 6 \(nr 7 is missing\)/);
});

test('a wrong key is named at the first transaction it signs', async () => {
  const r = await verifyExportFile(await exportZip(good, 'wrongkey.zip', { '1': key1.pem, '2': rsaKey().pem }));
  assert.equal(r.ok, false);
  assert.match(r.text, /register K2, cashtransaction nr 1 \(transID K2-T1\): the signature does not verify with key version 2/);
});

test('a missing key version is named', async () => {
  const r = await verifyExportFile(await exportZip(good, 'nokey.zip', { '1': key1.pem }));
  assert.equal(r.ok, false);
  assert.match(r.text, /register K2, cashtransaction nr 1 \(transID K2-T1\): missing key version 2: no public-key-2\.pem in the zip/);
});

test('a malformed amount is named', async () => {
  const trans = k2.trans.map((t) => (t.nr === '2' ? { ...t, transAmntEx: '-418.5' } : t));
  const r = await verifyExportFile(await exportZip(saftXml([k1, { registerID: 'K2', trans }]), 'malformed.zip'));
  assert.equal(r.ok, false);
  assert.match(r.text, /register K2, cashtransaction nr 2 \(transID K2-T2\): malformed amount: transAmntEx "-418.5"/);
});

test('a file starting mid-chain is OK with a note, and checks from the next transaction on', async () => {
  const later = k1.trans.filter((t) => Number(t.nr) >= 9);
  const r = await verifyExportFile(await exportZip(saftXml([{ registerID: 'K1', trans: later }]), 'mid.zip'));
  assert.equal(r.ok, true, r.text);
  assert.match(r.text, /2 of 3 signatures verified \(1 not checked/);
  assert.doesNotMatch(r.text, /\ball\b/);
  assert.match(r.text, /starts mid-chain at nr 9; the signature of nr 9 needs the signature of nr 8/);
  const tampered = later.map((t) => (t.nr === '10' ? { ...t, transTime: '10:09:01' } : t));
  const bad = await verifyExportFile(await exportZip(saftXml([{ registerID: 'K1', trans: tampered }]), 'mid-bad.zip'));
  assert.equal(bad.ok, false);
  assert.match(bad.text, /register K1, cashtransaction nr 10 /);
});

test('a bare XML file takes the PEMs beside it; another namespace is refused', async () => {
  const dir = mkdtempSync(join(work, 'bare-'));
  const file = join(dir, XML_NAME);
  writeFileSync(file, good);
  writeFileSync(join(dir, 'public-key-1.pem'), key1.pem);
  const without = await verifyExportFile(file);
  assert.equal(without.ok, false);
  assert.match(without.text, /register K2, .*missing key version 2: no public-key-2\.pem beside/);
  writeFileSync(join(dir, 'public-key-2.pem'), key2.pem);
  const r = await verifyExportFile(file);
  assert.equal(r.ok, true, r.text);
  writeFileSync(file, saftXml([k1, k2], 'urn:StandardAuditFile-Taxation-CashRegister:DK'));
  const dk = await verifyExportFile(file);
  assert.equal(dk.ok, false);
  assert.match(dk.text, /not a readable Norwegian SAF-T Cash Register file/);
});

// the CLI's exit codes on a good and a tampered export: test/no-saft.e2e.test.ts (on the service's real export)

/** The SHA-256 of a PEM public key's DER, as openssl prints it (colon-separated, upper-cased here). */
function opensslFingerprint(pem: string): string {
  const file = join(work, 'fp.pem');
  writeFileSync(file, pem);
  const der = spawnSync('openssl', ['pkey', '-pubin', '-in', file, '-outform', 'DER']);
  assert.equal(der.status, 0, String(der.stderr));
  const dgst = spawnSync('openssl', ['dgst', '-sha256', '-c'], { input: der.stdout, encoding: 'utf8' });
  assert.equal(dgst.status, 0, dgst.stderr);
  return (/([0-9a-f]{2}(?::[0-9a-f]{2}){31})/.exec(dgst.stdout)?.[1] ?? '').toUpperCase();
}

function pemFile(name: string, pem: string): string {
  const file = join(work, name);
  writeFileSync(file, pem);
  return file;
}

test('the SHA-256 fingerprint of every key used is printed, as openssl computes it', async () => {
  const r = await verifyExportFile(await exportZip(good, 'fp.zip'));
  assert.equal(r.ok, true, r.text);
  const fp1 = opensslFingerprint(key1.pem);
  const fp2 = opensslFingerprint(key2.pem);
  assert.equal(fp1.length, 95);
  assert.match(r.text, new RegExp(`key: key version 1 .*SHA-256 ${fp1}, 11 signatures`));
  assert.match(r.text, new RegExp(`key: key version 2 .*SHA-256 ${fp2}, 2 signatures`));
  assert.match(r.text, /compare their fingerprints with the declared public key/);
});

test('a chain re-signed with another key and that key in the zip: passes alone, caught with --key', async () => {
  const forger = rsaKey();
  // the forger changes an amount and re-signs the whole chain of K1 with a fresh key version 1
  const amounts: Array<[string, string]> = k1.trans.map((t) => [t.nr === '3' ? '2.00' : t.transAmntIn, t.nr === '3' ? '2.00' : t.transAmntEx]);
  const forged = chain('K1', amounts, forger, '1');
  const zip = await exportZip(saftXml([forged, k2]), 'forged.zip', { '1': forger.pem, '2': key2.pem });
  const alone = await verifyExportFile(zip);
  assert.equal(alone.ok, true, alone.text);
  assert.match(alone.text, new RegExp(`SHA-256 ${opensslFingerprint(forger.pem)}, 11 signatures`));
  assert.doesNotMatch(alone.text, new RegExp(opensslFingerprint(key1.pem)));

  const pinned = await verifyExportFile(zip, { keys: [pemFile('declared-1.pem', key1.pem), pemFile('declared-2.pem', key2.pem)] });
  assert.equal(pinned.ok, false);
  assert.match(pinned.text, /BROKEN at register K1, cashtransaction nr 1 \(transID K1-T1\): signed with another key: key version 1 of the export has SHA-256 [0-9A-F:]{95}, not the --key .*the signature verifies with that other key/);
  // the forger's PEM removed: the signature is checked with the --key alone, and fails
  const noPem = await verifyExportFile(await exportZip(saftXml([forged, k2]), 'forged-nopem.zip', { '2': key2.pem }), { keys: [pemFile('declared-1.pem', key1.pem)] });
  assert.equal(noPem.ok, false);
  assert.match(noPem.text, /register K1, cashtransaction nr 1 \(transID K1-T1\): the signature does not verify with the --key/);
  // the genuine export with both declared keys passes, and says the keys were pinned
  const genuine = await verifyExportFile(await exportZip(good, 'genuine.zip'), { keys: [join(work, 'declared-1.pem'), join(work, 'declared-2.pem')] });
  assert.equal(genuine.ok, true, genuine.text);
  assert.match(genuine.text, /all 13 signatures verify/);
  assert.match(genuine.text, new RegExp(`pinned: --key .*declared-1\\.pem, SHA-256 ${opensslFingerprint(key1.pem)}`));
  // only key 1 declared: K2's signatures are by another key
  const partly = await verifyExportFile(await exportZip(good, 'genuine2.zip'), { keys: [join(work, 'declared-1.pem')] });
  assert.equal(partly.ok, false);
  assert.match(partly.text, /register K2, cashtransaction nr 1 \(transID K2-T1\): signed with another key/);
  // an RSA-2048 --key is refused
  const big = generateKeyPairSync('rsa', { modulusLength: 2048 }).publicKey.export({ type: 'spki', format: 'pem' }).toString();
  const refused = await verifyExportFile(zip, { keys: [pemFile('big.pem', big)] });
  assert.equal(refused.ok, false);
  assert.match(refused.text, /is RSA-2048, not RSA-1024/);
});

test('efr verify --country no --key: exit 1 naming the re-signed transaction, 0 for the genuine export', async () => {
  const forger = rsaKey();
  const forged = chain('K2', [['514.20', '418.50'], ['-14.20', '-18.50']], forger, '2');
  const zip = await exportZip(saftXml([k1, forged]), 'cli-forged.zip', { '1': key1.pem, '2': forger.pem });
  const keys = ['--key', pemFile('cli-1.pem', key1.pem), '--key', pemFile('cli-2.pem', key2.pem)];
  const bad = efrVerify(zip, ...keys);
  assert.equal(bad.code, 1, bad.out);
  assert.match(bad.out, /register K2, cashtransaction nr 1 \(transID K2-T1\): signed with another key/);
  const ok = efrVerify(await exportZip(good, 'cli-genuine.zip'), ...keys);
  assert.equal(ok.code, 0, ok.out);
  assert.match(ok.out, /all 13 signatures verify/);
  const unreadable = efrVerify(zip, '--key', join(work, 'no-such.pem'));
  assert.equal(unreadable.code, 1, unreadable.out);
  assert.match(unreadable.out, /--key .*no-such\.pem cannot be read/);
});

test('a period export with previous-signature.txt: its first transaction is checked, and a tampered one is caught', async () => {
  const later = k1.trans.filter((t) => Number(t.nr) >= 9);
  const eight = k1.trans[7] as Trans;
  const previous = `K1 8 ${eight.signature}\n`;
  const zipWith = (trans: Trans[], name: string, prevText = previous): Promise<string> =>
    zipOf({ [XML_NAME]: saftXml([{ registerID: 'K1', trans }]), 'public-key-1.pem': key1.pem, 'previous-signature.txt': prevText }, name);
  const r = await verifyExportFile(await zipWith(later, 'period.zip'));
  assert.equal(r.ok, true, r.text);
  assert.match(r.text, /all 3 signatures verify/);
  assert.match(r.text, /nr 9 chained to the signature of nr 8 from previous-signature\.txt/);
  assert.doesNotMatch(r.text, /mid-chain/);

  const tampered = later.map((t) => (t.nr === '9' ? { ...t, transAmntIn: '31.00' } : t));
  const bad = await verifyExportFile(await zipWith(tampered, 'period-bad.zip'));
  assert.equal(bad.ok, false);
  assert.match(bad.text, /BROKEN at register K1, cashtransaction nr 9 \(transID K1-T9\): the signature does not verify/);
  // the same tampered file without previous-signature.txt passes, but never as "all"
  const blind = await verifyExportFile(await exportZip(saftXml([{ registerID: 'K1', trans: tampered }]), 'period-blind.zip', { '1': key1.pem }));
  assert.equal(blind.ok, true, blind.text);
  assert.match(blind.text, /2 of 3 signatures verified/);

  const wrongNr = await verifyExportFile(await zipWith(later, 'period-nr.zip', `K1 7 ${eight.signature}\n`));
  assert.equal(wrongNr.ok, false);
  assert.match(wrongNr.text, /cashtransaction nr 9 .*previous-signature\.txt gives nr 7 .* must be nr 8, not nr 9/);
  const wrongSig = await verifyExportFile(await zipWith(later, 'period-sig.zip', `K1 8 ${(k1.trans[6] as Trans).signature}\n`));
  assert.equal(wrongSig.ok, false);
  assert.match(wrongSig.text, /cashtransaction nr 9 \(transID K1-T9\): the signature does not verify/);
  const malformed = await verifyExportFile(await zipWith(later, 'period-malformed.zip', 'K1 8\n'));
  assert.equal(malformed.ok, false);
  assert.match(malformed.text, /previous-signature\.txt line 1 is not/);

  // beside a bare XML file too
  const dir = mkdtempSync(join(work, 'period-bare-'));
  const file = join(dir, XML_NAME);
  writeFileSync(file, saftXml([{ registerID: 'K1', trans: tampered }]));
  writeFileSync(join(dir, 'public-key-1.pem'), key1.pem);
  writeFileSync(join(dir, 'previous-signature.txt'), previous);
  const bare = await verifyExportFile(file);
  assert.equal(bare.ok, false);
  assert.match(bare.text, /register K1, cashtransaction nr 9 /);
});

test('a signature with junk appended, or cut short, is refused', async () => {
  for (const [junk, name] of [[(s: string) => `${s}AAAA`, 'junk.zip'], [(s: string) => `${s}junk`, 'junk2.zip'], [(s: string) => s.slice(0, -4), 'short.zip'], [(s: string) => `${s.slice(0, -2)}B=`, 'noncanonical.zip']] as const) {
    const trans = k2.trans.map((t) => (t.nr === '2' ? { ...t, signature: junk(t.signature) } : t));
    const r = await verifyExportFile(await exportZip(saftXml([k1, { registerID: 'K2', trans }]), name));
    assert.equal(r.ok, false, `${name}: ${r.text}`);
    assert.match(r.text, /register K2, cashtransaction nr 2 \(transID K2-T2\): the signature is not the exact base64 of an RSA-1024 signature/);
  }
  // a wrapped signature (white space inside) is the same signature
  const wrapped = k2.trans.map((t) => (t.nr === '2' ? { ...t, signature: `${t.signature.slice(0, 64)}\n        ${t.signature.slice(64)}` } : t));
  const ok = await verifyExportFile(await exportZip(saftXml([k1, { registerID: 'K2', trans: wrapped }]), 'wrapped.zip'));
  assert.equal(ok.ok, true, ok.text);
});
