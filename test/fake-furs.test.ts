/**
 * The fake FURS against the Slovenian module's own requests: a receipt delivered by FursAuthority passes the
 * official schema and signature check and gets an EOR (verified with the fake's key); a tampered token is
 * refused (S002); an unknown certificate is refused (S003); a schema-invalid request gets the schema error
 * (S001); a dropped connection throws; a later delivery carries SubsequentSubmit; premises register.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createPublicKey } from 'node:crypto';
import { rmSync } from 'node:fs';
import { compactVerify } from 'jose';
import { storeFiscalCertificate } from '../src/register/fiscal/certificate-store.js';
import { FursAuthority } from '../src/register/fiscal/si/furs.js';
import { invoiceRequest, jsonText } from '../src/register/fiscal/si/invoice.js';
import { decodeJws, parseFursAnswer, signFursJws, tokenBody } from '../src/register/fiscal/si/jws.js';
import { registerPremise } from '../src/register/fiscal/si/premise.js';
import { zoiOf } from '../src/register/fiscal/si/zoi.js';
import type { Obj } from '../src/register/codec/index.js';
import { makeFursTestCertificate, startFakeFurs } from './fake-furs.js';
import { tempDir } from './helpers.js';

const CFG: Obj = { Cmp: { TaxId: 'SI12345678', Nam: 'Testno podjetje' }, Loc: { TL: 'BP101', Adr: 'Tržaška cesta', AdrNr: '24A', Zip: '1000', City: 'Ljubljana', SI_CadastralNumber: '365', SI_BuildingNumber: '12', SI_BuildingSectionNumber: '3' } };

function setup() {
  const made = makeFursTestCertificate();
  const dataDir = tempDir();
  const certificate = storeFiscalCertificate(dataDir, 'def', made.p12, 'test');
  const cleanup = (): void => {
    rmSync(made.dir, { recursive: true, force: true });
    rmSync(dataDir, { recursive: true, force: true });
  };
  return { made, certificate, cleanup };
}

function receipt(keyPem: string, extra: Obj = {}): Obj {
  const esr: Obj = {
    D: '2026-03-01T10:13:32', TL: 'BP101', TT: 'B1', TN: '11', T: '19.15', OprTIN: '87654321',
    TaxA: [
      { _: 'Tax', TaxG: 'A', Prc: '22', Net: '12.30', TAmt: '2.71', Amt: '15.01' },
      { _: 'Tax', TaxG: 'B', Prc: '9.5', Net: '3.78', TAmt: '0.36', Amt: '4.14' },
    ],
    PayA: [{ _: 'Pay', PayG: 'cash', Amt: '19.15', Dsc: 'Gotovina' }],
    ...extra,
  };
  const zoi = zoiOf(keyPem, { taxNumber: '12345678', issued: '2026-03-01T10:13:32', number: '11', premise: 'BP101', device: 'B1', amount: '19.15' });
  return { _: 'Tra', SQ: '5', RN: 'def', TS: '2026-03-01T10:13:33', BC: 'sale', ESR: esr, Fis: { D: '2026-03-01T10:13:33', FN: 'BP101-B1-11', ZOI: zoi } };
}

const attributesFor = (url: string): ReadonlyMap<string, string> => new Map([['fiscal_url', url], ['fiscal_test', '1']]);

test('a receipt delivered by the module passes schema and signature and gets an EOR signed by FURS', async () => {
  const { made, certificate, cleanup } = setup();
  const furs = await startFakeFurs({ certPems: [made.certPem] });
  try {
    const authority = new FursAuthority();
    const data = receipt(made.keyPem);
    assert.equal(authority.reports(data), true);
    const result = await authority.deliver({ rn: 'def', data, cfg: CFG, attributes: attributesFor(furs.url), certificate, later: false, signal: AbortSignal.timeout(5000), now: new Date() });
    assert.equal(furs.received.length, 1);
    const got = furs.received[0];
    assert.ok(got);
    assert.deepEqual(result, { ok: true, id: got.answer.eor });
    assert.match(got.answer.eor ?? '', /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    assert.equal(got.later, false);
    // the header names the certificate, its serial as an exact decimal number
    assert.match(got.headerText, new RegExp(`"serial":${certificate.serialDecimal}}$`));
    assert.match(got.headerText, /"subject_name":"C=SI,O=state-institutions,OU=DavPotRacTEST,OU=12345678,serialNumber=1,CN=TESTNO PODJETJE 1"/);
    const inv = (got.payload.InvoiceRequest as { Invoice: Record<string, unknown> }).Invoice;
    assert.equal(inv.TaxNumber, 12345678);
    assert.equal(inv.OperatorTaxNumber, 87654321);
    assert.equal(inv.ProtectedID, (data.Fis as Obj).ZOI);
    // withId: the EOR as a field and a printed tag
    const fis = authority.withId({ FN: 'BP101-B1-11', Tag: [{ Name: 'ZOI', Label: 'ZOI:', Value: 'x' }] }, 'e-o-r');
    assert.equal(fis.EOR, 'e-o-r');
    assert.deepEqual((fis.Tag as Obj[]).map((t) => t.Name), ['ZOI', 'EOR']);
  } finally {
    await furs.close();
    cleanup();
  }
});

test("FURS's answer is verified with its key when one is given; a wrong key throws", async () => {
  const { made, certificate, cleanup } = setup();
  const furs = await startFakeFurs({ certPems: [made.certPem] });
  try {
    const jws = signFursJws(jsonText(invoiceRequest({ data: receipt(made.keyPem), cfg: CFG, later: true, now: new Date() })), certificate);
    // independent check of our JWS with jose and the certificate's public key
    const verified = await compactVerify(jws, createPublicKey(made.certPem));
    assert.equal(verified.protectedHeader.alg, 'RS256');
    const res = await fetch(`${furs.url}/invoices`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: tokenBody(jws) });
    const text = await res.text();
    const answer = parseFursAnswer(text, furs.publicKeyPem);
    assert.equal(answer.ok, true);
    assert.equal(furs.received[0]?.later, true);
    assert.throws(() => parseFursAnswer(text, made.certPem), /does not verify/);
    assert.throws(() => parseFursAnswer('<html>Request Rejected</html>'), /not a FURS answer/);
  } finally {
    await furs.close();
    cleanup();
  }
});

test('refusals: a tampered token (S002), an unknown certificate (S003), a schema-invalid request (S001), error mode', async () => {
  const { made, certificate, cleanup } = setup();
  const other = makeFursTestCertificate('DRUGO PODJETJE');
  const furs = await startFakeFurs({ certPems: [made.certPem] });
  const post = async (jws: string): Promise<ReturnType<typeof parseFursAnswer>> => {
    const res = await fetch(`${furs.url}/invoices`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: tokenBody(jws) });
    return parseFursAnswer(await res.text(), furs.publicKeyPem);
  };
  try {
    const payload = invoiceRequest({ data: receipt(made.keyPem), cfg: CFG, later: false, now: new Date() });
    const jws = signFursJws(jsonText(payload), certificate);
    const [h, p, s] = jws.split('.') as [string, string, string];
    const tampered = Buffer.from(p, 'base64url').toString('utf8').replace('"InvoiceAmount":19.15', '"InvoiceAmount":1.15');
    assert.notEqual(tampered, Buffer.from(p, 'base64url').toString('utf8'));
    assert.deepEqual(await post(`${h}.${Buffer.from(tampered).toString('base64url')}.${s}`), { ok: false, code: 'S002', message: 'Podpis sporočila ni veljaven' });
    // signed by a certificate FURS does not know
    const otherCert = { ...certificate, keyPem: other.keyPem, certPem: other.certPem, serialDecimal: BigInt(`0x${new (await import('node:crypto')).X509Certificate(other.certPem).serialNumber}`).toString(10) };
    assert.equal((await post(signFursJws(jsonText(payload), otherCert))).ok, false);
    assert.equal(furs.received.at(-1)?.answer.error, 'S003');
    // schema: an InvoiceNumber longer than 20 characters and a missing ProtectedID
    const bad = JSON.parse(jsonText(payload)) as { InvoiceRequest: { Invoice: Record<string, unknown> } };
    delete bad.InvoiceRequest.Invoice.ProtectedID;
    const refused = await post(signFursJws(JSON.stringify(bad), certificate));
    assert.equal(refused.ok, false);
    assert.equal(!refused.ok && refused.code, 'S001');
    assert.match(!refused.ok ? refused.message : '', /ProtectedID/);
    // an amount with three decimals breaks multipleOf 0.01
    const text = jsonText(payload).replace('"PaymentAmount":19.15', '"PaymentAmount":19.151');
    assert.equal(furs.received.length, 3);
    const r2 = await post(signFursJws(text, certificate));
    assert.equal(!r2.ok && r2.code, 'S001');
    // FURS's own failure (S100) is no refusal: the receipt is sent again later
    furs.setMode('error');
    await assert.rejects(post(jws), /S100/);
    furs.setMode('error', { code: 'S005', message: 'Davčna številka ni veljavna' });
    const r3 = await post(jws);
    assert.equal(!r3.ok && r3.code, 'S005');
    // what the fake decoded is what was signed
    assert.deepEqual(decodeJws(jws).payload, JSON.parse(jsonText(payload)));
  } finally {
    await furs.close();
    cleanup();
    rmSync(other.dir, { recursive: true, force: true });
  }
});

test('down: the connection is dropped and deliver throws (the receipt is queued by the caller)', async () => {
  const { made, certificate, cleanup } = setup();
  const furs = await startFakeFurs({ certPems: [made.certPem] });
  try {
    furs.setMode('down');
    const authority = new FursAuthority();
    await assert.rejects(authority.deliver({ rn: 'def', data: receipt(made.keyPem), cfg: CFG, attributes: attributesFor(furs.url), certificate, later: false, signal: AbortSignal.timeout(3000), now: new Date() }));
    assert.equal(furs.received.length, 0);
  } finally {
    await furs.close();
    cleanup();
  }
});

test('a business premise registers; a movable one too; a Loc without land-register ids is refused before sending', async () => {
  const { made, certificate, cleanup } = setup();
  const furs = await startFakeFurs({ certPems: [made.certPem] });
  try {
    const attributes = attributesFor(furs.url);
    const ok = await registerPremise({ cfg: CFG, attributes, tl: 'BP101', certificate, signal: AbortSignal.timeout(5000), now: new Date(2026, 2, 1), verifyKey: furs.publicKeyPem });
    assert.deepEqual(ok, { ok: true, id: '' });
    const bp = (furs.received[0]?.payload.BusinessPremiseRequest as { BusinessPremise: Record<string, unknown> }).BusinessPremise;
    assert.deepEqual(bp.BPIdentifier, { RealEstateBP: { PropertyID: { CadastralNumber: 365, BuildingNumber: 12, BuildingSectionNumber: 3 }, Address: { Street: 'Tržaška cesta', HouseNumber: '24', HouseNumberAdditional: 'A', Community: 'Ljubljana', City: 'Ljubljana', PostalCode: '1000' } } });
    assert.equal(bp.ValidityDate, '2026-03-01T00:00:00');
    const movable = await registerPremise({ cfg: { ...CFG, Loc: { TL: 'MP1', SI_PremiseType: 'A' } }, attributes, tl: 'MP1', certificate, signal: AbortSignal.timeout(5000), now: new Date(), closing: true });
    assert.equal(movable.ok, true);
    await assert.rejects(registerPremise({ cfg: { ...CFG, Loc: { TL: 'BP101', Adr: 'X', AdrNr: '1', Zip: '1000', City: 'Ljubljana' } }, attributes, tl: 'BP101', certificate, signal: AbortSignal.timeout(5000), now: new Date() }), /SI_CadastralNumber/);
    assert.equal(furs.received.length, 2);
  } finally {
    await furs.close();
    cleanup();
  }
});
