/**
 * Portugal through POST /register: simplified invoices (FS), an invoice with a customer (FT), a return
 * and a void as credit notes (NC) naming their originals, the hash chain per series continuing across a
 * restart of the service; every hash verified with the public key by plain node:crypto over the string
 * built here, the printed characters and the QR text checked field by field; the SAF-T export validated
 * by xmllint against the official schema, its chains recomputed here, and `efr verify --country pt`
 * run on it and on tampered copies.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { createPublicKey, verify, type KeyObject } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { request } from 'undici';
import { ZipFile } from 'yazl';
import { ManualClock } from '../src/shared/clock.js';
import { add, dec, fmt, sub, ZERO } from '../src/shared/money.js';
import { ROOT, freePort, get, post, spawnService, startTestService, tempDir, unzip } from './helpers.js';
import { vectorPath } from '../src/shared/testing.js';

const OFFICIAL_XSD = vectorPath('pt-saft', 'SAFTPT_1_04_01.xsd');

/**
 * The official schema for xmllint: libxml2 (an XSD 1.0 processor) refuses to compile it because of one
 * XSD 1.1 construct, an `xs:all` with `maxOccurs="unbounded"` children in GeneralLedgerEntries (the
 * accounting section, which a billing export does not have). That `xs:all` becomes an `xs:sequence`;
 * nothing else changes, and the AT's own sample validates against the result.
 */
function schemaForXmllint(dir: string): string {
  const xsd = readFileSync(OFFICIAL_XSD, 'utf8');
  const fixed = xsd.replace(/<xs:all>/g, '<xs:sequence>').replace(/<\/xs:all>/g, '</xs:sequence>');
  // the copy may already be the XSD 1.0 variant (its README says so); then there is nothing to change
  assert.ok((xsd.match(/<xs:all>/g)?.length ?? 0) <= 1, 'at most the one xs:all of the official schema');
  const path = join(dir, 'SAFTPT_1_04_01-xsd10.xsd');
  writeFileSync(path, fixed);
  const sample = spawnSync('xmllint', ['--noout', '--schema', path, vectorPath('pt-saft', 'saft_idemo599999999.xml')], { encoding: 'utf8' });
  assert.equal(sample.status, 0, `the AT sample validates: ${sample.stderr}`);
  return path;
}
const ATTRS = 'FN_series=A{TT} FN_ATCUD_FS_A7=AAJFJ4VR9K FN_ATCUD_FT_A7=BBJFJ4VR9K FN_ATCUD_NC_A7=CCJFJ4VR9K Fis_Certification=1234';
const CFG = { Cfg: { Cmp: { Nam: 'Padaria Lisboa, Lda.', Ctry: 'PT', TaxId: 'PT599999993', Adr: 'Rua Augusta', AdrNr: '10', Zip: '1100-053', City: 'Lisboa' }, Loc: { TL: '1' }, Trm: { TT: '7' } } };

type Pos = Record<string, string>;
function tra(positions: Pos[], extra: Record<string, unknown> = {}): { Tra: { ESR: Record<string, unknown> } } {
  const t = fmt(positions.reduce((a, p) => add(a, dec(p.Amt as string)), ZERO), 2);
  return { Tra: { ESR: { TL: '1', TT: '7', PosA: positions.map((p) => ({ _: 'Pos', ...p })), PayA: [{ _: 'Pay', Dsc: 'Numerário', PayG: 'cash', Amt: t }], ...extra } } };
}

/** The QR text as [field, value] pairs, in order. */
function qrFields(code: string): Array<[string, string]> {
  return code.split('*').map((f) => {
    const i = f.indexOf(':');
    return [f.slice(0, i), f.slice(i + 1)];
  });
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the parsed JSON answer
function tag(fis: any, name: string): string {
  return (fis.Tag as Array<{ Name: string; Value: string }>).find((t) => t.Name === name)?.Value ?? '';
}

function signed(key: KeyObject, message: string, hash: string): boolean {
  return verify('sha1', Buffer.from(message, 'utf8'), key, Buffer.from(hash, 'base64'));
}

function efrVerify(file: string): { code: number | null; out: string } {
  const r = spawnSync(process.execPath, ['--import', 'tsx', join(ROOT, 'src/cli.ts'), 'verify', '--country', 'pt', file], { cwd: ROOT, encoding: 'utf8', timeout: 60_000 });
  return { code: r.status, out: `${r.stdout}${r.stderr}` };
}

async function zipFiles(files: Record<string, string>, path: string): Promise<void> {
  const zip = new ZipFile();
  for (const [name, text] of Object.entries(files)) zip.addBuffer(Buffer.from(text), name);
  zip.end();
  const chunks: Buffer[] = [];
  for await (const c of zip.outputStream) chunks.push(c as Buffer);
  writeFileSync(path, Buffer.concat(chunks));
}

/** The elements of an XML text by name (no nesting of the same name), with a helper for their children's text. */
function elements(xml: string, name: string): string[] {
  return [...xml.matchAll(new RegExp(`<${name}>([\\s\\S]*?)</${name}>`, 'g'))].map((m) => m[1] as string);
}
function text(xml: string, name: string): string {
  return new RegExp(`<${name}>([^<]*)</${name}>`).exec(xml)?.[1] ?? '';
}

test('Portugal: FS, FT and NC documents, chains across a restart, QR code, SAF-T export, efr verify', async () => {
  const clock = new ManualClock(new Date(2026, 2, 10, 9, 0, 0));
  const dataDir = tempDir('efr-pt-');
  const work = tempDir('efr-pt-work-');
  let svc = await startTestService({ clock, dataDir });
  try {
    assert.equal((await post(`${svc.url}/profile`, { Badge: 'B', Attributes: ATTRS })).status, 200);
    assert.equal((await post(`${svc.url}/cfg`, CFG)).status, 200);

    // 1. a fatura simplificada with three rates, one of them an exemption
    const s1 = await post(`${svc.url}/register`, tra([
      { Dsc: 'Pão de forma', TaxG: 'A', Qty: '2', Pri: '1.15', Amt: '2.30' },
      { Dsc: 'Bolo de arroz', TaxG: 'C', Amt: '1.06' },
      { Dsc: 'Livro escolar', TaxG: 'D', Amt: '12.00', PT_TaxExemptionCode: 'M07', PT_TaxExemptionReason: 'Isento artigo 9.º do CIVA' },
    ]));
    assert.equal(s1.status, 200, s1.text);
    const f1 = s1.json.TraC.Fis;
    const key = createPublicKey(readFileSync(join(dataDir, 'pt', 'public-key.pem'), 'utf8'));
    assert.equal(key.asymmetricKeyDetails?.modulusLength, 1024);
    assert.equal(f1.FN, 'FS A7/1');
    assert.equal(s1.json.TraC.ESR.FN, 'FS A7/1');
    assert.equal(f1.Type, 'FS');
    const m1 = '2026-03-10;2026-03-10T09:00:00;FS A7/1;15.36;';
    assert.equal(f1.Payload, m1);
    assert.ok(signed(key, m1, f1.Signature), 'hash of FS A7/1 verifies with the public key');
    const h1: string = f1.Signature;
    assert.equal(tag(f1, 'Hash'), `${h1[0]}${h1[10]}${h1[20]}${h1[30]}-Processado por programa certificado n.º 1234/AT`);
    assert.equal(tag(f1, 'ATCUD'), 'AAJFJ4VR9K-1');
    assert.equal(tag(f1, 'Doc'), 'Fatura simplificada FS A7/1');
    assert.equal(tag(f1, 'NIF'), 'Consumidor final');
    // 2.30 at 23 %: VAT 0.43, base 1.87; 1.06 at 6 %: 0.06 and 1.00; 12.00 exempt
    assert.deepEqual(qrFields(f1.Code), [
      ['A', '599999993'], ['B', '999999990'], ['C', 'PT'], ['D', 'FS'], ['E', 'N'], ['F', '20260310'], ['G', 'FS A7/1'], ['H', 'AAJFJ4VR9K-1'],
      ['I1', 'PT'], ['I2', '12.00'], ['I3', '1.00'], ['I4', '0.06'], ['I7', '1.87'], ['I8', '0.43'],
      ['N', '0.49'], ['O', '15.36'], ['Q', `${h1[0]}${h1[10]}${h1[20]}${h1[30]}`], ['R', '1234'],
    ]);

    // 2. mainland, Madeira and the Azores in one document: blocks I, J (Azores), K (Madeira)
    clock.set(new Date(2026, 2, 10, 9, 5, 0));
    const s2 = await post(`${svc.url}/register`, tra([
      { Dsc: 'Vinho do Porto', TaxG: 'A', Amt: '12.30' },
      { Dsc: 'Bolo do caco', TaxG: 'E', Amt: '12.20' },
      { Dsc: 'Queijo São Jorge', TaxG: 'H', Amt: '11.60' },
    ]));
    const f2 = s2.json.TraC.Fis;
    assert.equal(f2.FN, 'FS A7/2', s2.text);
    const m2 = `2026-03-10;2026-03-10T09:05:00;FS A7/2;36.10;${h1}`;
    assert.equal(f2.Payload, m2, 'chained to FS A7/1');
    assert.ok(signed(key, m2, f2.Signature));
    const h2: string = f2.Signature;
    assert.deepEqual(qrFields(f2.Code), [
      ['A', '599999993'], ['B', '999999990'], ['C', 'PT'], ['D', 'FS'], ['E', 'N'], ['F', '20260310'], ['G', 'FS A7/2'], ['H', 'AAJFJ4VR9K-2'],
      ['I1', 'PT'], ['I7', '10.00'], ['I8', '2.30'], ['J1', 'PT-AC'], ['J7', '10.00'], ['J8', '1.60'], ['K1', 'PT-MA'], ['K7', '10.00'], ['K8', '2.20'],
      ['N', '6.10'], ['O', '36.10'], ['Q', `${h2[0]}${h2[10]}${h2[20]}${h2[30]}`], ['R', '1234'],
    ]);
    assert.equal(tag(f2, 'ATCUD'), 'AAJFJ4VR9K-2');

    // 3. an invoice with a customer: FT, a series of its own starting its own chain
    const ctm = { Nam: 'Maria Silva', Adr: 'Rua do Ouro 5', Zip: '1100-060', City: 'Lisboa', TaxId: '123456789' };
    const ft = await post(`${svc.url}/register`, tra([{ Dsc: 'Bolo de aniversário', TaxG: 'A', Amt: '24.60' }], { Ctm: ctm }));
    const f3 = ft.json.TraC.Fis;
    assert.equal(f3.FN, 'FT A7/1', ft.text);
    assert.equal(f3.Payload, '2026-03-10;2026-03-10T09:05:00;FT A7/1;24.60;');
    assert.ok(signed(key, f3.Payload, f3.Signature));
    assert.equal(tag(f3, 'ATCUD'), 'BBJFJ4VR9K-1');
    assert.equal(tag(f3, 'NIF'), '123456789');
    assert.deepEqual(qrFields(f3.Code).slice(0, 8), [['A', '599999993'], ['B', '123456789'], ['C', 'PT'], ['D', 'FT'], ['E', 'N'], ['F', '20260310'], ['G', 'FT A7/1'], ['H', 'BBJFJ4VR9K-1']]);

    // 4. a return of one bread: a credit note naming FS A7/1, amounts positive in the document
    const ret = await post(`${svc.url}/register`, tra([{ Dsc: 'Pão de forma', TaxG: 'A', Qty: '-1', Pri: '1.15', Amt: '-1.15' }], { RFN: 'FS A7/1', Rsn: 'Produto com defeito' }));
    const f4 = ret.json.TraC.Fis;
    assert.equal(f4.FN, 'NC A7/1', ret.text);
    assert.equal(f4.Payload, '2026-03-10;2026-03-10T09:05:00;NC A7/1;1.15;');
    assert.ok(signed(key, f4.Payload, f4.Signature));
    assert.equal(tag(f4, 'Ref'), 'FS A7/1');
    assert.equal(tag(f4, 'ATCUD'), 'CCJFJ4VR9K-1');
    assert.deepEqual(qrFields(f4.Code).slice(3, 4), [['D', 'NC']]);
    assert.deepEqual(qrFields(f4.Code).filter(([k]) => /^[I]|^[NO]$/.test(k)), [['I1', 'PT'], ['I7', '0.93'], ['I8', '0.22'], ['N', '0.22'], ['O', '1.15']]);

    // 5. the void of FS A7/2, built by the service from the journal's original: the next credit note
    const orig = s2.json.TraC.ESR;
    const voided = await post(`${svc.url}/register/void?rsn=Anulada`, { Tra: { ESR: { TL: '1', TT: '7', TN: orig.TN, D: orig.D }, Fis: { FN: 'FS A7/2' } } });
    assert.equal(voided.status, 200, voided.text);
    const f5 = voided.json.TraC.Fis;
    assert.equal(f5.FN, 'NC A7/2');
    assert.equal(f5.Payload, `2026-03-10;2026-03-10T09:05:00;NC A7/2;36.10;${f4.Signature}`);
    assert.ok(signed(key, f5.Payload, f5.Signature));

    // refusals: a 0 % line without exemption, a credit note without its original, a wrong NIF, a rate not Portuguese
    const noExemption = await post(`${svc.url}/register`, tra([{ Dsc: 'Livro escolar', TaxG: 'D', Amt: '12.00' }]));
    assert.equal(noExemption.status, 400);
    assert.match(noExemption.json.TraC.Result.UserMessage, /PT_TaxExemptionCode/);
    const noOriginal = await post(`${svc.url}/register`, tra([{ Dsc: 'Pão de forma', TaxG: 'A', Amt: '-1.15' }]));
    assert.equal(noOriginal.status, 400);
    assert.match(noOriginal.json.TraC.Result.UserMessage, /ESR\.RFN/);
    const badNif = await post(`${svc.url}/register`, tra([{ Dsc: 'Bolo', TaxG: 'A', Amt: '1.00' }], { Ctm: { ...ctm, TaxId: '123456780' } }));
    assert.equal(badNif.status, 400);
    assert.match(badNif.json.TraC.Result.UserMessage, /Ctm\.TaxId/);
    const foreignRate = await post(`${svc.url}/register`, tra([{ Dsc: 'Bolo', TaxG: '20%', Amt: '1.00' }]));
    assert.equal(foreignRate.status, 400);
    // a training receipt is no document: no number of the series, not signed
    const training = await post(`${svc.url}/register`, tra([{ Dsc: 'Bolo', TaxG: 'A', Amt: '1.00' }], { Test: '1' }));
    assert.equal(training.status, 200, training.text);
    assert.equal(training.json.TraC.Fis.Type, undefined);
    assert.doesNotMatch(training.json.TraC.Fis.FN, /^FS/);

    // 6. the service restarts: the chain of FS A7 continues
    await svc.stop();
    clock.set(new Date(2026, 2, 11, 10, 0, 0));
    svc = await startTestService({ clock, dataDir });
    const s3 = await post(`${svc.url}/register`, tra([{ Dsc: 'Pão de forma', TaxG: 'A', Amt: '1.15' }]));
    const f6 = s3.json.TraC.Fis;
    assert.equal(f6.FN, 'FS A7/3', s3.text);
    assert.equal(f6.Payload, `2026-03-11;2026-03-11T10:00:00;FS A7/3;1.15;${f2.Signature}`);
    assert.ok(signed(key, f6.Payload, f6.Signature));
    assert.equal(tag(f6, 'ATCUD'), 'AAJFJ4VR9K-3');

    // 7. the SAF-T export: valid against the official schema; its chains recomputed here
    const res = await request(`${svc.url}/export?type=saft`);
    const zipBytes = Buffer.from(await res.body.arrayBuffer());
    assert.equal(res.statusCode, 200, zipBytes.toString().slice(0, 300));
    assert.match(String(res.headers['content-disposition']), /export\.zip/);
    const XSD = schemaForXmllint(work);
    const files = await unzip(zipBytes, work);
    const xml = files['saft.xml'] as string;
    const lint = spawnSync('xmllint', ['--noout', '--schema', XSD, join(work, 'saft.xml')], { encoding: 'utf8' });
    assert.equal(lint.status, 0, lint.stderr);
    const zipKey = createPublicKey(files['public-key.pem'] as string);
    assert.equal(text(xml, 'TaxRegistrationNumber'), '599999993');
    assert.equal(text(xml, 'CompanyName'), 'Padaria Lisboa, Lda.');
    assert.equal(text(xml, 'PostalCode'), '1100-053');
    assert.equal(text(xml, 'SoftwareCertificateNumber'), '1234');
    const customers = elements(xml, 'Customer');
    assert.ok(customers.some((c) => text(c, 'CustomerTaxID') === '999999990' && text(c, 'CompanyName') === 'Consumidor final'));
    assert.ok(customers.some((c) => text(c, 'CustomerTaxID') === '123456789' && text(c, 'CompanyName') === 'Maria Silva'));
    const invoices = elements(xml, 'Invoice');
    assert.equal(text(xml, 'NumberOfEntries'), '6');
    assert.deepEqual(invoices.map((i) => text(i, 'InvoiceNo')), ['FS A7/1', 'FS A7/2', 'FS A7/3', 'FT A7/1', 'NC A7/1', 'NC A7/2']);
    const previous = new Map<string, string>();
    let totalDebit = ZERO;
    let totalCredit = ZERO;
    const answers = new Map([['FS A7/1', f1], ['FS A7/2', f2], ['FS A7/3', f6], ['FT A7/1', f3], ['NC A7/1', f4], ['NC A7/2', f5]]);
    for (const inv of invoices) {
      const no = text(inv, 'InvoiceNo');
      const series = no.slice(0, no.lastIndexOf('/'));
      const message = `${text(inv, 'InvoiceDate')};${text(inv, 'SystemEntryDate')};${no};${text(inv, 'GrossTotal')};${previous.get(series) ?? ''}`;
      assert.ok(signed(zipKey, message, text(inv, 'Hash')), `hash of ${no}`);
      assert.equal(text(inv, 'Hash'), answers.get(no)?.Signature);
      assert.equal(text(inv, 'ATCUD'), tag(answers.get(no), 'ATCUD'));
      assert.equal(text(inv, 'HashControl'), '1');
      previous.set(series, text(inv, 'Hash'));
      const lines = elements(inv, 'Line');
      let credit = ZERO;
      let debit = ZERO;
      for (const l of lines) {
        if (text(l, 'CreditAmount')) credit = add(credit, dec(text(l, 'CreditAmount')));
        if (text(l, 'DebitAmount')) debit = add(debit, dec(text(l, 'DebitAmount')));
      }
      totalCredit = add(totalCredit, credit);
      totalDebit = add(totalDebit, debit);
      const net = dec(text(inv, 'NetTotal'));
      assert.equal(fmt(no.startsWith('NC') ? sub(debit, credit) : sub(credit, debit), 2), fmt(net, 2), `lines of ${no}`);
      assert.equal(fmt(add(net, dec(text(inv, 'TaxPayable'))), 2), text(inv, 'GrossTotal'), `totals of ${no}`);
    }
    assert.equal(text(xml, 'TotalDebit'), fmt(totalDebit, 2));
    assert.equal(text(xml, 'TotalCredit'), fmt(totalCredit, 2));
    const fs1 = invoices[0] as string;
    assert.equal(text(fs1, 'InvoiceType'), 'FS');
    assert.equal(text(fs1, 'CustomerID'), 'CF');
    const exempt = elements(fs1, 'Line').find((l) => text(l, 'TaxExemptionCode') === 'M07');
    assert.ok(exempt && text(exempt, 'TaxExemptionReason') === 'Isento artigo 9.º do CIVA' && text(exempt, 'TaxCode') === 'ISE');
    assert.equal(text(elements(fs1, 'Line')[0] as string, 'CreditAmount'), '1.87');
    assert.equal(text(elements(fs1, 'Line')[0] as string, 'Quantity'), '2');
    const nc1 = invoices[4] as string;
    assert.equal(text(nc1, 'Reference'), 'FS A7/1');
    assert.equal(text(nc1, 'Reason'), 'Produto com defeito');
    assert.equal(text(nc1, 'DebitAmount'), '0.93');
    const ftDoc = invoices[3] as string;
    assert.equal(text(ftDoc, 'CustomerID'), 'C123456789');
    const nc2 = invoices[5] as string;
    assert.equal(text(nc2, 'Reference'), 'FS A7/2');
    assert.equal(text(nc2, 'Reason'), 'Anulada');
    assert.equal(elements(nc2, 'Line').length, 3);
    assert.match(xml, /<TaxCountryRegion>PT-AC<\/TaxCountryRegion>\s*<TaxCode>NOR<\/TaxCode>\s*<TaxPercentage>16<\/TaxPercentage>/);
    assert.doesNotMatch(xml, /Test transaction/);

    // efr verify: the export verifies; tampered copies name their first broken document
    const zipPath = join(work, 'export.zip');
    writeFileSync(zipPath, zipBytes);
    const ok = efrVerify(zipPath);
    assert.equal(ok.code, 0, ok.out);
    assert.match(ok.out, /^OK: 6 documents in 3 series/);
    const others = { 'public-key.pem': files['public-key.pem'] as string, 'chain-start.json': files['chain-start.json'] as string };
    // a later recording time of FS A7/2 (everything else in order): its hash no longer fits
    const sed2 = text(invoices[1] as string, 'SystemEntryDate');
    const tampered = xml.replace(`<SystemEntryDate>${sed2}</SystemEntryDate>`, `<SystemEntryDate>${sed2.replace(':05:00', ':05:01')}</SystemEntryDate>`);
    assert.notEqual(tampered, xml);
    await zipFiles({ 'saft.xml': tampered, ...others }, join(work, 'tampered.zip'));
    const bad = efrVerify(join(work, 'tampered.zip'));
    assert.equal(bad.code, 1, bad.out);
    assert.match(bad.out, /BROKEN at document 2 \(FS A7\/2\): the hash does not verify/);
    // a document taken out: the next one of its series is named
    await zipFiles({ 'saft.xml': xml.replace(`<Invoice>${invoices[1] as string}</Invoice>`, ''), ...others }, join(work, 'dropped.zip'));
    const dropped = efrVerify(join(work, 'dropped.zip'));
    assert.equal(dropped.code, 1, dropped.out);
    assert.match(dropped.out, /\(FS A7\/3\): number 3 follows 1/);

    // the period: only 2026-03-11; the chain start of FS A7 comes with the zip, so FS A7/3 is checked too
    const day2 = await request(`${svc.url}/export?type=saft&from=2026-03-11&till=2026-03-11`);
    const day2Zip = Buffer.from(await day2.body.arrayBuffer());
    assert.equal(day2.statusCode, 200);
    const day2Dir = join(work, 'day2');
    mkdirSync(day2Dir);
    const day2Files = await unzip(day2Zip, day2Dir);
    assert.deepEqual(elements(day2Files['saft.xml'] as string, 'InvoiceNo'), ['FS A7/3']);
    assert.equal(spawnSync('xmllint', ['--noout', '--schema', XSD, join(day2Dir, 'saft.xml')], { encoding: 'utf8' }).status, 0);
    assert.deepEqual(JSON.parse(day2Files['chain-start.json'] as string), { 'FS A7': f2.Signature });
    writeFileSync(join(work, 'day2.zip'), day2Zip);
    const day2Verify = efrVerify(join(work, 'day2.zip'));
    assert.equal(day2Verify.code, 0, day2Verify.out);
    assert.match(day2Verify.out, /^OK: 1 documents in 1 series, hash chains and signatures verify\n$/);
    const none = await get(`${svc.url}/export?type=saft&from=2030-01-01`);
    assert.equal(none.status, 404, none.text);
  } finally {
    await svc.stop();
    rmSync(dataDir, { recursive: true, force: true });
    rmSync(work, { recursive: true, force: true });
  }
});

test('Portugal: the producer\'s key placed in <dataDir>/pt signs; once documents exist a lost key is not replaced', async () => {
  const dataDir = tempDir('efr-pt-key-');
  const sample = vectorPath('pt-saft');
  mkdirSync(join(dataDir, 'pt'));
  writeFileSync(join(dataDir, 'pt', 'private-key.pem'), readFileSync(join(sample, 'Private_Key.txt')));
  const svc = await startTestService({ dataDir, clock: new ManualClock(new Date(2026, 5, 1, 12, 0, 0)) });
  try {
    await post(`${svc.url}/profile`, { Badge: 'B', Attributes: 'FN_series=B' });
    await post(`${svc.url}/cfg`, CFG);
    const r = await post(`${svc.url}/register`, tra([{ Dsc: 'Café', TaxG: 'A', Amt: '0.80' }]));
    assert.equal(r.status, 200, r.text);
    const fis = r.json.TraC.Fis;
    assert.equal(fis.Payload, '2026-06-01;2026-06-01T12:00:00;FS B/1;0.80;');
    assert.ok(signed(createPublicKey(readFileSync(join(sample, 'Public_Key.txt'), 'utf8')), fis.Payload, fis.Signature));
    assert.equal(tag(fis, 'ATCUD'), '0', 'no validation code configured');
    assert.match(tag(fis, 'Hash'), /^.{4}-Processado por programa certificado n\.º 0\/AT$/);
  } finally {
    await svc.stop();
  }
  // the key is gone when the service starts again: no new key is made, the register refuses until it is back
  rmSync(join(dataDir, 'pt', 'private-key.pem'));
  const proc = await spawnService(dataDir, await freePort());
  try {
    const r = await post(`${proc.url}/register`, tra([{ Dsc: 'Café', TaxG: 'A', Amt: '0.80' }]));
    assert.equal(r.status, 406, r.text);
    assert.equal(r.json.TraC.Result.ErrorCode, '#DEVICE_FAILED');
  } finally {
    proc.child.kill('SIGTERM');
    await proc.exited;
    rmSync(dataDir, { recursive: true, force: true });
  }
});

test('Portugal: a credit note names the invoice found by RTN; an exemption code stands for the tax group', async () => {
  const svc = await startTestService({ clock: new ManualClock(new Date(2026, 6, 1, 10, 0, 0)) });
  try {
    await post(`${svc.url}/profile`, { Badge: 'B', Attributes: ATTRS });
    await post(`${svc.url}/cfg`, CFG);
    // PT_TaxExemptionCode without TaxG: an exempt position (0 %), letter D of the table
    const sold = await post(`${svc.url}/register`, tra([
      { Dsc: 'Pão', TaxG: 'A', Amt: '1.23' },
      { Dsc: 'Livro escolar', PT_TaxExemptionCode: 'M07', PT_TaxExemptionReason: 'Isento artigo 9.º do CIVA', Amt: '10.00' },
    ], { TN: '41' }));
    assert.equal(sold.status, 200, sold.text);
    const tax0 = (sold.json.TraC.ESR.TaxA as Array<Record<string, string>> | undefined) ?? [];
    assert.deepEqual(qrFields(sold.json.TraC.Fis.Code).filter(([k]) => k === 'I2'), [['I2', '10.00']], JSON.stringify(tax0));
    // the return names the sale by its TN: the credit note prints and exports the sale's document number
    const ret = await post(`${svc.url}/register`, tra([{ Dsc: 'Pão', TaxG: 'A', Amt: '-1.23' }], { RTL: '1', RTT: '7', RTN: '41' }));
    assert.equal(ret.status, 200, ret.text);
    assert.equal(ret.json.TraC.Fis.Type, 'NC');
    assert.equal(tag(ret.json.TraC.Fis, 'Ref'), sold.json.TraC.Fis.FN);
    const saft = await request(`${svc.url}/export?type=saft`);
    const dir = tempDir('efr-pt-rtn-');
    try {
      const files = await unzip(Buffer.from(await saft.body.arrayBuffer()), dir);
      assert.match(files['saft.xml'] as string, new RegExp(`<References>\\s*<Reference>${sold.json.TraC.Fis.FN as string}</Reference>`));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    // an RTN that names nothing in the journal: refused, nothing signed
    const lost = await post(`${svc.url}/register`, tra([{ Dsc: 'Pão', TaxG: 'A', Amt: '-1.23' }], { RTL: '1', RTT: '7', RTN: '999' }));
    assert.equal(lost.status, 400, lost.text);
    assert.match(lost.json.TraC.Result.UserMessage, /ESR\.RTN/);
  } finally {
    await svc.stop();
  }
});

/** A Multi POS instance of the company of CFG: every TL/TT is its own register PT599999993$TL_TT. */
async function multiPos(url: string, attributes: string, tls: readonly string[] = []): Promise<void> {
  const p = await post(`${url}/profile`, { Badge: 'B', TaxId: 'PT599999993', RN_TT: 'true', Attributes: attributes });
  assert.equal(p.status, 200, p.text);
  for (const tl of tls) {
    const c = await post(`${url}/cfg`, { Cfg: { ...CFG.Cfg, Loc: { TL: tl }, Trm: { TT: '1' } } });
    assert.equal(c.status, 200, c.text);
  }
}

test('Portugal: a series belongs to one register; a template with {TL}/{TT} needs a validation code per series', async () => {
  const dataDir = tempDir('efr-pt-series-');
  const clock = new ManualClock(new Date(2026, 3, 1, 10, 0, 0));
  let svc = await startTestService({ clock, dataDir });
  const at = (tl: string) => post(`${svc.url}/register`, tra([{ Dsc: 'Café', TaxG: 'A', Amt: '0.80' }], { TL: tl, TT: '1' }));
  try {
    await multiPos(svc.url, 'FN_series=A{TT} FN_ATCUD_FS=AAJFJ4VR9K', ['1', '2']);
    // one code for every series the template makes would give two registers the same ATCUDs: refused
    const shared = await at('1');
    assert.equal(shared.status, 400, shared.text);
    assert.match(shared.json.TraC.Result.UserMessage, /FN_ATCUD_FS_A1/);
    await multiPos(svc.url, 'FN_series=A{TT} FN_ATCUD_FS_A1=AAJFJ4VR9K');
    const r1 = await at('1');
    assert.equal(r1.status, 200, r1.text);
    assert.equal(r1.json.TraC.Fis.FN, 'FS A1/1');
    assert.equal(tag(r1.json.TraC.Fis, 'ATCUD'), 'AAJFJ4VR9K-1');
    // TL 2 / TT 1 makes the same series A1: refused, naming FN_series and the owner; nothing signed
    const r2 = await at('2');
    assert.equal(r2.status, 400, r2.text);
    assert.match(r2.json.TraC.Result.UserMessage, /FN_series.*series A1 of company 599999993 belongs to register PT599999993\$1_1/);
    assert.deepEqual(JSON.parse(readFileSync(join(dataDir, 'pt', 'series.json'), 'utf8')), { series: { '599999993 A1': 'PT599999993$1_1' } });
    // the owner is remembered across a restart
    await svc.stop();
    svc = await startTestService({ clock, dataDir });
    assert.equal((await at('2')).status, 400);
    // {TL}{TT}: a series per register, each with its own code: no number or ATCUD twice
    await multiPos(svc.url, 'FN_series=A{TL}{TT} FN_ATCUD_FS_A11=AAJFJ4VR9K FN_ATCUD_FS_A21=BBJFJ4VR9K');
    const p1 = await at('1');
    const p2 = await at('2');
    assert.deepEqual([p1.json.TraC.Fis.FN, tag(p1.json.TraC.Fis, 'ATCUD')], ['FS A11/1', 'AAJFJ4VR9K-1'], p1.text);
    assert.deepEqual([p2.json.TraC.Fis.FN, tag(p2.json.TraC.Fis, 'ATCUD')], ['FS A21/1', 'BBJFJ4VR9K-1'], p2.text);
    // a series without its code has ATCUD 0 (not communicated yet), never another series' code
    await multiPos(svc.url, 'FN_series=B{TL}{TT}');
    assert.equal(tag((await at('2')).json.TraC.Fis, 'ATCUD'), '0');
    // register 1's series A1 continues its own chain
    await multiPos(svc.url, 'FN_series=A{TT} FN_ATCUD_FS_A1=AAJFJ4VR9K');
    const again = await at('1');
    assert.equal(again.json.TraC.Fis.FN, 'FS A1/2', again.text);
    assert.ok(again.json.TraC.Fis.Payload.endsWith(`;${r1.json.TraC.Fis.Signature as string}`));
  } finally {
    await svc.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
});

test('Portugal: the signing key is never made anew once documents exist; a swapped key is refused', async () => {
  const dataDir = tempDir('efr-pt-swap-');
  const clock = new ManualClock(new Date(2026, 3, 1, 10, 0, 0));
  const priv = join(dataDir, 'pt', 'private-key.pem');
  const pub = join(dataDir, 'pt', 'public-key.pem');
  const sampleKey = readFileSync(vectorPath('pt-saft', 'Private_Key.txt'));
  let svc = await startTestService({ clock, dataDir });
  const at = (tl: string) => post(`${svc.url}/register`, tra([{ Dsc: 'Café', TaxG: 'A', Amt: '0.80' }], { TL: tl, TT: '1' }));
  const restart = async () => {
    await svc.stop();
    svc = await startTestService({ clock, dataDir });
  };
  const refused = async (tl: string, why: RegExp) => {
    const r = await at(tl);
    assert.equal(r.status, 406, r.text);
    assert.equal(r.json.TraC.Result.ErrorCode, '#DEVICE_FAILED');
    assert.match(r.json.TraC.Result.UserMessage, why);
  };
  try {
    await multiPos(svc.url, 'FN_series=A{TL}{TT}', ['1', '2']);
    const first = await at('1');
    assert.equal(first.status, 200, first.text);
    const original = readFileSync(priv);
    const publicBefore = readFileSync(pub, 'utf8');
    // 1. the key is lost: the first sale of the other register (which never signed) makes no new key
    rmSync(priv);
    await restart();
    await refused('2', /private-key\.pem \(missing/);
    await refused('1', /private-key\.pem \(missing/);
    assert.ok(!existsSync(priv));
    assert.equal(readFileSync(pub, 'utf8'), publicBefore);
    // 2. another key in its place: it does not match public-key.pem, which stays as it is
    writeFileSync(priv, sampleKey);
    await restart();
    await refused('1', /not the key this register signed with/);
    await refused('2', /does not match .*public-key\.pem/);
    assert.equal(readFileSync(pub, 'utf8'), publicBefore);
    // 3. another key with no public key beside it: register 1 knows the fingerprint of its key; the other
    //    register cannot vouch for a key while documents exist, so no public key is written either
    rmSync(pub);
    await restart();
    await refused('1', /not the key this register signed with/);
    await refused('2', /public-key\.pem \(missing while documents were signed/);
    assert.ok(!existsSync(pub));
    // 4. the key is back: register 1 vouches for it (the public key is written again) and its chain continues
    writeFileSync(priv, original);
    await restart();
    const next = await at('1');
    assert.equal(next.status, 200, next.text);
    assert.equal(next.json.TraC.Fis.FN, 'FS A11/2');
    assert.equal(readFileSync(pub, 'utf8'), publicBefore);
    assert.ok(signed(createPublicKey(publicBefore), next.json.TraC.Fis.Payload, next.json.TraC.Fis.Signature));
    assert.equal((await at('2')).status, 200);
  } finally {
    await svc.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
});

test('Portugal: refused before signing: credit notes with positive amounts, mixed signs, unknown countries, long tax ids, FR on account; efr verify needs each series\' start', async () => {
  const clock = new ManualClock(new Date(2026, 4, 4, 10, 0, 0));
  const svc = await startTestService({ clock });
  const work = tempDir('efr-pt-refuse-');
  const bad = async (body: object, field: RegExp) => {
    const r = await post(`${svc.url}/register`, body);
    assert.equal(r.status, 400, r.text);
    assert.match(r.json.TraC.Result.UserMessage, field);
  };
  try {
    await post(`${svc.url}/profile`, { Badge: 'B', Attributes: ATTRS });
    await post(`${svc.url}/cfg`, CFG);
    const s1 = await post(`${svc.url}/register`, tra([{ Dsc: 'Pão', TaxG: 'A', Amt: '10.00' }, { Dsc: 'Bolo', TaxG: 'C', Amt: '2.12' }]));
    assert.equal(s1.json.TraC.Fis.FN, 'FS A7/1', s1.text);
    // a void sent with positive amounts, a return with a positive line at another rate, a sale taking one back
    await bad(tra([{ Dsc: 'Pão', TaxG: 'A', Amt: '10.00' }], { Void: '1', RFN: 'FS A7/1' }), /ESR\.T: 10\.00: a credit note/);
    await bad(tra([{ Dsc: 'Pão', TaxG: 'A', Amt: '-10.00' }, { Dsc: 'Bolo', TaxG: 'C', Amt: '2.12' }], { RFN: 'FS A7/1' }), /ESR\.PosA\[1\]\.Amt: the lines at 6 % \(PT\) total 2\.12/);
    await bad(tra([{ Dsc: 'Pão', TaxG: 'A', Amt: '10.00' }, { Dsc: 'Bolo', TaxG: 'C', Amt: '-2.12' }]), /ESR\.PosA\[1\]\.Amt: the lines at 6 % \(PT\) total -2\.12/);
    // customers: a country the schema does not know, a tax id over 30 characters, a prefix that is no country
    const pos = [{ Dsc: 'Bolo', TaxG: 'A', Amt: '1.23' }];
    await bad(tra(pos, { Ctm: { Nam: 'X', Ctry: 'XX', TaxId: '12345' } }), /ESR\.Ctm\.Ctry/);
    await bad(tra(pos, { Ctm: { Nam: 'X', Ctry: 'Portugal' } }), /ESR\.Ctm\.Ctry/);
    await bad(tra(pos, { Ctm: { Nam: 'X', Ctry: 'DE', TaxId: `DE${'1'.repeat(29)}` } }), /ESR\.Ctm\.TaxId: .* has 31 characters/);
    await bad(tra(pos, { Ctm: { Nam: 'X', TaxId: 'QQ123456' } }), /ESR\.Ctm\.Ctry/);
    // a fatura-recibo is paid when issued
    await bad(tra(pos, { DT: 'FR', PayA: [{ _: 'Pay', Dsc: 'Conta', PayG: 'open', Amt: '1.23' }] }), /ESR\.PayA\[0\]\.PayG/);
    // nothing of it was numbered or signed: the next sale is FS A7/2, chained to FS A7/1
    const s2 = await post(`${svc.url}/register`, tra(pos));
    assert.equal(s2.json.TraC.Fis.FN, 'FS A7/2', s2.text);
    assert.ok(s2.json.TraC.Fis.Payload.endsWith(`;${s1.json.TraC.Fis.Signature as string}`));
    // accepted: EL stands for Greece, a tax id of 30 characters, a consumidor final with a country
    const greek = await post(`${svc.url}/register`, tra(pos, { Ctm: { Nam: 'Nikos', TaxId: 'EL123456789', City: 'Atenas' } }));
    assert.equal(greek.status, 200, greek.text);
    assert.deepEqual(qrFields(greek.json.TraC.Fis.Code).slice(1, 3), [['B', '123456789'], ['C', 'GR']]);
    const long = await post(`${svc.url}/register`, tra(pos, { Ctm: { Nam: 'Longo', Ctry: 'DE', TaxId: `DE${'1'.repeat(28)}` } }));
    assert.equal(long.status, 200, long.text);
    const tourist = await post(`${svc.url}/register`, tra(pos, { DT: 'FS', Ctm: { Nam: 'Turista', Ctry: 'ES' } }));
    assert.deepEqual(qrFields(tourist.json.TraC.Fis.Code).slice(1, 3), [['B', '999999990'], ['C', 'ES']]);
    const fr = await post(`${svc.url}/register`, tra(pos, { DT: 'FR' }));
    assert.equal(fr.json.TraC.Fis.FN, 'FR A7/1', fr.text);
    // the export of these values validates against the official schema
    const res = await request(`${svc.url}/export?type=saft`);
    const zipBytes = Buffer.from(await res.body.arrayBuffer());
    assert.equal(res.statusCode, 200);
    const files = await unzip(zipBytes, work);
    const xml = files['saft.xml'] as string;
    const lint = spawnSync('xmllint', ['--noout', '--schema', schemaForXmllint(work), join(work, 'saft.xml')], { encoding: 'utf8' });
    assert.equal(lint.status, 0, lint.stderr);
    const customers = elements(xml, 'Customer');
    assert.ok(customers.some((c) => text(c, 'CustomerTaxID') === 'EL123456789' && text(c, 'Country') === 'GR'));
    assert.ok(customers.some((c) => text(c, 'CustomerTaxID') === `DE${'1'.repeat(28)}` && text(c, 'CustomerID').length <= 30));
    // efr verify: the export verifies; without its first document a series cannot be verified: not OK
    const ok = join(work, 'ok.zip');
    writeFileSync(ok, zipBytes);
    assert.equal(efrVerify(ok).code, 0);
    const first = elements(xml, 'Invoice').find((i) => text(i, 'InvoiceNo') === 'FS A7/1') as string;
    await zipFiles({ 'saft.xml': xml.replace(`<Invoice>${first}</Invoice>`, ''), 'public-key.pem': files['public-key.pem'] as string, 'chain-start.json': '{}\n' }, join(work, 'cut.zip'));
    const cut = efrVerify(join(work, 'cut.zip'));
    assert.equal(cut.code, 1, cut.out);
    assert.match(cut.out, /^BROKEN at document 2 \(FS A7\/2\): cannot be verified: it is the first document of series FS A7 in the file but not its number 1, and the hash of number 1 is not given/);
  } finally {
    await svc.stop();
    rmSync(work, { recursive: true, force: true });
  }
});

test('Portugal: a SAF-T PT file is of one fiscal year', async () => {
  const clock = new ManualClock(new Date(2025, 11, 31, 18, 0, 0));
  const svc = await startTestService({ clock });
  const work = tempDir('efr-pt-year-');
  try {
    await post(`${svc.url}/profile`, { Badge: 'B', Attributes: ATTRS });
    await post(`${svc.url}/cfg`, CFG);
    assert.equal((await post(`${svc.url}/register`, tra([{ Dsc: 'Bolo-rei', TaxG: 'A', Amt: '12.30' }]))).status, 200);
    clock.set(new Date(2026, 0, 2, 9, 0, 0));
    assert.equal((await post(`${svc.url}/register`, tra([{ Dsc: 'Café', TaxG: 'A', Amt: '0.80' }]))).status, 200);
    const refused = async (query: string, field: RegExp) => {
      const r = await get(`${svc.url}/export?type=saft${query}`);
      assert.equal(r.status, 400, r.text);
      assert.match(r.text, field);
    };
    await refused('', /from, till: the documents selected are of 2025, 2026: a SAF-T PT file covers one fiscal year/);
    await refused('&from=2025-12-01&till=2026-01-31', /till: 2026-01-31 is not in the year of from/);
    await refused('&from=2025-12-01', /till: the documents selected are of 2025, 2026/);
    await refused('&till=2026-01-31', /from: the documents selected are of 2025, 2026/);
    for (const [query, year, start, end, numbers] of [
      ['&from=2026-01-01', '2026', '2026-01-01', '2026-01-02', ['FS A7/2']],
      ['&from=2025-01-01&till=2025-12-31', '2025', '2025-01-01', '2025-12-31', ['FS A7/1']],
    ] as const) {
      const res = await request(`${svc.url}/export?type=saft${query}`);
      const bytes = Buffer.from(await res.body.arrayBuffer());
      assert.equal(res.statusCode, 200, bytes.toString());
      const dir = join(work, year);
      mkdirSync(dir);
      const xml = (await unzip(bytes, dir))['saft.xml'] as string;
      assert.deepEqual([text(xml, 'FiscalYear'), text(xml, 'StartDate'), text(xml, 'EndDate')], [year, start, end]);
      assert.deepEqual(elements(xml, 'InvoiceNo'), numbers);
    }
  } finally {
    await svc.stop();
    rmSync(work, { recursive: true, force: true });
  }
});

test('Portugal: the QR code\'s tax blocks: mainland I, Azores J, Madeira K in a document of several spaces; a single space in I', async () => {
  const svc = await startTestService({ clock: new ManualClock(new Date(2026, 2, 10, 9, 0, 0)), dataDir: tempDir('efr-pt-qr-') });
  try {
    assert.equal((await post(`${svc.url}/profile`, { Badge: 'B', Attributes: ATTRS })).status, 200);
    assert.equal((await post(`${svc.url}/cfg`, CFG)).status, 200);
    const blocks = async (positions: Pos[]): Promise<Array<[string, string]>> => {
      const r = await post(`${svc.url}/register`, tra(positions));
      assert.equal(r.status, 200, r.text);
      return qrFields(r.json.TraC.Fis.Code).filter(([k]) => /^[IJKNO]/.test(k));
    };
    // mainland 23 % and 6 %, the Azores 16 % and 4 %, Madeira 22 % and 12 %, each block field by field
    assert.deepEqual(await blocks([
      { Dsc: 'Vinho do Porto', TaxG: 'A', Amt: '12.30' },
      { Dsc: 'Pão', TaxG: 'C', Amt: '1.06' },
      { Dsc: 'Queijo São Jorge', TaxG: 'H', Amt: '11.60' },
      { Dsc: 'Ananás', TaxG: 'J', Amt: '5.20' },
      { Dsc: 'Bolo do caco', TaxG: 'E', Amt: '12.20' },
      { Dsc: 'Poncha', TaxG: 'F', Amt: '5.60' },
    ]), [
      ['I1', 'PT'], ['I3', '1.00'], ['I4', '0.06'], ['I7', '10.00'], ['I8', '2.30'],
      ['J1', 'PT-AC'], ['J3', '5.00'], ['J4', '0.20'], ['J7', '10.00'], ['J8', '1.60'],
      ['K1', 'PT-MA'], ['K5', '5.00'], ['K6', '0.60'], ['K7', '10.00'], ['K8', '2.20'],
      ['N', '6.96'], ['O', '47.96'],
    ]);
    // the Azores and Madeira without the mainland: J and K, no I
    assert.deepEqual(await blocks([{ Dsc: 'Queijo São Jorge', TaxG: 'H', Amt: '11.60' }, { Dsc: 'Bolo do caco', TaxG: 'E', Amt: '12.20' }]), [
      ['J1', 'PT-AC'], ['J7', '10.00'], ['J8', '1.60'], ['K1', 'PT-MA'], ['K7', '10.00'], ['K8', '2.20'], ['N', '3.80'], ['O', '23.80'],
    ]);
    // the mainland and Madeira: I and K
    assert.deepEqual(await blocks([{ Dsc: 'Vinho do Porto', TaxG: 'A', Amt: '12.30' }, { Dsc: 'Bolo do caco', TaxG: 'E', Amt: '12.20' }]), [
      ['I1', 'PT'], ['I7', '10.00'], ['I8', '2.30'], ['K1', 'PT-MA'], ['K7', '10.00'], ['K8', '2.20'], ['N', '4.50'], ['O', '24.50'],
    ]);
    // one space only, the Azores: in I (the AT's example 7, I1:PT-AC)
    assert.deepEqual(await blocks([{ Dsc: 'Queijo São Jorge', TaxG: 'H', Amt: '11.60' }]), [['I1', 'PT-AC'], ['I7', '10.00'], ['I8', '1.60'], ['N', '1.60'], ['O', '11.60']]);
  } finally {
    await svc.close();
  }
});
