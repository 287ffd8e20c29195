/**
 * The fake eKasa and the Slovak delivery against it over HTTP: a receipt delivered by the module is valid
 * against the request schema (also checked here with xmllint directly), its WS-Security signature, PKP and OKP
 * verify and it gets a receipt id; a request changed after signing is answered -10, one against the schema -2,
 * a PKP that is not the receipt's -11, a certificate of another cash register -12; eKasa's internal error (-1)
 * and an eKasa that is down throw, so the pipeline delivers the receipt later; it recovers.
 */
import assert from 'node:assert/strict';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Obj } from '../src/register/codec/index.js';
import { classify } from '../src/register/esr/business-case.js';
import type { AuthorityCertificate, DeliveryInput } from '../src/register/fiscal/authority.js';
import { storeFiscalCertificate } from '../src/register/fiscal/certificate-store.js';
import { sellerIds } from '../src/register/fiscal/sk/ids.js';
import { SkModule } from '../src/register/fiscal/sk/index.js';
import { okpOf, pkpOf } from '../src/register/fiscal/sk/pkp.js';
import { ekasaReceiptOf } from '../src/register/fiscal/sk/receipt.js';
import { EkasaTransientError, ekasaRequest, parseEkasaAnswer } from '../src/register/fiscal/sk/request-xml.js';
import { type EkasaCertificateFiles, type FakeEkasa, makeEkasaCertificate, startFakeEkasa, xmllintEkasa } from './fake-ekasa.js';
import { tempDir } from './helpers.js';

const CODE = '88812345678900001';
const CFG: Obj = { Cmp: { Ctry: 'SK', TaxId: 'SK1234567890' }, Loc: { LegalId: '76543210' } };
const ESR: Obj = {
  D: '2026-01-21T14:30:05', TL: 'P1', TT: '1', TN: '18', T: '-4.00', RFiscal: 'O-7DBCDA8A56EE426DBCDA8A56EE426D1A',
  PosA: [{ _: 'Pos', Dsc: 'Vrátenie', Amt: '-4.00', Qty: '-1', TaxG: 'B', RFN: 'x' }],
  PayA: [{ _: 'Pay', PayG: 'debitcard', Amt: '-4.00' }],
  TaxA: [{ _: 'Tax', TaxG: 'B', Prc: '19', Net: '-3.36', TAmt: '-0.64', Amt: '-4.00' }],
};

let files: EkasaCertificateFiles;
let dataDir: string;
let cert: AuthorityCertificate;
let ekasa: FakeEkasa;
const sk = new SkModule();

function record(): Obj {
  const fis = sk.fiscalize({ rn: 'def', sq: 5, prevHash: '', now: new Date(2026, 0, 21, 14, 30, 6), type: 'Tra', esr: ESR, bc: classify(ESR), state: { rn: 'def', cfg: CFG, fn: 0, tid: 0, tn: {}, country: {} } as never, signer: {} as never, dataDir, attributes: attributes(), tnGenerated: false });
  return { _: 'Tra', SQ: '5', RN: 'def', TS: '2026-01-21T14:30:06', ESR, Fis: fis };
}

function attributes(): Map<string, string> {
  return new Map([['fiscal_test', '1'], ['fiscal_url', ekasa.url], ['sk_swid', 'ABC123']]);
}

function input(extra: Partial<DeliveryInput> = {}): DeliveryInput {
  return { rn: 'def', data: record(), cfg: CFG, attributes: attributes(), certificate: cert, later: false, signal: AbortSignal.timeout(5000), now: new Date(2026, 0, 21, 14, 30, 6), ...extra };
}

async function post(xml: string): Promise<string> {
  const res = await fetch(ekasa.url, { method: 'POST', body: xml, headers: { 'content-type': 'text/xml' } });
  return res.text();
}

function signedRequest(certificate: AuthorityCertificate, pkpAmount = '-4.00'): string {
  const r = ekasaReceiptOf({ esr: ESR, bc: classify(ESR), referenceReceiptId: 'O-7DBCDA8A56EE426DBCDA8A56EE426D1A' });
  const pkp = pkpOf(certificate.keyPem, { dic: '1234567890', cashRegisterCode: CODE, receiptNumber: '18', receiptType: 'PD', issued: r.issued, amount: pkpAmount });
  return ekasaRequest({ header: { uuid: '6ac205dd-ed3c-41f6-918c-21eb43480d8c', sentAt: new Date(), sendingCount: 1, swId: 'ABC123' }, seller: sellerIds(CFG), cashRegisterCode: CODE, receipt: r, created: '2026-01-21T14:30:06', pkp, okp: okpOf(pkp) }, certificate);
}

before(async () => {
  files = makeEkasaCertificate(CODE);
  dataDir = tempDir('sk-ekasa-');
  cert = storeFiscalCertificate(dataDir, 'def', files.p12, files.password);
  ekasa = await startFakeEkasa();
});
after(async () => {
  await ekasa.close();
  rmSync(files.dir, { recursive: true, force: true });
  rmSync(dataDir, { recursive: true, force: true });
});

describe('fake eKasa', () => {
  it('accepts a delivered receipt with a receipt id; the request is valid against the schema (xmllint); a later sending counts 2', async () => {
    ekasa.setMode('ok');
    const data = record();
    const result = await sk.authority.deliver(input({ data }));
    assert.equal(result.ok, true, JSON.stringify(result));
    const got = ekasa.received.at(-1);
    assert.ok(got);
    assert.equal(result.ok && result.id, got.uid);
    assert.match(got.uid ?? '', /^O-[0-9A-F]{32}$/);
    assert.equal(got.cashRegisterCode, CODE);
    assert.equal(got.amount, '-4.00');
    assert.equal(got.pkp, (data.Fis as Obj).PKP);
    assert.equal(got.okp, (data.Fis as Obj).OKP);
    assert.equal(got.sendingCount, 1);
    assert.match(got.xml, /ItemType="V"[^>]*ReferenceReceiptId="O-7DBCDA8A56EE426DBCDA8A56EE426D1A"/);
    const file = join(files.dir, 'received.xml');
    writeFileSync(file, got.xml);
    const lint = xmllintEkasa(file);
    assert.equal(lint.ok, true, lint.output);

    const later = await sk.authority.deliver(input({ later: true }));
    assert.equal(later.ok, true);
    assert.equal(ekasa.received.at(-1)?.sendingCount, 2);
  });

  it('does not take the receipt id of an answer to another message: the receipt is sent again later', async () => {
    ekasa.setMode('ok');
    ekasa.answerUuid = '0b0e0a7c-2c55-4f39-9a4e-0c2f5a6f6a11';
    try {
      await assert.rejects(sk.authority.deliver(input()), (e: unknown) => e instanceof EkasaTransientError && /0b0e0a7c/.test(e.message));
      assert.ok(ekasa.received.at(-1)?.uid, 'eKasa did answer with a receipt id');
    } finally {
      delete ekasa.answerUuid;
    }
    assert.equal((await sk.authority.deliver(input())).ok, true);
  });

  it('answers -10 to a request changed after signing, -2 to one against the schema, -11 to a PKP of other fields', async () => {
    ekasa.setMode('ok');
    const xml = signedRequest(cert);
    assert.equal(parseEkasaAnswer(await post(xml)).ok, true);
    const tampered = xml.replace('Amount="-4.00"', 'Amount="-1.00"');
    assert.notEqual(tampered, xml);
    const e10 = parseEkasaAnswer(await post(tampered));
    assert.equal(e10.ok === false && e10.code, '-10');
    const invalid = xml.replace('ItemType="V"', 'ItemType="X"');
    const e2 = parseEkasaAnswer(await post(invalid));
    assert.equal(e2.ok === false && e2.code, '-2');
    assert.match(e2.ok === false ? e2.message : '', /ItemType/);
    const e11 = parseEkasaAnswer(await post(signedRequest(cert, '-3.00')));
    assert.equal(e11.ok === false && e11.code, '-11');
  });

  it('refuses (-12) a receipt signed with the certificate of another cash register', async () => {
    ekasa.setMode('ok');
    const other = makeEkasaCertificate('88812345678900002');
    try {
      const otherCert = storeFiscalCertificate(dataDir, 'other', other.p12, other.password);
      const e12 = parseEkasaAnswer(await post(signedRequest(otherCert)));
      assert.equal(e12.ok === false && e12.code, '-12');
    } finally {
      rmSync(other.dir, { recursive: true, force: true });
    }
  });

  it('throws for an internal error (-1) and when eKasa is down, refuses other errors, and recovers', async () => {
    ekasa.setMode('error', { code: '-1', message: 'Interná chyba systému e-kasa.' });
    await assert.rejects(sk.authority.deliver(input()), /-1/);
    ekasa.setMode('error', { code: '-5', message: 'Neplatný kód pokladnice.' });
    const refused = await sk.authority.deliver(input());
    assert.equal(refused.ok === false && refused.code, '-5');
    ekasa.setMode('down');
    await assert.rejects(sk.authority.deliver(input()));
    ekasa.setMode('ok');
    const back = await sk.authority.deliver(input({ later: true }));
    assert.equal(back.ok, true);
  });

  it('gives up on a slow answer when the signal aborts', async () => {
    ekasa.setMode('ok');
    ekasa.delayMs = 1000;
    try {
      await assert.rejects(sk.authority.deliver(input({ signal: AbortSignal.timeout(200) })));
    } finally {
      ekasa.delayMs = 0;
    }
  });
});
