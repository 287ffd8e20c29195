/**
 * Slovakia: the PKP and OKP reproduced with openssl and sha1sum from the signed text, the date and QR forms,
 * the eKasa receipt of an ESR (items, discounts, returns, invoice payments, paragons, seller ids), the signed
 * SOAP request against the request schema (xmllint) and its WS-Security signature (also by xmllint --exc-c14n
 * and openssl, without the library that signs), the reading of eKasa's
 * answers, the module's validation and Fis, and the journal verifier's check of a receipt.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { createPublicKey } from 'node:crypto';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { type EkasaCertificateFiles, makeEkasaCertificate, verifyEkasaEnvelope, xmllintEkasa } from '../../../../test/fake-ekasa.js';
import { tempDir } from '../../../../test/helpers.js';
import { FiscalError } from '../../../shared/errors.js';
import type { Obj } from '../../codec/index.js';
import { classify } from '../../esr/business-case.js';
import type { AuthorityCertificate } from '../authority.js';
import { storeFiscalCertificate } from '../certificate-store.js';
import { ekasaDateTime, pkpDateTime, qrDateTime } from './ekasa-date.js';
import { EKASA_PRODUCTION_URL, EKASA_TEST_URL, endpointOf } from './endpoint.js';
import { cashRegisterCodeOf, sellerIds } from './ids.js';
import { SkModule } from './index.js';
import { okpOf, pkpInput, pkpOf, pkpVerifies } from './pkp.js';
import { offlineQr } from './qr.js';
import { ekasaReceiptOf } from './receipt.js';
import { EkasaTransientError, ekasaRequest, parseEkasaAnswer } from './request-xml.js';
import { checkReceipt } from './verify.js';

const CODE = '88812345678900001';
const CFG: Obj = { Cmp: { Nam: 'Predajňa s.r.o.', Ctry: 'SK', TaxId: 'SK1234567890' }, Loc: { TL: 'P1', LegalId: '76543210' } };
const ATTRS = new Map([['sk_swid', '228F46B815A1CD5DB93C667C845269633F181EA0'], ['fiscal_test', '1']]);

function receipt(extra: Obj = {}): Obj {
  return {
    D: '2026-01-21T14:30:05', TL: 'P1', TT: '1', TN: '17', T: '22.58',
    PosA: [
      { _: 'Pos', PN: '1', Dsc: 'Káva', Amt: '12.50', TaxG: 'A' },
      { _: 'Mod', PN: '1', Dsc: 'Zľava', Amt: '-1.00' },
      { _: 'Pos', PN: '2', Dsc: 'Kniha', Amt: '11.08', Qty: '2', TaxG: 'C' },
    ],
    PayA: [{ _: 'Pay', PayG: 'cash', Amt: '22.58' }],
    TaxA: [
      { _: 'Tax', TaxG: 'A', Prc: '23', Net: '9.35', TAmt: '2.15', Amt: '11.50' },
      { _: 'Tax', TaxG: 'C', Prc: '5', Net: '10.55', TAmt: '0.53', Amt: '11.08' },
    ],
    ...extra,
  };
}

let files: EkasaCertificateFiles;
let dataDir: string;
let cert: AuthorityCertificate;

before(() => {
  files = makeEkasaCertificate(CODE);
  dataDir = tempDir('sk-unit-');
  cert = storeFiscalCertificate(dataDir, 'def', files.p12, files.password);
});
after(() => {
  rmSync(files.dir, { recursive: true, force: true });
  rmSync(dataDir, { recursive: true, force: true });
});

function sh(command: string): string {
  const r = spawnSync('sh', ['-c', command], { encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  return r.stdout.trim();
}

describe('PKP and OKP', () => {
  const fields = { dic: '1234567890', cashRegisterCode: CODE, receiptNumber: '17', receiptType: 'PD', issued: '2026-01-21T14:30:05', amount: '22.58' };
  it('the PKP is the RSA-SHA256 signature (openssl dgst -sha256 -sign) of the pipe-separated text, the OKP its SHA-1 (sha1sum)', () => {
    const text = `1234567890|${CODE}|17|PD|21.01.2026 14:30:05|22.58`;
    assert.equal(pkpInput(fields), text);
    const input = join(files.dir, 'pkp-input.txt');
    writeFileSync(input, text);
    const pkp = sh(`openssl dgst -sha256 -sign "${files.keyFile}" "${input}" | base64 -w0`);
    assert.equal(pkpOf(files.keyPem, fields), pkp);
    // the stored (sealed, read back) key signs the same
    assert.equal(pkpOf(cert.keyPem, fields), pkp);
    const sha1 = sh(`openssl dgst -sha256 -sign "${files.keyFile}" "${input}" | sha1sum`).split(/\s/)[0] ?? '';
    assert.match(sha1, /^[0-9a-f]{40}$/);
    assert.equal(okpOf(pkp), sha1.match(/.{8}/g)?.join('-'));
    assert.match(okpOf(pkp), /^[0-9a-f]{8}(-[0-9a-f]{8}){4}$/);
    // openssl verifies it with the certificate's public key
    const sigFile = join(files.dir, 'pkp.sig');
    writeFileSync(sigFile, Buffer.from(pkp, 'base64'));
    sh(`openssl x509 -in "${files.certFile}" -pubkey -noout > "${files.dir}/pub.pem"`);
    assert.match(sh(`openssl dgst -sha256 -verify "${files.dir}/pub.pem" -signature "${sigFile}" "${input}"`), /Verified OK/);
    assert.equal(pkpVerifies(createPublicKey(cert.certPem), fields, pkp), true);
    // any other field changes it
    assert.equal(pkpVerifies(createPublicKey(cert.certPem), { ...fields, amount: '22.59' }, pkp), false);
    assert.notEqual(pkpOf(files.keyPem, { ...fields, receiptNumber: '18' }), pkp);
  });

  it('writes the dates and the QR code of a receipt without its id', () => {
    assert.equal(pkpDateTime('2026-01-21T04:05:06'), '21.01.2026 04:05:06');
    assert.equal(qrDateTime('2026-01-21T04:05:06'), '260121040506');
    assert.match(ekasaDateTime('2026-01-21T04:05:06'), /^2026-01-21T04:05:06[+-]\d{2}:\d{2}$/);
    assert.equal(offlineQr({ okp: 'a-b', cashRegisterCode: CODE, issued: '2026-01-21T14:30:05', receiptNumber: '17', amount: '-4.00' }), `a-b:${CODE}:260121143005:17:-4.00`);
  });

  it('chooses the endpoint by Fiscal_Test and Fiscal_Url', () => {
    assert.equal(endpointOf(new Map()), EKASA_PRODUCTION_URL);
    assert.equal(endpointOf(new Map([['fiscal_test', '1']])), EKASA_TEST_URL);
    assert.equal(endpointOf(new Map([['fiscal_test', '1'], ['fiscal_url', 'http://127.0.0.1:1/x']])), 'http://127.0.0.1:1/x');
  });
});

describe('ids', () => {
  it('reads DIČ, IČ DPH and IČO from the configuration and the cash register code from the attribute or certificate', () => {
    assert.deepEqual(sellerIds(CFG), { dic: '1234567890', icDph: 'SK1234567890', ico: '76543210' });
    assert.deepEqual(sellerIds({ Cmp: { TIN: '2023456789' } }), { dic: '2023456789' });
    const fails = (cfg: Obj, field: string): void => assert.throws(() => sellerIds(cfg), (e: unknown) => e instanceof FiscalError && e.params.field === field);
    fails({ Cmp: {} }, 'Cfg.Cmp.TIN');
    fails({ Cmp: { TaxId: 'SK12345' } }, 'Cfg.Cmp.TaxId');
    fails({ Cmp: { TIN: '12345' } }, 'Cfg.Cmp.TIN');
    fails({ Cmp: { TIN: '1234567890' }, Loc: { LegalId: '12' } }, 'Cfg.Loc.LegalId');
    assert.equal(cashRegisterCodeOf(new Map(), cert), CODE);
    assert.equal(cashRegisterCodeOf(new Map([['sk_cashregistercode', '88812345678900002']]), cert), '88812345678900002');
    assert.throws(() => cashRegisterCodeOf(new Map([['sk_cashregistercode', '123']]), cert), (e: unknown) => e instanceof FiscalError && e.params.field === 'SK_CashRegisterCode');
    assert.throws(() => cashRegisterCodeOf(new Map(), undefined), (e: unknown) => e instanceof FiscalError && e.code === '#MISSING_FIELD');
  });
});

describe('eKasa receipt', () => {
  it('maps positions to K items with their rates and a Mod to a Z item of the same rate', () => {
    const esr = receipt();
    const r = ekasaReceiptOf({ esr, bc: classify(esr) });
    assert.equal(r.receiptType, 'PD');
    assert.equal(r.amount, '22.58');
    assert.deepEqual(r.items.map((i) => [i.itemType, i.name, i.quantity, i.vatRate, i.price]), [
      ['K', 'Káva', '1', '23', '12.50'],
      ['Z', 'Zľava', '1', '23', '-1.00'],
      ['K', 'Kniha', '2', '5', '11.08'],
    ]);
  });

  it('a return names the original (V), a void corrects it (O), a voucher, an advance and returnable packaging have their types', () => {
    const ret = receipt({ T: '-12.50', RFN: 'X', PosA: [{ _: 'Pos', Dsc: 'Káva', Amt: '-12.50', Qty: '-1', TaxG: 'A', RFN: 'X' }], TaxA: [] });
    const r = ekasaReceiptOf({ esr: ret, bc: classify(ret), referenceReceiptId: 'O-7DBCDA8A56EE426DBCDA8A56EE426D1A' });
    assert.deepEqual(r.items.map((i) => [i.itemType, i.quantity, i.price, i.referenceReceiptId]), [['V', '1', '-12.50', 'O-7DBCDA8A56EE426DBCDA8A56EE426D1A']]);
    assert.throws(() => ekasaReceiptOf({ esr: ret, bc: classify(ret) }), (e: unknown) => e instanceof FiscalError && e.params.field === 'ESR.RFiscal');
    const voided = receipt({ Void: '1', T: '-12.50', PosA: [{ _: 'Pos', Dsc: 'Káva', Amt: '-12.50', TaxG: 'A' }], TaxA: [] });
    assert.equal(ekasaReceiptOf({ esr: voided, bc: classify(voided), referenceReceiptId: 'O-7DBCDA8A56EE426DBCDA8A56EE426D1A' }).items[0]?.itemType, 'O');
    const mixed = receipt({
      T: '10.13',
      PosA: [
        { _: 'Pos', Dsc: 'Tovar', Amt: '20.00', TaxG: 'A' },
        { _: 'Pos', PTY: 'Vou', Dsc: 'Poukaz', Amt: '-5.00', TaxG: 'A', VouN: '0918' },
        { _: 'Pos', PTY: 'Adv', Dsc: 'Záloha', Amt: '-5.00', TaxG: 'A' },
        { _: 'Pos', PTY: 'Dep', Dsc: 'Vratná fľaša', Amt: '0.13', TaxG: 'D' },
      ],
      TaxA: [],
    });
    assert.deepEqual(ekasaReceiptOf({ esr: mixed, bc: classify(mixed) }).items.map((i) => [i.itemType, i.voucherNumber, i.vatRate]), [['K', undefined, '23'], ['VP', '0918', '23'], ['OZ', undefined, '23'], ['VO', undefined, '0']]);
  });

  it('an invoice payment (SK_InvoiceNumber) is a UF without items; a paragon carries its number; sellers and customers have their ids', () => {
    const uf = receipt({ SK_InvoiceNumber: 'FA-2026-17' });
    const r = ekasaReceiptOf({ esr: uf, bc: classify(uf) });
    assert.equal(r.receiptType, 'UF');
    assert.equal(r.invoiceNumber, 'FA-2026-17');
    assert.deepEqual(r.items, []);
    const two = receipt({ PosA: [{ _: 'Pos', Dsc: 'a', Amt: '1.00', TaxG: 'A', SK_InvoiceNumber: 'F1' }, { _: 'Pos', Dsc: 'b', Amt: '1.00', TaxG: 'A', SK_InvoiceNumber: 'F2' }] });
    assert.throws(() => ekasaReceiptOf({ esr: two, bc: classify(two) }), (e: unknown) => e instanceof FiscalError && e.params.field === 'ESR.SK_InvoiceNumber');
    const paragon = receipt({ SK_ParagonNumber: '42', Ctm: { Nam: 'Firma', TaxId: 'SK2023456789' } });
    const p = ekasaReceiptOf({ esr: paragon, bc: classify(paragon) });
    assert.equal(p.paragonNumber, '42');
    assert.deepEqual([p.customerId, p.customerIdType], ['SK2023456789', 'ICDPH']);
    // a customer id is sent as given or refused, never cut short
    const foreign = receipt({ Ctm: { Nam: 'Firma', TaxId: 'DE 123 456 789' } });
    assert.deepEqual([ekasaReceiptOf({ esr: foreign, bc: classify(foreign) }).customerId, ekasaReceiptOf({ esr: foreign, bc: classify(foreign) }).customerIdType], ['DE123456789', 'INE']);
    const long = receipt({ Ctm: { Nam: 'Firma', TaxId: 'X'.repeat(41) } });
    assert.throws(() => ekasaReceiptOf({ esr: long, bc: classify(long) }), (e: unknown) => e instanceof FiscalError && e.params.field === 'ESR.Ctm.TaxId');
    const sold = receipt({ PosA: [{ _: 'Pos', Dsc: 'Komisia', Amt: '22.58', TaxG: 'A', SK_SellerIdType: 'IC_DPH', SK_SellerId: 'SK2023456789', SK_SpecialRegulation: '§ 66 zákona o DPH' }] });
    const item = ekasaReceiptOf({ esr: sold, bc: classify(sold) }).items[0];
    assert.deepEqual([item?.sellerId, item?.sellerIdType, item?.specialRegulation], ['SK2023456789', 'ICDPH', '§ 66 zákona o DPH']);
    const noId = receipt({ PosA: [{ _: 'Pos', Dsc: 'x', Amt: '22.58', TaxG: 'A', SK_SellerIdType: 'DIC' }] });
    assert.throws(() => ekasaReceiptOf({ esr: noId, bc: classify(noId) }), (e: unknown) => e instanceof FiscalError && e.params.field === 'ESR.PosA[0].SK_SellerId');
    // an id type it does not know (here eKasa's own spelling) is not taken for a DIČ
    const unknownType = receipt({ PosA: [{ _: 'Pos', Dsc: 'x', Amt: '22.58', TaxG: 'A', SK_SellerIdType: 'ICDPH', SK_SellerId: '2023456789' }] });
    assert.throws(() => ekasaReceiptOf({ esr: unknownType, bc: classify(unknownType) }), (e: unknown) => e instanceof FiscalError && e.params.field === 'ESR.PosA[0].SK_SellerIdType');
  });
});

/**
 * The WS-Security signature checked without xml-crypto (which made it): the body and SignedInfo canonicalized
 * by `xmllint --exc-c14n` (each standing alone with the namespaces it uses declared, as exclusive c14n
 * renders a subtree), the body's SHA-256 compared with the DigestValue, SignedInfo verified by
 * `openssl dgst -sha256 -verify` with the certificate's public key.
 */
function opensslVerifiesEnvelope(xml: string, dir: string): void {
  const body = /<soapenv:Body [\s\S]*<\/soapenv:Body>/.exec(xml)?.[0] ?? '';
  const signedInfo = /<ds:SignedInfo>[\s\S]*<\/ds:SignedInfo>/.exec(xml)?.[0] ?? '';
  assert.ok(body && signedInfo, 'the envelope has a body and a SignedInfo');
  writeFileSync(join(dir, 'body.xml'), body.replace('<soapenv:Body ', '<soapenv:Body xmlns:soapenv="http://schemas.xmlsoap.org/soap/envelope/" xmlns:wsu="http://docs.oasis-open.org/wss/2004/01/oasis-200401-wss-wssecurity-utility-1.0.xsd" '));
  writeFileSync(join(dir, 'signed-info.xml'), signedInfo.replace('<ds:SignedInfo>', '<ds:SignedInfo xmlns:ds="http://www.w3.org/2000/09/xmldsig#">'));
  writeFileSync(join(dir, 'signature.bin'), Buffer.from(/<ds:SignatureValue>([^<]+)</.exec(xml)?.[1] ?? '', 'base64'));
  const digest = sh(`xmllint --exc-c14n "${dir}/body.xml" | openssl dgst -sha256 -binary | base64 -w0`);
  assert.equal(digest, /<ds:DigestValue>([^<]+)</.exec(xml)?.[1], 'the DigestValue is the SHA-256 of the canonical body');
  sh(`openssl x509 -in "${files.certFile}" -pubkey -noout > "${dir}/signer.pem"`);
  assert.match(sh(`xmllint --exc-c14n "${dir}/signed-info.xml" | openssl dgst -sha256 -verify "${dir}/signer.pem" -signature "${dir}/signature.bin"`), /Verified OK/);
}

describe('eKasa request and answers', () => {
  function request(extra: Obj = {}): string {
    const esr = receipt(extra);
    const r = ekasaReceiptOf({ esr, bc: classify(esr) });
    const pkp = pkpOf(cert.keyPem, { dic: '1234567890', cashRegisterCode: CODE, receiptNumber: r.receiptNumber, receiptType: r.receiptType, issued: r.issued, amount: r.amount });
    return ekasaRequest({ header: { uuid: '6ac205dd-ed3c-41f6-918c-21eb43480d8c', sentAt: new Date(2026, 0, 21, 14, 30, 6), sendingCount: 1, swId: 'ABC123' }, seller: sellerIds(CFG), cashRegisterCode: CODE, receipt: r, created: '2026-01-21T14:30:06', pkp, okp: okpOf(pkp) }, cert);
  }

  it('is valid against the request schema (xmllint), its WS-Security signature verifies, tampering is detected', () => {
    const xml = request({ PosA: [{ _: 'Pos', Dsc: '<Káva> & "čaj"', Amt: '22.58', TaxG: 'A' }], SK_ParagonNumber: '7' });
    const element = /<ekasa:RegisterReceiptRequest[\s\S]*<\/ekasa:RegisterReceiptRequest>/.exec(xml)?.[0] ?? '';
    const file = join(files.dir, 'request.xml');
    writeFileSync(file, element);
    const lint = xmllintEkasa(file);
    assert.equal(lint.ok, true, lint.output);
    assert.match(element, /Paragon="true"/);
    assert.match(element, /ParagonNumber="7"/);
    assert.match(element, /Name="&lt;Káva&gt; &amp; &quot;čaj&quot;"/);
    const sig = verifyEkasaEnvelope(xml);
    assert.equal(sig.valid, true, sig.detail);
    opensslVerifiesEnvelope(xml, files.dir);
    assert.equal(sig.certificate?.serialNumber.toUpperCase(), cert.serial);
    const tampered = xml.replace('Amount="22.58"', 'Amount="2.58"');
    assert.notEqual(tampered, xml);
    assert.equal(verifyEkasaEnvelope(tampered).valid, false);
    assert.throws(() => opensslVerifiesEnvelope(tampered, files.dir), /DigestValue/);
    // a schema violation: an unknown receipt type
    writeFileSync(file, element.replace('ReceiptType="PD"', 'ReceiptType="XX"'));
    assert.equal(xmllintEkasa(file).ok, false);
  });

  it('reads the receipt id, refusals and transient errors', () => {
    const wrap = (body: string): string => `<soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/"><soap:Body><ekasa:RegisterReceiptResponse xmlns:ekasa="http://financnasprava.sk/ekasa/schema/v2"><ekasa:Header Uuid="6ac205dd-ed3c-41f6-918c-21eb43480d8c" ProcessDate="2026-01-21T14:30:06+01:00"/>${body}</ekasa:RegisterReceiptResponse></soap:Body></soap:Envelope>`;
    assert.deepEqual(parseEkasaAnswer(wrap('<ekasa:Receipt Id="O-7DBCDA8A56EE426DBCDA8A56EE426D1A"/>')), { ok: true, id: 'O-7DBCDA8A56EE426DBCDA8A56EE426D1A' });
    assert.deepEqual(parseEkasaAnswer(wrap('<ekasa:Error Code="-10" Message="Chyba v podpise dátovej správy."/>')), { ok: false, code: '-10', message: 'Chyba v podpise dátovej správy.' });
    assert.throws(() => parseEkasaAnswer(wrap('<ekasa:Error Code="-1" Message="Interná chyba"/>')), EkasaTransientError);
    assert.throws(() => parseEkasaAnswer(wrap('<ekasa:Receipt Id="nonsense"/>')), EkasaTransientError);
    assert.throws(() => parseEkasaAnswer('<html>bad gateway</html>'), EkasaTransientError);
    assert.throws(() => parseEkasaAnswer('not xml <'), EkasaTransientError);
    // an answer to another message (its receipt id or refusal is another receipt's) is not this receipt's
    const id = '6AC205DD-ED3C-41F6-918C-21EB43480D8C';
    assert.deepEqual(parseEkasaAnswer(wrap('<ekasa:Receipt Id="O-7DBCDA8A56EE426DBCDA8A56EE426D1A"/>'), id), { ok: true, id: 'O-7DBCDA8A56EE426DBCDA8A56EE426D1A' });
    assert.throws(() => parseEkasaAnswer(wrap('<ekasa:Receipt Id="O-7DBCDA8A56EE426DBCDA8A56EE426D1A"/>'), '0b0e0a7c-2c55-4f39-9a4e-0c2f5a6f6a11'), EkasaTransientError);
    assert.throws(() => parseEkasaAnswer(wrap('<ekasa:Error Code="-10" Message="Chyba v podpise dátovej správy."/>'), '0b0e0a7c-2c55-4f39-9a4e-0c2f5a6f6a11'), EkasaTransientError);
  });
});

describe('SkModule', () => {
  const sk = new SkModule();
  const state = { rn: 'def', cfg: CFG, fn: 0, tid: 0, tn: {}, country: {} } as never;
  const input = (esr: Obj): Parameters<SkModule['fiscalize']>[0] => ({ rn: 'def', sq: 1, prevHash: '', now: new Date(2026, 0, 21, 14, 30, 6), type: 'Tra', esr, bc: classify(esr), state, signer: {} as never, dataDir, attributes: ATTRS, tnGenerated: false });

  it('validates the receipt number, the paragon number, references of returns and the items before journaling', () => {
    const fail = (esr: Obj, field: string): void => assert.throws(() => sk.validate(esr, classify(esr)), (e: unknown) => e instanceof FiscalError && e.params.field === field);
    sk.validate(receipt(), classify(receipt()));
    fail(receipt({ TN: '017' }), 'ESR.TN');
    fail(receipt({ SK_ParagonNumber: 'abc' }), 'ESR.SK_ParagonNumber');
    fail(receipt({ T: '-1.00', PosA: [{ _: 'Pos', Dsc: 'x', Amt: '-1.00', TaxG: 'A', RFN: '1' }], TaxA: [] }), 'ESR.RFiscal');
    fail(receipt({ PosA: [{ _: 'Pos', Dsc: 'x', Amt: '22.58', TaxG: 'Q' }], TaxA: [] }), 'ESR.PosA[0].TaxG');
    // buying back returnable packaging has a negative total but returns nothing sold: no original to name
    const buyBack = receipt({ T: '-0.26', PosA: [{ _: 'Pos', PTY: 'Dep', Dsc: 'Vratná fľaša', Amt: '-0.26', Qty: '-2', TaxG: 'D' }], TaxA: [] });
    assert.equal(classify(buyBack).kind, 'return');
    sk.validate(buyBack, classify(buyBack));
    // training is not reported: no rules of eKasa
    const training = receipt({ Test: '1', TN: '017' });
    sk.validate(training, classify(training));
  });

  it('refuses before journaling what the request cannot carry, naming the field; what passes is valid against the schema', () => {
    const fail = (esr: Obj, field: string): void => assert.throws(() => sk.validate(esr, classify(esr)), (e: unknown) => e instanceof FiscalError && e.params.field === field, field);
    const returned = (rfiscal: string): Obj => receipt({ T: '-1.00', RFiscal: rfiscal, PosA: [{ _: 'Pos', Dsc: 'x', Amt: '-1.00', Qty: '-1', TaxG: 'A' }], TaxA: [] });
    fail(returned('hello world'), 'ESR.RFiscal');
    fail(receipt({ PosA: [{ _: 'Pos', Dsc: 'x', Amt: '22.58', Qty: '0.12345', TaxG: 'A' }], TaxA: [] }), 'ESR.PosA[0].Qty');
    fail(receipt({ PosA: [{ _: 'Pos', Dsc: 'x', Amt: '0.00', Qty: '0', TaxG: 'A' }, { _: 'Pos', Dsc: 'y', Amt: '22.58', TaxG: 'A' }], TaxA: [] }), 'ESR.PosA[0].Qty');
    fail(receipt({ PosA: [{ _: 'Pos', Dsc: 'x', Amt: '22.58', TaxG: '150%' }], TaxA: [] }), 'ESR.PosA[0].TaxG');
    fail(receipt({ PosA: [{ _: 'Pos', Dsc: 'x', Amt: '22.58', TaxG: 'T' }], TaxA: [{ _: 'Tax', TaxG: 'T', Prc: '23.456', Amt: '22.58' }] }), 'ESR.PosA[0].TaxG');
    fail(receipt({ T: '20000000.00', PosA: [{ _: 'Pos', Dsc: 'x', Amt: '20000000.00', TaxG: 'A' }], TaxA: [] }), 'ESR.T');
    fail(receipt({ T: '1.00', PosA: [{ _: 'Pos', Dsc: 'x', Amt: '0.335', TaxG: 'A' }, { _: 'Pos', Dsc: 'y', Amt: '0.665', TaxG: 'A' }], TaxA: [] }), 'ESR.PosA[0].Amt');
    fail(receipt({ T: '1.995', PosA: [{ _: 'Pos', Dsc: 'x', Amt: '2.00', TaxG: 'A' }, { _: 'Mod', Dsc: 'Zľava', Amt: '-0.005' }], TaxA: [] }), 'ESR.T');
    fail(receipt({ T: '17.58', PosA: [{ _: 'Pos', Dsc: 'x', Amt: '22.58', TaxG: 'A' }, { _: 'Pos', PTY: 'Vou', Dsc: 'Poukaz', Amt: '-5.00', TaxG: 'A', VouN: '9'.repeat(51) }], TaxA: [] }), 'ESR.PosA[1].VouN');
    fail(receipt({ T: '5.01', PosA: Array.from({ length: 501 }, () => ({ _: 'Pos', Dsc: 'x', Amt: '0.01', TaxG: 'A' })), TaxA: [] }), 'ESR.PosA');
    // the same kinds of values within the limits pass, and eKasa's schema takes the request they make
    const fine = [
      returned(' O-7DBCDA8A56EE426DBCDA8A56EE426D1A '),
      returned('9f48fa6c-e456da6a-9c996816-94fcd75e-a54aab7a'),
      receipt({ PosA: [{ _: 'Pos', Dsc: 'x', Amt: '22.58', Qty: '0.12340', TaxG: 'T' }], TaxA: [{ _: 'Tax', TaxG: 'T', Prc: '23.50', Amt: '22.58' }] }),
      receipt({ T: '9999999.99', PosA: [{ _: 'Pos', Dsc: 'x', Amt: '9999999.99', TaxG: 'A' }], TaxA: [] }),
      receipt({ T: '5.00', PosA: Array.from({ length: 500 }, () => ({ _: 'Pos', Dsc: 'x', Amt: '0.01', TaxG: 'A' })), TaxA: [] }),
      receipt({ T: '2.00', PosA: [{ _: 'Pos', Dsc: 'x', Amt: '1.000', TaxG: 'A' }, { _: 'Pos', Dsc: 'y', Amt: '1.00', TaxG: 'A' }, { _: 'Pos', Dsc: 'z', Amt: '1.00', TaxG: 'C' }, { _: 'Mod', PN: '*', Dsc: 'Zľava', Amt: '-1.00' }], TaxA: [] }),
    ];
    fine.forEach((esr, i) => {
      sk.validate(esr, classify(esr));
      const fis = sk.fiscalize(input(esr));
      const r = ekasaReceiptOf({ esr, bc: classify(esr), ...(typeof fis.RefReceiptId === 'string' ? { referenceReceiptId: fis.RefReceiptId } : {}) });
      // the items add up to the amount, in cents
      const cents = (a: string): bigint => BigInt(a.replace('.', ''));
      assert.equal(r.items.reduce((t, item) => t + cents(item.price), 0n), cents(r.amount), `receipt ${i}`);
      const xml = ekasaRequest({ header: { uuid: '6ac205dd-ed3c-41f6-918c-21eb43480d8c', sentAt: new Date(2026, 0, 21, 14, 30, 6), sendingCount: 1, swId: 'ABC123' }, seller: sellerIds(CFG), cashRegisterCode: CODE, receipt: r, created: '2026-01-21T14:30:06', pkp: String(fis.PKP), okp: String(fis.OKP) }, cert);
      const file = join(files.dir, `limits-${i}.xml`);
      writeFileSync(file, /<ekasa:RegisterReceiptRequest[\s\S]*<\/ekasa:RegisterReceiptRequest>/.exec(xml)?.[0] ?? '');
      const lint = xmllintEkasa(file);
      assert.equal(lint.ok, true, lint.output);
    });
  });

  it('fiscalizes with PKP, OKP, the offline QR code and the Slovak lines; withId adds the UID', () => {
    const esr = receipt();
    const fis = sk.fiscalize(input(esr));
    const pkp = pkpOf(files.keyPem, { dic: '1234567890', cashRegisterCode: CODE, receiptNumber: '17', receiptType: 'PD', issued: '2026-01-21T14:30:05', amount: '22.58' });
    assert.equal(fis.PKP, pkp);
    assert.equal(fis.OKP, okpOf(pkp));
    assert.equal(fis.FN, `${CODE}/17`);
    assert.equal(fis.Code, `${okpOf(pkp)}:${CODE}:260121143005:17:22.58`);
    assert.deepEqual((fis.Tag as Obj[]).map((t) => t.Label), ['DIČ:', 'IČ DPH:', 'IČO:', 'Kód pokladnice:', 'Typ dokladu:', 'Číslo dokladu:', 'OKP:', 'PKP:', '']);
    assert.ok((fis.Tag as Obj[]).some((t) => t.Value === 'OFF-LINE DOKLAD'));
    const data = { _: 'Tra', ESR: esr, Fis: fis };
    assert.equal(sk.authority.reports(data), true);
    const online = sk.authority.withId(fis, 'O-7DBCDA8A56EE426DBCDA8A56EE426D1A');
    assert.equal(online.UID, 'O-7DBCDA8A56EE426DBCDA8A56EE426D1A');
    assert.equal(online.Code, 'O-7DBCDA8A56EE426DBCDA8A56EE426D1A');
    assert.deepEqual((online.Tag as Obj[]).map((t) => t.Name), ['DIC', 'IcDph', 'Ico', 'KodPokladnice', 'TypDokladu', 'CisloDokladu', 'OKP', 'UID']);
    // the journal verifier accepts it with the certificate, and names a changed amount
    const key = { key: createPublicKey(cert.certPem), fingerprint: 'fp', label: 'cert' };
    assert.equal(typeof checkReceipt(data, [key]), 'object');
    assert.match(String(checkReceipt({ ...data, ESR: { ...esr, T: '22.59' } }, [key])), /not the signature/);
    assert.match(String(checkReceipt({ ...data, Fis: { ...fis, OKP: okpOf(pkpOf(files.keyPem, { dic: '1', cashRegisterCode: CODE, receiptNumber: '1', receiptType: 'PD', issued: '2026-01-01T00:00:00', amount: '1.00' })) } }, [key])), /not the SHA-1/);
    // training: generic number and test tag, no PKP, not reported
    const training = receipt({ Test: '1' });
    const tfis = sk.fiscalize(input(training));
    assert.equal(tfis.PKP, undefined);
    assert.equal(sk.authority.reports({ _: 'Tra', ESR: training, Fis: tfis }), false);
  });

  it('refuses a reported receipt before it is journaled without DIČ, certificate or software id', async () => {
    const esr = receipt();
    const st = (cfg: Obj): never => ({ rn: 'def', cfg, fn: 0, country: {} }) as never;
    await assert.rejects(async () => sk.prepare({ dataDir, state: st({ Cmp: { Ctry: 'SK' } }), attributes: ATTRS, esr }), (e: unknown) => e instanceof FiscalError && e.params.field === 'Cfg.Cmp.TIN');
    await assert.rejects(async () => sk.prepare({ dataDir, state: st(CFG), attributes: new Map(), esr }), (e: unknown) => e instanceof FiscalError && e.params.field === 'SK_SwId');
    const empty = tempDir('sk-empty-');
    try {
      await assert.rejects(async () => sk.prepare({ dataDir: empty, state: st(CFG), attributes: ATTRS, esr }), (e: unknown) => e instanceof FiscalError && e.code === '#FISCAL_CERTIFICATE');
    } finally {
      rmSync(empty, { recursive: true, force: true });
    }
    await sk.prepare({ dataDir, state: st(CFG), attributes: ATTRS, esr });
  });

  it('a register other than def signs with authentication data of its own, never with def\'s (they name another cash register)', async () => {
    const esr = receipt();
    const rn = 'SK1234567890$P1_2';
    const of = (r: string): never => ({ rn: r, cfg: CFG, fn: 0, tn: {}, country: {} }) as never;
    const refused = (e: unknown): boolean => e instanceof FiscalError && e.code === '#FISCAL_CERTIFICATE' && /its own cash register/.test(e.message);
    await assert.rejects(async () => sk.prepare({ dataDir, state: of(rn), attributes: ATTRS, esr }), refused);
    assert.throws(() => sk.fiscalize({ ...input(esr), rn, state: of(rn) }), refused);
    const own = makeEkasaCertificate('88812345678900002');
    try {
      storeFiscalCertificate(dataDir, rn, own.p12, own.password);
      await sk.prepare({ dataDir, state: of(rn), attributes: ATTRS, esr });
      const fis = sk.fiscalize({ ...input(esr), rn, state: of(rn) });
      assert.equal(fis.CashRegisterCode, '88812345678900002');
      assert.equal(pkpVerifies(createPublicKey(own.keyPem), { dic: '1234567890', cashRegisterCode: '88812345678900002', receiptNumber: '17', receiptType: 'PD', issued: '2026-01-21T14:30:05', amount: '22.58' }, String(fis.PKP)), true);
    } finally {
      rmSync(own.dir, { recursive: true, force: true });
    }
  });
});
