/**
 * Sweden's module driven directly, with a real software control unit in a temporary data folder: a day of
 * receipts (sale, return, training, pay-in, copy, X and Z), the printed lines, one copy per receipt, the
 * numbering and chain; the SAF-T file written from those records validated with xmllint against the
 * Norwegian schema in Sweden's namespace, and verified by the verifier: whole, from the middle (with and
 * without previous-signature.txt), with a receipt removed, an amount or VAT changed, a copy changed or
 * doubled, and under a pinned key that is not the unit's.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { createPublicKey, generateKeyPairSync, sign, verify } from 'node:crypto';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir } from '../../../../test/helpers.js';
import { fiscalError, vectorPath } from '../../../shared/testing.js';
import type { Obj } from '../../codec/index.js';
import { classify } from '../../esr/business-case.js';
import { initialState } from '../../registers.js';
import type { FiscalInput } from '../module.js';
import { keyFingerprint } from '../saft-cash-register/pinned-keys.js';
import { controlData, registerIdOf } from './control-data.js';
import { type ControlUnit, openControlUnit } from './control-unit.js';
import { SeModule } from './index.js';
import { readSwedishFile } from './read-file.js';
import { SAFT_SE_NAMESPACE, swedishSaftXml } from './saft-xml.js';
import { keyLookup, verifySwedishFile } from './verify.js';
import { swedishFileOfRecords } from './verify-journal.js';

const CFG: Obj = { Cmp: { Nam: 'Kaffe Nord AB', Adr: 'Storgatan', AdrNr: '1', Zip: '111 22', City: 'Stockholm', Ctry: 'SE', Org: '556677-8899' }, Loc: { TL: '1' }, Trm: { TT: 'K1' } };

/** A normalized receipt: positions at 25 % (A) and 12 % (B), their TaxA, paid in cash. */
function receipt(a: string, b: string, extra: Obj = {}): Obj {
  const cents = (x: string): bigint => BigInt(x.replace('.', ''));
  const money = (c: bigint): string => `${c < 0n ? '-' : ''}${(c < 0n ? -c : c) / 100n}.${String((c < 0n ? -c : c) % 100n).padStart(2, '0')}`;
  const vat = (gross: bigint, rate: bigint): bigint => (gross * rate * 2n + (gross < 0n ? -1n : 1n) * (100n + rate)) / (2n * (100n + rate));
  const t = cents(a) + cents(b);
  const taxA: Obj[] = [];
  if (cents(a) !== 0n) taxA.push({ _: 'Tax', TaxG: 'A', Prc: '25', Amt: a, TAmt: money(vat(cents(a), 25n)), Net: money(cents(a) - vat(cents(a), 25n)) });
  if (cents(b) !== 0n) taxA.push({ _: 'Tax', TaxG: 'B', Prc: '12', Amt: b, TAmt: money(vat(cents(b), 12n)), Net: money(cents(b) - vat(cents(b), 12n)) });
  return {
    D: '2026-11-23T10:00:00', TL: '1', TT: 'K1', Opr: '7', T: money(t),
    PosA: [{ _: 'Pos', PN: '1', Dsc: 'Kaffe', TaxG: 'A', Amt: a }, { _: 'Pos', PN: '2', Dsc: 'Bulle', TaxG: 'B', Amt: b }],
    TaxA: taxA, PayA: [{ _: 'Pay', Dsc: 'Kontant', PayG: t < 0n ? 'refund' : 'cash', Amt: money(t) }], ...extra,
  };
}

function day(dataDir: string, cfg: Obj = CFG): { records: Obj[]; answers: Obj[]; m: SeModule; run: (esr: Obj, original?: Obj, reprints?: number) => Obj } {
  const m = new SeModule();
  const state = { ...initialState('def'), rid: 1, cfg };
  const records: Obj[] = [];
  const answers: Obj[] = [];
  let minute = 0;
  const run = (esr: Obj, original?: Obj, reprints?: number): Obj => {
    const sq = records.length + 1;
    minute += 1;
    const now = new Date(2026, 10, 23, 10, minute, 0);
    const bc = classify(esr);
    const input: FiscalInput = {
      rn: 'def', sq, prevHash: '', now, type: 'Tra', esr, bc, state, signer: {} as FiscalInput['signer'], dataDir, attributes: new Map(), tnGenerated: false,
      ...(original ? { original } : {}), ...(reprints !== undefined ? { reprints } : {}),
    };
    const fis = m.fiscalize(input);
    const ts = `2026-11-23T10:${String(minute).padStart(2, '0')}:00`;
    const record: Obj = { _: 'Tra', SQ: String(sq), TS: ts, BC: bc.kind, ...(bc.flags.length ? { BCF: bc.flags.join(' ') } : {}), ESR: esr, Fis: fis };
    records.push(record);
    answers.push(fis);
    if (bc.kind === 'closing') state.zi += 1;
    return fis;
  };
  return { records, answers, m, run };
}

const tags = (fis: Obj): Record<string, string> => Object.fromEntries((fis.Tag as Obj[]).map((t) => [String(t.Label || t.Name), String(t.Value)]));

function lint(xml: string, dir: string): void {
  const xsd = join(dir, 'se.xsd');
  writeFileSync(xsd, readFileSync(vectorPath('no-saft', 'Norwegian_SAF-T_Cash_Register_Schema_v_1.00.xsd'), 'utf8').replaceAll('urn:StandardAuditFile-Taxation-CashRegister:NO', SAFT_SE_NAMESPACE));
  const file = join(dir, 'se.xml');
  writeFileSync(file, xml);
  const r = spawnSync('xmllint', ['--noout', '--schema', xsd, file], { encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
}

test('a day of Swedish receipts: signed and chained by the control unit, printed in Swedish, one copy per receipt, the reports figures, the export verified', () => {
  const dataDir = tempDir('efr-se-unit-');
  try {
    const { records, run } = day(dataDir);
    run({ D: '2026-11-23T10:00:00', TL: '1', TT: 'K1', Opr: '7', NFS: 'LOGIN' });
    const s1 = run(receipt('40.00', '22.40'));
    const s2 = run(receipt('12.50', '0.00'));
    const ret = run(receipt('-40.00', '0.00', { RFN: '1' }));
    const training = run(receipt('10.00', '5.60', { Test: '1' }));
    const payin = run({ D: '2026-11-23T10:00:00', TL: '1', TT: 'K1', NFS: 'PAYIN', T: '500.00', PayA: [{ _: 'Pay', Dsc: 'Växel', PayG: 'cash', Amt: '500.00' }] });
    const original = records[2] as Obj;
    const copy = run({ D: '2026-11-23T10:00:00', TL: '1', TT: 'K1', NFS: 'DUP', RFN: '2' }, original, 0);
    const twice = fiscalError(() => run({ D: '2026-11-23T10:00:00', TL: '1', TT: 'K1', NFS: 'DUP', RFN: '2' }, original, 1));
    assert.equal(twice.code, '#INVALID_VALUE');
    const x = run({ D: '2026-11-23T10:00:00', TL: '1', TT: 'K1', NFS: 'X' });
    const z = run({ D: '2026-11-23T10:00:00', TL: '1', TT: 'K1', NFS: 'Z' });
    const s3 = run(receipt('25.00', '0.00'));

    assert.deepEqual([s1.FN, s2.FN, ret.FN, training.FN, payin.FN, s3.FN], ['1', '2', '3', '4', '5', '6']);
    assert.equal(copy.FN, undefined);
    assert.equal(x.Signature, undefined, 'a report is no receipt: not signed');
    const unit = openControlUnit(dataDir, 'def', false);
    const pub = createPublicKey(unit.publicKeyPem);
    // each signature over the control data as documented, chained over the one before
    assert.ok(verify('sha256', Buffer.from(controlData({
      prev: '0', orgNr: '5566778899', registerId: 'K1', date: '2026-11-23', time: '10:00:00', nr: '1', type: 'normal', amntIn: '62.40', amntEx: '52.00', vat: '25.00=8.00,12.00=2.40',
    })), { key: pub, dsaEncoding: 'ieee-p1363' }, Buffer.from(String(s1.Signature), 'base64')));
    assert.ok(verify('sha256', Buffer.from(controlData({
      prev: String(s2.Signature), orgNr: '5566778899', registerId: 'K1', date: '2026-11-23', time: '10:07:00', nr: '2', type: 'kopia', amntIn: '12.50', amntEx: '10.00', vat: '25.00=2.50',
    })), { key: pub, dsaEncoding: 'ieee-p1363' }, Buffer.from(String(copy.CopySignature), 'base64')), 'the copy: the original number and amounts, its own time, chained to the original');
    assert.equal(training.ReceiptType, 'ovning');

    assert.equal(tags(s1).Heading, 'KVITTO');
    assert.equal(tags(ret).Heading, 'RETURKVITTO');
    assert.equal(tags(training).Heading, 'ÖVNINGSKVITTO');
    assert.equal(tags(copy).Heading, 'KOPIA');
    assert.equal(tags(copy).Kvittonr, '2');
    assert.equal(tags(s1).Kontrollenhet, unit.id);
    const xt = tags(x);
    assert.equal(xt.Heading, 'X-DAGRAPPORT');
    assert.equal(xt['Försäljning totalt'], '34.90');
    assert.equal(xt['Antal kvitton'], '2');
    assert.equal(xt['Returer, belopp'], '40.00');
    assert.equal(xt['Kvittokopior, antal'], '1');
    assert.equal(xt['Kvittokopior, belopp'], '12.50');
    assert.equal(xt['Övningskvitton, antal'], '1');
    assert.equal(xt['Övningskvitton, belopp'], '15.60');
    assert.equal(xt['Växelkassa, insättningar'], '500.00');
    assert.equal(xt['Lådöppningar'], '4', 'three cash receipts and the pay-in');
    assert.equal(xt['Moms 25.00 %'], '2.50');
    assert.equal(xt['Grand total netto'], '34.90');
    const zt = tags(z);
    assert.equal(zt.Heading, 'Z-DAGRAPPORT');
    assert.equal(zt['Z-dagrapport nr'], '1');
    assert.equal(zt['Försäljning totalt'], '34.90');

    // the export of the whole journal
    const xml = swedishSaftXml({ records, cfg: CFG, registerId: 'K1', period: {}, created: new Date(2026, 10, 24), software: { name: 'efr', version: '1', company: 'efr' } });
    lint(xml, dataDir);
    const keyFor = (id: string): ReturnType<typeof createPublicKey> | string => (id === unit.id ? pub : `no key ${id}`);
    const file = readSwedishFile(xml, SAFT_SE_NAMESPACE);
    const good = verifySwedishFile(file, keyFor);
    assert.ok(good.ok, JSON.stringify(good.broken));
    assert.equal(good.registers[0]?.verified, 6);
    assert.equal(good.copies, 1);

    // a period without receipts: a valid file naming the organisation number all the same
    const empty = swedishSaftXml({ records: [], cfg: { ...CFG, Cmp: { ...(CFG.Cmp as Obj), TaxId: 'SE556677889901' } }, registerId: 'K1', period: { from: '2026-12-01', till: '2026-12-01' }, created: new Date(2026, 11, 2), software: { name: 'efr', version: '1', company: 'efr' } });
    lint(empty, dataDir);
    assert.match(empty, /<companyIdent>5566778899<\/companyIdent>/);

    // the same receipts and copy read from the journal records' Fis, as `efr verify --country se <jou.zip>` does
    const fromJournal = swedishFileOfRecords(records);
    assert.ok(typeof fromJournal !== 'string');
    const journal = verifySwedishFile(fromJournal, keyFor);
    assert.ok(journal.ok, JSON.stringify(journal.broken));
    assert.equal(journal.registers[0]?.verified, 6);
    assert.equal(journal.copies, 1);
    const changedFis = records.map((r) => (r.SQ === '3' ? { ...r, Fis: { ...(r.Fis as Obj), AmntIn: '2.50' } } : r));
    assert.match(String(swedishFileOfRecords(changedFis)), /nr 2 .*AmntIn 12\.50, but 2\.50 was signed/);
    const changedSignature = swedishFileOfRecords(records.map((r) => (r.SQ === '3' ? { ...r, Fis: { ...(r.Fis as Obj), Signature: s1.Signature } } : r)));
    assert.ok(typeof changedSignature !== 'string');
    assert.equal(verifySwedishFile(changedSignature, keyFor).broken?.nr, '2');
    // what the journal shows of a receipt (its ESR) is what its control unit signed (its Fis): a changed amount, VAT or time is named
    const changedEsr = (change: Obj): string | Obj => swedishFileOfRecords(records.map((r) => (r.SQ === '3' ? { ...r, ESR: { ...(r.ESR as Obj), ...change } } : r))) as string | Obj;
    assert.match(String(changedEsr({ T: '2.50' })), /nr 2 .*its ESR T gives AmntIn 2\.50, but 12\.50 was signed/);
    assert.match(String(changedEsr({ TaxA: [{ _: 'Tax', TaxG: 'A', Prc: '25', Amt: '12.50', TAmt: '2.00', Net: '10.50' }] })), /nr 2 /);
    assert.match(String(changedEsr({ D: '2026-11-23T09:00:00' })), /nr 2 /);

    // from the middle: without previous-signature.txt the first one is not checked; with it, it is
    const later = swedishSaftXml({ records, cfg: CFG, registerId: 'K1', period: { from: '2026-11-23T10:05' }, created: new Date(2026, 10, 24), software: { name: 'efr', version: '1', company: 'efr' } });
    const laterFile = readSwedishFile(later, SAFT_SE_NAMESPACE);
    const mid = verifySwedishFile(laterFile, keyFor);
    assert.ok(mid.ok);
    assert.deepEqual(mid.midChain.map((c) => c.nr), ['4']);
    assert.equal(mid.copiesUnchecked.length, 1, 'the copy of nr 2: its original is before the period');
    const chained = verifySwedishFile(laterFile, keyFor, { previous: new Map([['K1', { nr: '3', signature: String(ret.Signature) }]]) });
    assert.ok(chained.ok);
    assert.equal(chained.registers[0]?.verified, 3);
    const wrongPrev = verifySwedishFile(laterFile, keyFor, { previous: new Map([['K1', { nr: '3', signature: String(s2.Signature) }]]) });
    assert.equal(wrongPrev.ok, false);

    // tampering
    const broken = (changed: string): string => {
      assert.notEqual(changed, xml);
      const r = verifySwedishFile(readSwedishFile(changed, SAFT_SE_NAMESPACE), keyFor);
      assert.equal(r.ok, false);
      return `${r.broken?.nr ?? ''}: ${r.broken?.reason ?? ''}`;
    };
    assert.match(broken(xml.replace('<transAmntIn>12.50</transAmntIn>', '<transAmntIn>2.50</transAmntIn>')), /^2: the signature does not verify/);
    const txs = [...xml.matchAll(/<cashtransaction>[\s\S]*?<\/cashtransaction>/g)].map((mm) => mm[0]);
    assert.match(broken(xml.replace(txs[2] as string, '')), /^4: gap/);
    const t1 = txs[0] as string;
    const own = t1.slice(t1.lastIndexOf('</ctLine>'));
    assert.match(broken(xml.replace(t1, t1.slice(0, t1.length - own.length) + own.replace('<vatPerc>12.00</vatPerc>', '<vatPerc>6.00</vatPerc>'))), /^1: the signature does not verify/);
    assert.match(broken(xml.replace('<trainingID>true</trainingID>', '<trainingID>false</trainingID>')), /^4: /);
    const copyEvent = /<event>(?:(?!<\/event>)[\s\S])*?<eventType>COPYREC<\/eventType>[\s\S]*?<\/event>/.exec(xml)?.[0] ?? '';
    assert.match(broken(xml.replace(copyEvent, copyEvent.replace(/<eventTime>[^<]*</, '<eventTime>11:00:00<'))), /copy .*does not verify/);
    assert.match(broken(xml.replace(copyEvent, copyEvent + copyEvent)), /copied more than once/);
    assert.match(broken(xml.replace(copyEvent, copyEvent.replace('Kopia av kvitto nr 2', 'Kopia av kvitto nr 1'))), /names nr 1/);
    // the values verified are those a namespace-aware reader sees: an element of another namespace, a field twice or a field holding an element is refused
    const amountAs = (replacement: string): string => xml.replace('<transAmntIn>12.50</transAmntIn>', replacement);
    assert.throws(() => readSwedishFile(amountAs('<transAmntIn>2.50</transAmntIn><x:transAmntIn xmlns:x="urn:other">12.50</x:transAmntIn>'), SAFT_SE_NAMESPACE), /urn:other.*not in the file's namespace/);
    assert.throws(() => readSwedishFile(amountAs('<transAmntIn>2.50</transAmntIn><transAmntIn>12.50</transAmntIn>'), SAFT_SE_NAMESPACE), /<transAmntIn> twice/);
    assert.throws(() => readSwedishFile(amountAs('<transAmntIn>1<x:b xmlns:x="urn:other"/>2.50</transAmntIn>'), SAFT_SE_NAMESPACE), /namespace/);
    assert.throws(() => readSwedishFile(amountAs('<transAmntIn>1<nr/>2.50</transAmntIn>'), SAFT_SE_NAMESPACE), /<transAmntIn> holds an element <nr>/);
    assert.throws(() => readSwedishFile(xml.replace('<registerID>K1</registerID>', '<registerID>K2</registerID><registerID>K1</registerID>'), SAFT_SE_NAMESPACE), /<registerID> twice/);
    // a copy is found by the number it names: a transID naming no receipt of the file does not make a forged signature "unchecked"
    const forgedSignature = (e: string): string => e.replace(/signatur [A-Za-z0-9+/=]{88}/, `signatur ${String(s1.Signature)}`);
    assert.match(broken(xml.replace(copyEvent, forgedSignature(copyEvent.replace(/<transID>[^<]*<\/transID>/, '<transID>999</transID>')))), /copy .*transID 999/);
    assert.match(broken(xml.replace(copyEvent, forgedSignature(copyEvent.replace(/<transID>[^<]*<\/transID>/, '')))), /copy .*does not verify/);
    // a copy of a receipt after the file's last: a copy follows its receipt, so its original would be in the file
    assert.match(broken(xml.replace(copyEvent, forgedSignature(copyEvent.replace(/<transID>[^<]*<\/transID>/, '').replace('Kopia av kvitto nr 2', 'Kopia av kvitto nr 99')))), /copy .*nr 99/);

    // a key file under the unit's number that is another software unit's key
    const stranger = generateKeyPairSync('ec', { namedCurve: 'P-256' }).publicKey.export({ type: 'spki', format: 'pem' }) as string;
    assert.match(String(keyLookup(() => stranger, 'in the zip')(unit.id)), /is the key of software control unit EFRSE[0-9A-F]{12}, not of EFRSE/);
    assert.equal(keyFingerprint(keyLookup(() => unit.publicKeyPem, 'in the zip')(unit.id) as ReturnType<typeof createPublicKey>), keyFingerprint(pub));

    // a pinned key that is not the unit's
    const other = generateKeyPairSync('ec', { namedCurve: 'P-256' }).publicKey;
    const pinned = verifySwedishFile(file, keyFor, { pinned: [{ key: other, fingerprint: keyFingerprint(other), label: '--key other.pem' }] });
    assert.equal(pinned.ok, false);
    assert.match(pinned.broken?.reason ?? '', /signed with another key/);
    const pinnedOwn = verifySwedishFile(file, keyFor, { pinned: [{ key: pub, fingerprint: keyFingerprint(pub), label: '--key unit.pem' }] });
    assert.ok(pinnedOwn.ok);
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
});

test('a Swedish receipt needs the organisation number; a copy needs a signed original; a training Z closes nothing', () => {
  const dataDir = tempDir('efr-se-unit-rules-');
  try {
    const m = new SeModule();
    const state = { ...initialState('def'), rid: 1, cfg: { Cmp: { Nam: 'AB', Ctry: 'SE' } } as Obj };
    const input = (esr: Obj, original?: Obj): FiscalInput => ({
      rn: 'def', sq: 1, prevHash: '', now: new Date(2026, 10, 23, 10, 0, 0), type: 'Tra', esr, bc: classify(esr), state, signer: {} as FiscalInput['signer'], dataDir, attributes: new Map(), tnGenerated: false,
      ...(original ? { original } : {}),
    });
    assert.equal(fiscalError(() => m.fiscalize(input(receipt('10.00', '0.00')))).code, '#MISSING_FIELD');
    assert.deepEqual(state.country, {}, 'nothing counted');
    state.cfg = CFG;
    assert.equal(fiscalError(() => m.fiscalize(input({ TL: '1', TT: 'K1', NFS: 'DUP', RFN: '9' }))).code, '#INVALID_VALUE');
    // a receipt of the register from before it was Swedish (signed, numbered, but with no control data) is not copied as one
    const foreign = { _: 'Tra', ESR: receipt('10.00', '0.00'), Fis: { FN: '1', Signature: Buffer.alloc(64, 1).toString('base64') } };
    const notSwedish = fiscalError(() => m.fiscalize(input({ TL: '1', TT: 'K1', NFS: 'DUP', RFN: '1' }, foreign)));
    assert.equal(notSwedish.code, '#INVALID_VALUE');
    assert.match(notSwedish.message, /ESR\.RFN/);
    assert.deepEqual(state.country, {}, 'nothing signed, nothing counted');
    assert.equal(fiscalError(() => m.validate({ NFS: 'DUP' }, classify({ NFS: 'DUP' }))).code, '#MISSING_FIELD');
    assert.equal(fiscalError(() => m.validate({ TaxN: '1' }, classify({}))).code, '#INVALID_VALUE');
    m.fiscalize(input(receipt('10.00', '0.00')));
    const trainingZ = m.fiscalize(input({ TL: '1', TT: 'K1', NFS: 'Z', Test: '1' }));
    assert.equal(tags(trainingZ).Heading, 'ÖVNING – Z-DAGRAPPORT');
    assert.equal(tags(trainingZ)['Z-dagrapport nr'], undefined);
    const x = m.fiscalize(input({ TL: '1', TT: 'K1', NFS: 'X' }));
    assert.equal(tags(x)['Antal kvitton'], '1', 'the training Z closed nothing');
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
});

test('another control unit behind the interface (a certified unit\'s driver) signs the same control data; the verifier checks it under its own number; a unit that stops answering stops the receipts', () => {
  const dataDir = tempDir('efr-se-unit-other-');
  try {
    const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    let answering = true;
    const certified: ControlUnit = {
      id: 'CERT0000000000042',
      publicKeyPem: publicKey.export({ type: 'spki', format: 'pem' }) as string,
      available: () => answering,
      sign: (data) => (answering ? sign('sha256', data, { key: privateKey, dsaEncoding: 'ieee-p1363' }) : undefined),
    };
    const m = new SeModule(() => certified);
    const state = { ...initialState('def'), rid: 1, cfg: CFG };
    const records: Obj[] = [];
    const run = (esr: Obj): Obj => {
      const bc = classify(esr);
      const sq = records.length + 1;
      const fis = m.fiscalize({ rn: 'def', sq, prevHash: '', now: new Date(2026, 10, 23, 11, sq, 0), type: 'Tra', esr, bc, state, signer: {} as FiscalInput['signer'], dataDir, attributes: new Map(), tnGenerated: false });
      records.push({ _: 'Tra', SQ: String(sq), TS: `2026-11-23T11:${String(sq).padStart(2, '0')}:00`, BC: bc.kind, ESR: esr, Fis: fis });
      return fis;
    };
    const a = run(receipt('40.00', '0.00'));
    assert.equal(tags(a).Kontrollenhet, 'CERT0000000000042');
    assert.equal(a.KeyVersion, 'CERT0000000000042');
    run(receipt('12.00', '11.20'));
    const xml = swedishSaftXml({ records, cfg: CFG, registerId: 'K1', period: {}, created: new Date(2026, 10, 24), software: { name: 'efr', version: '1', company: 'efr' } });
    const report = verifySwedishFile(readSwedishFile(xml, SAFT_SE_NAMESPACE), (id) => (id === certified.id ? publicKey : `no key ${id}`));
    assert.ok(report.ok, JSON.stringify(report.broken));
    assert.equal(report.registers[0]?.verified, 2);

    answering = false;
    const before = { ...state.country };
    assert.equal(fiscalError(() => run(receipt('1.00', '0.00'))).code, '#DEVICE_FAILED');
    assert.deepEqual(state.country, before, 'no number taken, nothing counted');
    // a unit that answers with no bytes gave no signature: no receipt without its control code
    const mute = new SeModule(() => ({ ...certified, available: () => true, sign: () => Buffer.alloc(0) }));
    const input: FiscalInput = { rn: 'def', sq: 9, prevHash: '', now: new Date(2026, 10, 23, 12, 0, 0), type: 'Tra', esr: receipt('1.00', '0.00'), bc: classify(receipt('1.00', '0.00')), state, signer: {} as FiscalInput['signer'], dataDir, attributes: new Map(), tnGenerated: false };
    assert.equal(fiscalError(() => mute.fiscalize(input)).code, '#DEVICE_FAILED');
    assert.equal(fiscalError(() => mute.fiscalize({ ...input, esr: { TL: '1', TT: 'K1', NFS: 'DUP', RFN: '1' }, bc: classify({ NFS: 'DUP' }), original: records[0] as Obj, reprints: 0 })).code, '#DEVICE_FAILED');
    assert.deepEqual(state.country, before);
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
});

test('a copy of a training receipt is marked as training and counts as training, never as a copy of a sale; the reports print the pro forma figures and the register\'s manufacturing number', () => {
  const dataDir = tempDir('efr-se-unit-training-copy-');
  try {
    const { records, run } = day(dataDir, { ...CFG, Trm: { TT: 'K1', Serial: 'POS-0042' } });
    const sale = run(receipt('20.00', '0.00'));
    const training = run(receipt('10.00', '0.00', { Test: '1' }));
    const copyOfTraining = run({ D: '2026-11-23T10:00:00', TL: '1', TT: 'K1', NFS: 'DUP', RFN: String(training.FN) }, records[1] as Obj, 0);
    const copyInTraining = run({ D: '2026-11-23T10:00:00', TL: '1', TT: 'K1', NFS: 'DUP', RFN: String(sale.FN), Test: '1' }, records[0] as Obj, 0);
    assert.match(tags(copyOfTraining).Heading ?? '', /KOPIA/);
    assert.match(tags(copyOfTraining).Heading ?? '', /ÖVNING/, 'the copy of a training receipt is marked as training');
    assert.match(tags(copyInTraining).Heading ?? '', /ÖVNING/);
    const x = tags(run({ D: '2026-11-23T10:00:00', TL: '1', TT: 'K1', NFS: 'X' }));
    assert.equal(x['Kvittokopior, antal'], '0', 'no copy of a sale was made');
    assert.equal(x['Kvittokopior, belopp'], '0.00');
    assert.equal(x['Övningskvitton, antal'], '3', 'the training receipt and the two training copies');
    assert.equal(x['Övningskvitton, belopp'], '40.00');
    assert.equal(x['Försäljning totalt'], '20.00');
    assert.equal(x['Pro forma-kvitton, antal'], '0', 'the register makes no pro forma receipt, and the report says so');
    assert.equal(x['Pro forma-kvitton, belopp'], '0.00');
    assert.equal(x['Kassans tillverkningsnr'], 'POS-0042');
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
});

test('the register keeps the designation its chain was signed with: a later Cfg.Trm.TT does not break the export\'s verification; another organisation number and a designation that cannot be signed are refused naming their field', () => {
  const dataDir = tempDir('efr-se-unit-designation-');
  try {
    const m = new SeModule();
    const state = { ...initialState('def'), rid: 1, cfg: { ...CFG, Trm: { TT: ' K1 ' } } as Obj };
    const records: Obj[] = [];
    const run = (esr: Obj): Obj => {
      const bc = classify(esr);
      const sq = records.length + 1;
      const fis = m.fiscalize({ rn: 'def', sq, prevHash: '', now: new Date(2026, 10, 23, 11, sq, 0), type: 'Tra', esr, bc, state, signer: {} as FiscalInput['signer'], dataDir, attributes: new Map(), tnGenerated: false });
      records.push({ _: 'Tra', SQ: String(sq), TS: `2026-11-23T11:${String(sq).padStart(2, '0')}:00`, BC: bc.kind, ESR: esr, Fis: fis });
      return fis;
    };
    assert.equal(run(receipt('40.00', '0.00')).RegisterID, 'K1', 'the spaces around it are not signed: the export\'s reader drops them');
    state.cfg = { ...CFG, Trm: { TT: 'Kassa 2' } };
    assert.equal(tags(run(receipt('12.00', '11.20'))).Kassa, 'K1');
    assert.equal(registerIdOf(state), 'K1');
    const unit = openControlUnit(dataDir, 'def', false);
    const xml = swedishSaftXml({ records, cfg: state.cfg, registerId: registerIdOf(state), period: {}, created: new Date(2026, 10, 24), software: { name: 'efr', version: '1', company: 'efr' } });
    const report = verifySwedishFile(readSwedishFile(xml, SAFT_SE_NAMESPACE), (id) => (id === unit.id ? createPublicKey(unit.publicKeyPem) : `no key ${id}`));
    assert.ok(report.ok, JSON.stringify(report.broken));
    assert.equal(report.registers[0]?.verified, 2);

    // another organisation number: its receipts could not be verified under the export's one company
    state.cfg = { ...CFG, Cmp: { ...(CFG.Cmp as Obj), Org: '202100-5489' } };
    const before = { ...state.country };
    const otherOrg = fiscalError(() => run(receipt('5.00', '0.00')));
    assert.equal(otherOrg.code, '#INVALID_VALUE');
    assert.match(otherOrg.message, /Cfg\.Cmp\.Org/);
    assert.deepEqual(state.country, before, 'no number taken');

    const fresh = { ...initialState('R2'), rid: 2, cfg: { ...CFG, Trm: { TT: 'K;1' } } as Obj };
    const bc = classify(receipt('1.00', '0.00'));
    const refused = fiscalError(() => m.fiscalize({ rn: 'R2', sq: 1, prevHash: '', now: new Date(2026, 10, 23, 12, 0, 0), type: 'Tra', esr: receipt('1.00', '0.00'), bc, state: fresh, signer: {} as FiscalInput['signer'], dataDir, attributes: new Map(), tnGenerated: false }));
    assert.equal(refused.code, '#INVALID_VALUE');
    assert.match(refused.message, /Cfg\.Trm\.TT/);
    assert.deepEqual(fresh.country, {});
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
});

test('a software control unit whose key was replaced by another key is refused, never used silently; a certified unit may take over', () => {
  const dataDir = tempDir('efr-se-unit-swap-');
  try {
    let rn = 'A';
    let certified: ControlUnit | undefined;
    const m = new SeModule((dir, _rn, mayCreate) => certified ?? openControlUnit(dir, rn, mayCreate || rn === 'B'));
    const state = { ...initialState('def'), rid: 1, cfg: CFG };
    const run = (sq: number): Obj => m.fiscalize({ rn: 'def', sq, prevHash: '', now: new Date(2026, 10, 23, 11, sq, 0), type: 'Tra', esr: receipt('10.00', '0.00'), bc: classify(receipt('10.00', '0.00')), state, signer: {} as FiscalInput['signer'], dataDir, attributes: new Map(), tnGenerated: false });
    const first = run(1);
    rn = 'B';
    const before = { ...state.country };
    const swapped = fiscalError(() => run(2));
    assert.equal(swapped.code, '#DEVICE_FAILED');
    assert.match(swapped.message, new RegExp(String(first.ControlUnit)));
    assert.deepEqual(state.country, before, 'no number taken');
    const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    certified = { id: 'CERT0000000000042', publicKeyPem: publicKey.export({ type: 'spki', format: 'pem' }) as string, available: () => true, sign: (data) => sign('sha256', data, { key: privateKey, dsaEncoding: 'ieee-p1363' }) };
    assert.equal(run(2).ControlUnit, 'CERT0000000000042');
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
});
