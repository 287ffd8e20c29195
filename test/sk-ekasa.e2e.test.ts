/**
 * Slovakia through POST /register against the fake eKasa (test/fake-ekasa.ts: checks every request against
 * the request schema, its WS-Security signature, the PKP and the OKP): the authentication certificate uploaded
 * as PKCS#12, receipts refused without it; the PKP reproduced with `openssl dgst -sha256 -sign` and the OKP with
 * `sha1sum`; the UID in the answer, /find and /render; eKasa unreachable: RC OK with the OKP, PKP and the offline
 * QR code and #AUTHORITY_PENDING, delivered later (SendingCount 2) once eKasa answers again; a paragon; a
 * refusal journaled; the journal export verified with `efr verify --country sk --key <certificate>`, and a
 * wrong certificate named; a receipt waiting longer than the law's 48 hours counted as overdue in /state.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { request } from 'undici';
import { ManualClock } from '../src/shared/clock.js';
import { ROOT, get, post, startTestService, tempDir, until } from './helpers.js';
import { makeEkasaCertificate, startFakeEkasa } from './fake-ekasa.js';

const CODE = '88812345678900001';
const CFG = { Cfg: { Cmp: { Nam: 'Predajňa s.r.o.', Adr: 'Hlavná 1', Zip: '81101', City: 'Bratislava', Ctry: 'SK', TaxId: 'SK1234567890' }, Loc: { TL: 'P1', Nam: 'Predajňa Hlavná', LegalId: '76543210' }, Trm: { TT: '1' } } };

function sale(extra: Record<string, unknown> = {}): { Tra: { ESR: Record<string, unknown> } } {
  return {
    Tra: {
      ESR: {
        TL: 'P1',
        TT: '1',
        OprN: 'Jana',
        PosA: [
          { _: 'Pos', PN: '1', Dsc: 'Káva', TaxG: 'A', Amt: '3.50' },
          { _: 'Pos', PN: '2', Dsc: 'Rožok', TaxG: 'C', Amt: '1.20' },
        ],
        PayA: [{ _: 'Pay', Dsc: 'Hotovosť', PayG: 'cash', Amt: '4.70' }],
        ...extra,
      },
    },
  };
}

/** The PKP and OKP recomputed outside the service: openssl signs the PKP text with SHA-256, sha1sum digests the signature. */
function opensslCodes(keyFile: string, d: string, number: string, amount: string): { pkp: string; okp: string } {
  const [date, time] = d.split('T') as [string, string];
  const [y, m, day] = date.split('-');
  const text = `1234567890|${CODE}|${number}|PD|${day}.${m}.${y} ${time.slice(0, 8)}|${amount}`;
  const dir = tempDir('sk-pkp-');
  const inFile = join(dir, 'in.txt');
  writeFileSync(inFile, text);
  const pkp = spawnSync('sh', ['-c', `openssl dgst -sha256 -sign "${keyFile}" "${inFile}" | base64 -w0`], { encoding: 'utf8' });
  const sha1 = spawnSync('sh', ['-c', `openssl dgst -sha256 -sign "${keyFile}" "${inFile}" | sha1sum`], { encoding: 'utf8' });
  assert.equal(pkp.status, 0, pkp.stderr);
  return { pkp: pkp.stdout.trim(), okp: (sha1.stdout.split(' ')[0]?.match(/.{8}/g) ?? []).join('-') };
}

test('Slovakia: certificate, PKP/OKP and UID online, eKasa away and the UID delivered later, a paragon, a refusal, the journal verified', async () => {
  const ekasa = await startFakeEkasa();
  const dataDir = tempDir('efr-sk-');
  const svc = await startTestService({ dataDir, env: { EFR_FISCAL_RETRY_MS: '300' } });
  try {
    assert.equal((await post(`${svc.url}/profile`, { Badge: 'B1', Attributes: `Fiscal_Test Fiscal_Url=${ekasa.url} Fiscal_Timeout=1500 SK_SwId=ABC123` })).status, 200);
    assert.equal((await post(`${svc.url}/cfg`, CFG)).status, 200);
    // no certificate yet: refused before anything is journaled
    const none = await post(`${svc.url}/register`, sale());
    assert.equal(none.status, 400, none.text);
    assert.equal(none.json.TraC.Result.ErrorCode, '#FISCAL_CERTIFICATE');
    assert.equal((await get(`${svc.url}/find?_=Tra`)).json.Find.Records.length, 0);

    const cert = makeEkasaCertificate(CODE);
    const up = await post(`${svc.url}/cer/fiscal`, { fiscalCert: cert.p12.toString('base64'), password: cert.password });
    assert.equal(up.status, 200, up.text);
    // the certificate cannot tell test from production: no warning compares it with Fiscal_Test
    assert.equal(up.json.CertificateC.Result.Warning, undefined, up.text);
    assert.equal((await get(`${svc.url}/state`)).json.FiscalCertificate.def.Warning, undefined);

    // online: the UID comes back, PKP and OKP are the ones openssl computes for the same key and fields
    const a = await post(`${svc.url}/register`, sale());
    assert.equal(a.status, 200, a.text);
    assert.equal(a.json.TraC.Result.RC, 'OK');
    assert.equal(a.json.TraC.Result.ErrorCode, undefined, a.text);
    const fisA = a.json.TraC.Fis;
    const codes = opensslCodes(cert.keyFile, a.json.TraC.ESR.D, a.json.TraC.ESR.TN, '4.70');
    assert.equal(fisA.PKP, codes.pkp);
    assert.equal(fisA.OKP, codes.okp);
    assert.match(fisA.UID, /^O-[0-9A-F]{32}$/);
    assert.equal(fisA.Code, fisA.UID);
    assert.equal(fisA.FN, `${CODE}/${a.json.TraC.ESR.TN}`);
    const labels = (fisA.Tag as Array<{ Name: string; Label: string; Value: string }>).map((t) => t.Label);
    assert.deepEqual(labels, ['DIČ:', 'IČ DPH:', 'IČO:', 'Kód pokladnice:', 'Typ dokladu:', 'Číslo dokladu:', 'OKP:', 'UID:']);
    assert.equal(ekasa.received.length, 1);
    assert.equal(ekasa.received[0]?.uid, fisA.UID);
    assert.equal(ekasa.received[0]?.sendingCount, 1);

    // eKasa away: the receipt is valid with OKP, PKP and the offline QR code; the UID follows
    ekasa.setMode('down');
    const b = await post(`${svc.url}/register`, sale());
    assert.equal(b.status, 200, b.text);
    assert.equal(b.json.TraC.Result.RC, 'OK');
    assert.equal(b.json.TraC.Result.ErrorCode, '#AUTHORITY_PENDING');
    assert.match(b.json.TraC.Result.UserMessage, /eKasa/);
    const fisB = b.json.TraC.Fis;
    assert.equal(fisB.UID, undefined);
    const [, time] = (b.json.TraC.ESR.D as string).split('T') as [string, string];
    const [y, mo, d] = (b.json.TraC.ESR.D as string).slice(0, 10).split('-') as [string, string, string];
    assert.equal(fisB.Code, `${fisB.OKP}:${CODE}:${y.slice(2)}${mo}${d}${time.replace(/:/g, '')}:${b.json.TraC.ESR.TN}:4.70`);
    assert.ok((fisB.Tag as Array<{ Name: string; Value: string }>).some((t) => t.Name === 'PKP' && t.Value === fisB.PKP));
    assert.ok((fisB.Tag as Array<{ Value: string }>).some((t) => t.Value === 'OFF-LINE DOKLAD'));
    assert.equal((await get(`${svc.url}/state`)).json.FiscalQueued, 1);

    // it comes back: sent again (SendingCount 2), the UID journaled and shown
    ekasa.setMode('ok');
    await until('the UID of the queued receipt', async () => ((await get(`${svc.url}/state`)).json.FiscalQueued === 0 ? true : undefined), 15_000);
    const later = ekasa.received.find((r) => r.okp === fisB.OKP && r.uid);
    assert.ok(later, 'the queued receipt reached eKasa');
    assert.equal(later.sendingCount, 2);
    assert.equal(later.pkp, fisB.PKP, 'sent with the PKP computed when it was registered');
    const found = (await get(`${svc.url}/find?fn=${encodeURIComponent(fisB.FN)}`)).json.Find.Records as Array<{ _: string; Fis?: { UID?: string; Code?: string } }>;
    const rec = found.find((r) => r._ === 'Tra');
    assert.equal(rec?.Fis?.UID, later.uid);
    assert.equal(rec?.Fis?.Code, later.uid);
    const html = await get(`${svc.url}/render?fn=${encodeURIComponent(fisB.FN)}`);
    assert.ok(html.text.includes(later.uid ?? 'none'), 'the rendered receipt shows the UID');

    // a paragon written on paper during an outage, registered afterwards with its number and its time
    const p = await post(`${svc.url}/register`, sale({ SK_ParagonNumber: '12', D: a.json.TraC.ESR.D }));
    assert.equal(p.status, 200, p.text);
    assert.ok(p.json.TraC.Fis.UID, p.text);
    const sentParagon = ekasa.received.find((r) => r.uid === p.json.TraC.Fis.UID);
    assert.equal(sentParagon?.paragon, true);
    assert.match(sentParagon?.xml ?? '', /ParagonNumber="12"/);
    assert.ok((p.json.TraC.Fis.Tag as Array<{ Label: string; Value: string }>).some((t) => t.Label === 'Číslo paragónu:' && t.Value === '12'));

    // a return naming the first receipt by its FN: the returned item carries the original's OKP
    const ret = await post(`${svc.url}/register`, sale({ RFN: fisA.FN, PosA: [{ _: 'Pos', PN: '1', Dsc: 'Káva', TaxG: 'A', Amt: '-3.50', Qty: '-1' }], PayA: [{ _: 'Pay', Dsc: 'Hotovosť', PayG: 'cash', Amt: '-3.50' }] }));
    assert.equal(ret.status, 200, ret.text);
    assert.ok(ret.json.TraC.Fis.UID, ret.text);
    const sentReturn = ekasa.received.find((x) => x.uid === ret.json.TraC.Fis.UID);
    assert.match(sentReturn?.xml ?? '', new RegExp(`ItemType="V"[^>]*ReferenceReceiptId="${fisA.OKP}"`));
    assert.equal(sentReturn?.amount, '-3.50');
    const noRef = await post(`${svc.url}/register`, sale({ PosA: [{ _: 'Pos', PN: '1', Dsc: 'Káva', TaxG: 'A', Amt: '-3.50', Qty: '-1' }], PayA: [{ _: 'Pay', Dsc: 'Hotovosť', PayG: 'cash', Amt: '-3.50' }] }));
    assert.equal(noRef.status, 400, noRef.text);
    assert.match(noRef.text, /RFiscal/);

    // a refusal: journaled, the POS told, not retried
    ekasa.setMode('error', { code: '-5', message: 'Neplatný kód pokladnice.' });
    const r = await post(`${svc.url}/register`, sale());
    assert.equal(r.status, 200, r.text);
    assert.equal(r.json.TraC.Result.ErrorCode, '#AUTHORITY_REFUSED');
    assert.match(r.json.TraC.Result.UserMessage, /-5/);
    const refusals = (await get(`${svc.url}/find?_=log`)).json.Find.Records as Array<{ Event?: string; Code?: string; FN?: string }>;
    assert.ok(refusals.some((x) => x.Event === 'FiscalRefusal' && x.Code === '-5' && x.FN === r.json.TraC.Fis.FN));
    ekasa.setMode('ok');

    // the journal export: chain, every PKP by the certificate and every OKP verify (efr verify --country sk)
    const exp = await request(`${svc.url}/export?type=jou`);
    assert.equal(exp.statusCode, 200);
    const zip = join(dataDir, 'jou.zip');
    writeFileSync(zip, Buffer.from(await exp.body.arrayBuffer()));
    const ok = spawnSync(process.execPath, ['--import', 'tsx', 'src/cli.ts', 'verify', '--country', 'sk', '--key', cert.certFile, zip], { cwd: ROOT, encoding: 'utf8', timeout: 60_000 });
    assert.equal(ok.status, 0, `${ok.stdout}${ok.stderr}`);
    assert.match(ok.stdout, /OK: 5 eKasa receipts, every PKP verifies/);
    const other = makeEkasaCertificate(CODE);
    const wrong = spawnSync(process.execPath, ['--import', 'tsx', 'src/cli.ts', 'verify', '--country', 'sk', '--key', other.certFile, zip], { cwd: ROOT, encoding: 'utf8', timeout: 60_000 });
    assert.equal(wrong.status, 1, `${wrong.stdout}${wrong.stderr}`);
    assert.match(wrong.stderr, /BROKEN at SQ \d+ .*not the signature of the receipt/);
    const noKey = spawnSync(process.execPath, ['--import', 'tsx', 'src/cli.ts', 'verify', '--country', 'sk', zip], { cwd: ROOT, encoding: 'utf8', timeout: 60_000 });
    assert.equal(noKey.status, 1);
    assert.match(noKey.stderr, /--key/);
  } finally {
    await svc.close();
    await ekasa.close();
  }
});

test('Slovakia: a receipt eKasa has not received after 48 hours is counted as overdue in /state, until it is delivered', async () => {
  const ekasa = await startFakeEkasa({ mode: 'down' });
  const clock = new ManualClock(new Date());
  const svc = await startTestService({ dataDir: tempDir('efr-sk-late-'), clock, env: { EFR_FISCAL_RETRY_MS: '300' } });
  try {
    assert.equal((await post(`${svc.url}/profile`, { Badge: 'B1', Attributes: `Fiscal_Test Fiscal_Url=${ekasa.url} Fiscal_Timeout=300 SK_SwId=ABC123` })).status, 200);
    assert.equal((await post(`${svc.url}/cfg`, CFG)).status, 200);
    const cert = makeEkasaCertificate(CODE);
    assert.equal((await post(`${svc.url}/cer/fiscal`, { fiscalCert: cert.p12.toString('base64'), password: cert.password })).status, 200);
    const a = await post(`${svc.url}/register`, sale());
    assert.equal(a.json.TraC.Result.ErrorCode, '#AUTHORITY_PENDING', a.text);
    const queue = async (): Promise<Record<string, string>> => (await get(`${svc.url}/state`)).json.FiscalQueue.def;
    assert.equal((await queue()).Queued, '1');
    assert.equal((await queue()).Overdue, undefined);
    clock.advance(47 * 3_600_000);
    assert.equal((await queue()).Overdue, undefined, 'within 48 hours');
    clock.advance(2 * 3_600_000);
    assert.equal((await queue()).Overdue, '1', 'past 48 hours');
    ekasa.setMode('ok');
    await until('the overdue receipt delivered', async () => ((await get(`${svc.url}/state`)).json.FiscalQueued === 0 ? true : undefined), 15_000);
    assert.equal((await get(`${svc.url}/state`)).json.FiscalQueue.def, undefined);
    assert.equal(ekasa.received.filter((r) => r.uid).length, 1);
  } finally {
    await svc.close();
    await ekasa.close();
  }
});

test('Slovakia: one register is one cash register: a receipt of a second TL/TT is refused before it is journaled, not reported with a receipt number eKasa has', async () => {
  const ekasa = await startFakeEkasa();
  const svc = await startTestService({ dataDir: tempDir('efr-sk-tt-') });
  try {
    assert.equal((await post(`${svc.url}/profile`, { Badge: 'B1', Attributes: `Fiscal_Test Fiscal_Url=${ekasa.url} Fiscal_Timeout=3000 SK_SwId=ABC123` })).status, 200);
    assert.equal((await post(`${svc.url}/cfg`, CFG)).status, 200);
    const cert = makeEkasaCertificate(CODE);
    assert.equal((await post(`${svc.url}/cer/fiscal`, { fiscalCert: cert.p12.toString('base64'), password: cert.password })).status, 200);
    const first = await post(`${svc.url}/register`, sale());
    assert.equal(first.status, 200, first.text);
    assert.equal(first.json.TraC.Fis.FN, `${CODE}/1`);
    for (const other of [{ TT: '2' }, { TL: 'P2' }]) {
      const r = await post(`${svc.url}/register`, sale(other));
      assert.equal(r.status, 400, r.text);
      assert.equal(r.json.TraC.Result.ErrorCode, '#INVALID_VALUE');
      assert.match(r.json.TraC.Result.UserMessage, /ESR\.TT/);
    }
    const second = await post(`${svc.url}/register`, sale());
    assert.equal(second.json.TraC.Fis.FN, `${CODE}/2`, second.text);
    const receipts = (await get(`${svc.url}/find?_=Tra`)).json.Find.Records as Array<{ Fis?: { FN?: string } }>;
    assert.deepEqual(receipts.map((r) => r.Fis?.FN).sort(), [`${CODE}/1`, `${CODE}/2`]);
    assert.deepEqual(ekasa.received.map((r) => r.receiptNumber), ['1', '2']);
  } finally {
    await svc.close();
    await ekasa.close();
  }
});
