import { test } from 'node:test';
import assert from 'node:assert/strict';
import { dec } from '../../../shared/money.js';
import type { BusinessCase } from '../../esr/business-case.js';
import { FINAL_CONSUMER, type PtTax, customerOf, qrCustomer } from './document.js';
import { companyNif, validNif } from './nif.js';
import { qrText, taxBlocks } from './qr.js';
import { PT_RATES } from './rates.js';
import { countryCode } from './countries.js';
import { checkPortugueseRules } from './rules.js';
import { docTypeOf, seriesOf, validationCode } from './series.js';

const rate = (pct: string) => PT_RATES.find((r) => r.pct === pct) as (typeof PT_RATES)[number];
const tax = (pct: string, net: string, t: string): PtTax => ({ rate: rate(pct), net: dec(net), tax: dec(t) });
const base = { companyNif: '599999993', customerNif: '999999990', customerCountry: 'PT', type: 'FS' as const, status: 'N', invoiceDate: '2026-03-10', invoiceNo: 'FS A/1', atcud: '0', taxPayable: dec('0.00'), grossTotal: dec('0.00'), hash4: 'abcd', certificate: '0' };

test('NIF check digits (mod 11); the company NIF with or without PT', () => {
  assert.ok(validNif('599999993'));
  assert.ok(validNif('123456789'));
  assert.ok(validNif('999999990'));
  assert.ok(!validNif('123456780'));
  assert.ok(!validNif('12345678'));
  assert.equal(companyNif('PT 599 999 993'), '599999993');
  assert.equal(companyNif('ES599999993'), undefined);
});

test('QR tax blocks: of several spaces the mainland in I, the Azores in J, Madeira in K; one space in I; no VAT line gives I1:0', () => {
  // one space: I, whichever it is (the AT's examples 6 and 7)
  assert.deepEqual(taxBlocks([tax('16', '1', '0.16')]), [['I', 'PT-AC']]);
  assert.deepEqual(taxBlocks([tax('22', '1', '0.22')]), [['I', 'PT-MA']]);
  assert.deepEqual(taxBlocks([tax('23', '1', '0.23')]), [['I', 'PT']]);
  // several: each space its own block (the AT's example 1)
  assert.deepEqual(taxBlocks([tax('22', '1', '0.22'), tax('4', '1', '0.04')]), [['J', 'PT-AC'], ['K', 'PT-MA']]);
  assert.deepEqual(taxBlocks([tax('5', '1', '0.05'), tax('23', '1', '0.23')]), [['I', 'PT'], ['K', 'PT-MA']]);
  assert.deepEqual(taxBlocks([tax('9', '1', '0.09'), tax('6', '1', '0.06')]), [['I', 'PT'], ['J', 'PT-AC']]);
  assert.deepEqual(taxBlocks([tax('12', '1', '0.12'), tax('16', '1', '0.16'), tax('13', '1', '0.13')]), [['I', 'PT'], ['J', 'PT-AC'], ['K', 'PT-MA']]);
  // the Azores and Madeira without the mainland, field by field
  const islands = qrText({ ...base, taxes: [tax('22', '10.00', '2.20'), tax('4', '5.00', '0.20'), tax('16', '10.00', '1.60')], taxPayable: dec('4.00'), grossTotal: dec('29.00') });
  assert.deepEqual(islands.split('*'), ['A:599999993', 'B:999999990', 'C:PT', 'D:FS', 'E:N', 'F:20260310', 'G:FS A/1', 'H:0', 'J1:PT-AC', 'J3:5.00', 'J4:0.20', 'J7:10.00', 'J8:1.60', 'K1:PT-MA', 'K7:10.00', 'K8:2.20', 'N:4.00', 'O:29.00', 'Q:abcd', 'R:0']);
  assert.equal(qrText({ ...base, taxes: [] }), 'A:599999993*B:999999990*C:PT*D:FS*E:N*F:20260310*G:FS A/1*H:0*I1:0*N:0.00*O:0.00*Q:abcd*R:0');
  // two elements of one rate add up; fields in numeric order whatever the order of the taxes
  const q = qrText({ ...base, taxes: [tax('23', '10.00', '2.30'), tax('0', '5.00', '0.00'), tax('23', '1.00', '0.23'), tax('13', '2.00', '0.26')] });
  assert.match(q, /\*I1:PT\*I2:5\.00\*I5:2\.00\*I6:0\.26\*I7:11\.00\*I8:2\.53\*N:/);
});

test('customers: consumidor final, a Portuguese NIF, a foreign VAT number', () => {
  assert.deepEqual(customerOf({}), FINAL_CONSUMER);
  assert.deepEqual(qrCustomer(FINAL_CONSUMER), { nif: '999999990', country: 'PT' });
  const pt = customerOf({ Ctm: { Nam: 'Ana', TaxId: 'PT123456789', Adr: 'Rua 1', Zip: '1000-001', City: 'Lisboa' } });
  assert.deepEqual([pt.id, pt.taxId, pt.country], ['C123456789', '123456789', 'PT']);
  const fr = customerOf({ Ctm: { Nam: 'Jean', TaxId: 'FR40303265045', Ctry: 'FR' } });
  assert.deepEqual([fr.taxId, fr.country], ['FR40303265045', 'FR']);
  assert.deepEqual(qrCustomer(fr), { nif: '40303265045', country: 'FR' });
  const nameOnly = customerOf({ Ctm: { Nam: 'Sem NIF' } });
  assert.equal(nameOnly.taxId, '999999990');
  assert.match(nameOnly.id, /^CN-[0-9a-f]{12}$/);
});

test('series: FN_series with {TL}/{TT}, never starting with M; validation codes per type or per series', () => {
  const attrs = (s: string) => new Map(s.split(' ').map((kv) => kv.split('=') as [string, string]));
  assert.equal(seriesOf(new Map(), {}), 'A');
  assert.equal(seriesOf(attrs('fn_series=b{TL}x{tt}'), { TL: 'loja2', TT: '3' }), 'BLOJA2X3');
  assert.throws(() => seriesOf(attrs('fn_series=M1'), {}), /FN_series/);
  assert.throws(() => seriesOf(attrs('fn_series=A/1'), {}), /FN_series/);
  assert.equal(validationCode(attrs('fn_atcud_fs=AAAA1111 fn_atcud_fs_b=BBBB2222'), 'FS', 'A'), 'AAAA1111');
  assert.equal(validationCode(attrs('fn_atcud_fs=AAAA1111 fn_atcud_fs_b=BBBB2222'), 'FS', 'B'), 'BBBB2222');
  assert.equal(validationCode(attrs('fn_atcud_fs=AAAA1111'), 'NC', 'A'), undefined);
  assert.throws(() => validationCode(attrs('fn_atcud_fs=short'), 'FS', 'A'), /FN_ATCUD_FS/);
  // a template makes a series per register: the per-type code would repeat ATCUDs across them
  assert.throws(() => validationCode(attrs('fn_series=A{TL}{TT} fn_atcud_fs=AAAA1111'), 'FS', 'A11'), /FN_ATCUD_FS_A11/);
  assert.equal(validationCode(attrs('fn_series=A{TL}{TT} fn_atcud_fs=AAAA1111 fn_atcud_fs_a11=CCCC3333'), 'FS', 'A11'), 'CCCC3333');
  assert.equal(validationCode(attrs('fn_series=A{TT}'), 'FS', 'A1'), undefined);
});

test('document types and the rules of a Portuguese document', () => {
  const sale: BusinessCase = { kind: 'sale', flags: [], fiscal: true };
  const ret: BusinessCase = { kind: 'return', flags: [], fiscal: true };
  assert.equal(docTypeOf({}, sale), 'FS');
  assert.equal(docTypeOf({ Ctm: { Nam: 'x' } }, sale), 'FT');
  assert.equal(docTypeOf({ DT: 'fr' }, sale), 'FR');
  assert.equal(docTypeOf({ DT: 'FS', Ctm: { Nam: 'x' } }, sale), 'FS');
  assert.equal(docTypeOf({ DT: 'FT' }, ret), 'NC');
  const esr = (pos: Record<string, string>, extra: Record<string, unknown> = {}) => ({
    T: pos.Amt as string, PosA: [{ _: 'Pos', PN: '1', ...pos }], TaxA: [{ _: 'Tax', TaxG: pos.TaxG as string, Prc: pos.TaxG === 'D' ? '0.00' : '23.00', Amt: pos.Amt as string }], ...extra,
  });
  assert.doesNotThrow(() => checkPortugueseRules(esr({ Dsc: 'Pão', TaxG: 'A', Amt: '1.00' }), sale));
  assert.throws(() => checkPortugueseRules(esr({ Dsc: 'P', TaxG: 'A', Amt: '1.00' }), sale), /Dsc/);
  assert.throws(() => checkPortugueseRules(esr({ Dsc: 'Pão', TaxG: 'A', Amt: '1.005' }), sale), /cents/);
  assert.throws(() => checkPortugueseRules(esr({ Dsc: 'Pão', TaxG: 'A', Amt: '1.00', PT_TaxExemptionCode: 'M07' }), sale), /exemption is given/);
  assert.throws(() => checkPortugueseRules(esr({ Dsc: 'Livro', TaxG: 'D', Amt: '1.00', PT_TaxExemptionCode: 'M07' }), sale), /PT_TaxExemptionReason/);
  assert.throws(() => checkPortugueseRules(esr({ Dsc: 'Livro', TaxG: 'D', Amt: '1.00', PT_TaxExemptionCode: 'X7', PT_TaxExemptionReason: 'Isento artigo 9.º' }), sale), /M01\.\.M99/);
  assert.doesNotThrow(() => checkPortugueseRules(esr({ Dsc: 'Livro', TaxG: 'D', Amt: '1.00', PT_TaxExemptionCode: 'M07', PT_TaxExemptionReason: 'Isento artigo 9.º do CIVA' }), sale));
  assert.throws(() => checkPortugueseRules(esr({ Dsc: 'Pão', TaxG: 'A', Amt: '-1.00' }, { RFN: '17' }), ret), /not the number of an invoice/);
  assert.doesNotThrow(() => checkPortugueseRules(esr({ Dsc: 'Pão', TaxG: 'A', Amt: '-1.00' }, { RFN: 'FS A/17' }), ret));
  assert.throws(() => checkPortugueseRules(esr({ Dsc: 'Pão', TaxG: 'A', Amt: '1.00' }, { Ctm: { Nam: 'x', TaxId: '123456780' } }), sale), /NIF/);
  assert.doesNotThrow(() => checkPortugueseRules(esr({ Dsc: 'Pão', TaxG: 'A', Amt: '1.00' }, { Ctm: { Nam: 'x', TaxId: 'DE123456780' } }), sale));
  assert.doesNotThrow(() => checkPortugueseRules({ NFS: 'Z' }, { kind: 'closing', flags: [], fiscal: false }));
});

test('customer countries: the schema\'s ISO list, EL for Greece; tax ids of at most 30 characters', () => {
  assert.equal(countryCode('es'), 'ES');
  assert.equal(countryCode('EL'), 'GR');
  assert.equal(countryCode('XI'), 'GB');
  assert.equal(countryCode('XX'), undefined);
  assert.equal(countryCode('Portugal'), undefined);
  const el = customerOf({ Ctm: { Nam: 'Nikos', TaxId: 'EL 123 456 789' } });
  assert.deepEqual([el.taxId, el.country], ['EL123456789', 'GR']);
  assert.deepEqual(qrCustomer(el), { nif: '123456789', country: 'GR' });
  // a consumidor final with a country: QR field C is that country, as its SAF-T BillingAddress
  assert.deepEqual(qrCustomer(customerOf({ Ctm: { Nam: 'Turista', Ctry: 'es' } })), { nif: '999999990', country: 'ES' });
  const long = customerOf({ Ctm: { Nam: 'L', Ctry: 'DE', TaxId: `DE${'1'.repeat(28)}` } });
  assert.ok(long.id.length <= 30 && long.id !== customerOf({ Ctm: { Nam: 'L', Ctry: 'DE', TaxId: `DE${'1'.repeat(27)}2` } }).id);
  const sale: BusinessCase = { kind: 'sale', flags: [], fiscal: true };
  const doc = (ctm: Record<string, string>) => ({ T: '1.00', PosA: [{ _: 'Pos', PN: '1', Dsc: 'Pão', TaxG: 'A', Amt: '1.00' }], TaxA: [{ _: 'Tax', TaxG: 'A', Prc: '23.00', Amt: '1.00' }], Ctm: ctm });
  assert.throws(() => checkPortugueseRules(doc({ Nam: 'x', Ctry: 'XX' }), sale), /ESR\.Ctm\.Ctry/);
  assert.throws(() => checkPortugueseRules(doc({ Nam: 'x', Ctry: 'DE', TaxId: `DE${'1'.repeat(29)}` }), sale), /ESR\.Ctm\.TaxId/);
  assert.throws(() => checkPortugueseRules(doc({ Nam: 'x', TaxId: 'QQ1234' }), sale), /ESR\.Ctm\.Ctry/);
  assert.doesNotThrow(() => checkPortugueseRules(doc({ Nam: 'x', Ctry: 'EL', TaxId: 'EL123456789' }), sale));
});

test('signs: a credit note gives back, an invoice sells, per rate too; a fatura-recibo is paid', () => {
  const kinds: Record<'sale' | 'void' | 'return', BusinessCase> = { sale: { kind: 'sale', flags: [], fiscal: true }, void: { kind: 'void', flags: [], fiscal: true }, return: { kind: 'return', flags: [], fiscal: true } };
  const doc = (amts: Array<[string, string]>, extra: Record<string, unknown> = {}) => {
    const prc: Record<string, string> = { A: '23.00', C: '6.00' };
    const total = amts.reduce((a, [, x]) => a + Math.round(Number(x) * 100), 0);
    return {
      T: (total / 100).toFixed(2),
      PosA: amts.map(([g, a], i) => ({ _: 'Pos', PN: String(i + 1), Dsc: 'Artigo', TaxG: g, Amt: a })),
      TaxA: amts.map(([g, a]) => ({ _: 'Tax', TaxG: g, Prc: prc[g] as string, Amt: a })),
      RFN: 'FS A/1',
      ...extra,
    };
  };
  assert.throws(() => checkPortugueseRules(doc([['A', '10.00']]), kinds.void), /ESR\.T/);
  assert.doesNotThrow(() => checkPortugueseRules(doc([['A', '-10.00']]), kinds.void));
  assert.throws(() => checkPortugueseRules(doc([['A', '-10.00'], ['C', '2.12']]), kinds.return), /ESR\.PosA\[1\]\.Amt/);
  assert.throws(() => checkPortugueseRules(doc([['A', '10.00'], ['C', '-2.12']]), kinds.sale), /ESR\.PosA\[1\]\.Amt/);
  // a discount line within one rate is no change of sign
  assert.doesNotThrow(() => checkPortugueseRules({ ...doc([['A', '10.00'], ['A', '-2.00']]), TaxA: [{ _: 'Tax', TaxG: 'A', Prc: '23.00', Amt: '8.00' }] }, kinds.sale));
  // training documents are no documents
  assert.doesNotThrow(() => checkPortugueseRules(doc([['A', '10.00']]), { kind: 'void', flags: ['test'], fiscal: true }));
  const pay = (g: string) => [{ _: 'Pay', PayG: g, Amt: '1.00' }];
  assert.throws(() => checkPortugueseRules(doc([['A', '1.00']], { DT: 'FR', PayA: pay('open') }), kinds.sale), /ESR\.PayA\[0\]\.PayG/);
  assert.throws(() => checkPortugueseRules(doc([['A', '1.00']], { DT: 'FR' }), kinds.sale), /ESR\.PayA/);
  assert.doesNotThrow(() => checkPortugueseRules(doc([['A', '1.00']], { DT: 'FR', PayA: pay('cash') }), kinds.sale));
  assert.doesNotThrow(() => checkPortugueseRules(doc([['A', '1.00']], { DT: 'FT', PayA: pay('open') }), kinds.sale));
});
