import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as nodeCrypto from 'node:crypto';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { dec } from '../../../shared/money.js';
import { loadKey } from './keys.js';
import { Ledger } from './ledger.js';
import { fiscalYearOf, fiscalYearSpan, yearEndOf } from './periods.js';
import { GENESIS, formatTaxes, parseTaxes, signatureExtract, signedString, splitSignedString } from './signed-string.js';
import { FiscalError } from '../../../shared/errors.js';
import { classify } from '../../esr/business-case.js';
import { FrModule, certificationOf, operationOf } from './index.js';
import { parseSeal, sealPayload } from './seal.js';
import { type FrItem, describeFrReport, frItemsOfRecord, verifyFrItems } from './verify-core.js';

test('signed strings: fields joined by ;, a ; or % inside a value escaped and read back', () => {
  const s = signedString('E', 3, ['def', '50', 'Export', '2026-01-01T10:00:00', 'a;b%c'], GENESIS);
  assert.equal(s, 'FR1;E;3;def;50;Export;2026-01-01T10:00:00;a%3Bb%25c;GENESIS');
  assert.deepEqual(splitSignedString(s), ['FR1', 'E', '3', 'def', '50', 'Export', '2026-01-01T10:00:00', 'a;b%c', 'GENESIS']);
});

test('tax totals: by descending rate, two decimals, parsed back', () => {
  const t = new Map([['5.50', dec('1.1')], ['20.00', dec('-3.5')], ['10.00', dec('0')]]);
  assert.equal(formatTaxes(t), '20.00:-3.50/10.00:0.00/5.50:1.10');
  assert.equal(formatTaxes(parseTaxes(formatTaxes(t))), formatTaxes(t));
  assert.equal(formatTaxes(new Map()), '');
});

test('signature extract: characters 3, 7, 13 and 19', () => {
  assert.equal(signatureExtract('abcdefghijklmnopqrstuvwxyz'), 'cgms');
});

test('fiscal year: named by the year of its closing month', () => {
  assert.equal(fiscalYearOf('2026-06-30T23:59:59', 6), '2026');
  assert.equal(fiscalYearOf('2026-07-01T00:00:00', 6), '2027');
  assert.equal(fiscalYearOf('2026-12-31T00:00:00', 12), '2026');
  assert.equal(fiscalYearSpan('2027', 6), '2026-07..2027-06');
  assert.equal(fiscalYearSpan('2026', 12), '2026-01..2026-12');
  assert.equal(yearEndOf(new Map([['fiscal_yearend', '03']])), 3);
  assert.equal(yearEndOf(new Map()), 12);
  assert.throws(() => yearEndOf(new Map([['fiscal_yearend', '13']])), /Fiscal_YearEnd/);
});

test('operation type by the sign of T; certification: Fis_Sec wins, none omits, LNE default', () => {
  assert.equal(operationOf(dec('0')), 'Vente');
  assert.equal(operationOf(dec('-0.01')), 'Remboursement');
  assert.equal(certificationOf(new Map()), 'B0000');
  assert.equal(certificationOf(new Map([['fiscal_rules', 'LNE']])), '00000-0');
  assert.equal(certificationOf(new Map([['fis_certification', 'B1'], ['fis_sec', 'S2']])), 'S2');
  assert.equal(certificationOf(new Map([['fis_certification', 'B1'], ['fis_sec', 'none']])), undefined);
});

test('the key is created once under concurrent first requests; signatures chain and verify; tampering is named', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'efr-fr-key-'));
  try {
    const keys = await Promise.all([1, 2, 3, 4, 5].map(() => loadKey(dir, 'TAX$1_1', true)));
    assert.equal(new Set(keys.map((k) => k.keyId)).size, 1);
    assert.deepEqual(readdirSync(join(dir, 'fr', 'TAX_1_1')).sort(), ['key.pem', 'public.pem']);
    const key = keys[0] as (typeof keys)[number];
    const country: Record<string, string> = {};
    const ledger = new Ledger(country, 'r');
    const items: FrItem[] = [];
    for (let i = 1; i <= 3; i++) {
      const s = ledger.seal('T', ['r', `1/1/${i}`, String(i), '2026-01-01T10:00:00', 'Vente', '1.00', '20.00:1.00'], key);
      items.push({ sq: i, payload: s.payload, signature: s.signature });
    }
    items.push(...frItemsOfRecord(4, JSON.stringify({ Fis: { FR_JET: [ledger.event({ kind: 'START', detail: 'x' }, '2026-01-01T10:00:00', key)] } })));
    const pem = key.publicKeyPem();
    const ok = verifyFrItems(items, pem, nodeCrypto, true);
    assert.equal(describeFrReport(ok), 'OK: 4 signed records verify; chains E (JET) n° 1..1, T (tickets) n° 1..3');
    const removed = verifyFrItems([items[0], items[2]] as FrItem[], pem, nodeCrypto, true);
    assert.equal(removed.broken?.sq, 3);
    assert.match(removed.broken?.reason ?? '', /n° 3 follows n° 1/);
    const changed = items.map((it) => (it.sq === 2 ? { ...it, payload: it.payload.replace(';1.00;', ';2.00;') } : it));
    assert.match(describeFrReport(verifyFrItems(changed, pem, nodeCrypto, true)), /^BROKEN at SQ 2 \(chain T n° 2\): the signature does not verify/);
    assert.match(describeFrReport(verifyFrItems(items.slice(1), pem, nodeCrypto, true)), /BROKEN at SQ 2 .*n° 1 to 1 are missing/);
    assert.equal(verifyFrItems(items.slice(1), pem, nodeCrypto, false).ok, true, 'a period export may start in the middle of a chain');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('validate: every amount NF525 signs or adds up is exact to the cent (TaxA too); trailing zeros are', () => {
  const m = new FrModule();
  const esr = (amt: string) => ({ T: '1.00', TaxA: [{ _: 'Tax', TaxG: 'A', Prc: '20', Amt: amt }] });
  assert.throws(
    () => m.validate(esr('1.005'), classify(esr('1.005'))),
    (e: unknown) => e instanceof FiscalError && e.code === '#INVALID_VALUE' && e.params.field === 'ESR.TaxA[0].Amt',
  );
  assert.doesNotThrow(() => m.validate(esr('1.000'), classify(esr('1.000'))));
});

test('seal: the header, the number of records and the last record of every chain, read back', () => {
  const items = [
    { sq: 2, chain: 'T', n: '1', signature: 's1' },
    { sq: 2, chain: 'E', n: '1', signature: 'e1' },
    { sq: 3, chain: 'T', n: '2', signature: 's2' },
  ];
  const p = sealPayload({ rn: 'a;b', exported: '2026-05-28T09:00:00', complete: '1', from: '', till: '' }, items);
  assert.match(p, /^FR1;SEAL;a%3Bb;2026-05-28T09:00:00;1;;;3;[A-Za-z0-9_-]{43};E:1:e1\|T:2:s2$/);
  assert.deepEqual({ ...parseSeal(p), digest: '' }, { rn: 'a;b', exported: '2026-05-28T09:00:00', complete: '1', from: '', till: '', records: '3', digest: '', chains: 'E:1:e1|T:2:s2' });
  assert.notEqual(sealPayload({ rn: 'a;b', exported: '2026-05-28T09:00:00', complete: '1', from: '', till: '' }, [{ ...items[0], sq: 1 } as (typeof items)[number], ...items.slice(1)]), p, 'an SQ changes the digest');
});
