/**
 * Croatia through POST /register against the fake CIS (test/fake-cis.ts: checks every request with xmllint
 * against the official schema and verifies its XML signature): the fiscal certificate uploaded as PKCS#12,
 * receipts refused without it or with a Demo certificate on a production register, the ZKI reproduced with
 * `openssl dgst -sha1 -sign` and `md5sum`, the JIR in the answer, /last, /find and /render; the CIS
 * unreachable: RC OK with the ZKI only and #AUTHORITY_PENDING, the receipt in /state's queue, delivered later
 * with NakDost once the CIS answers again, also after a restart of the service; a refusal journaled.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { get, post, startTestService, tempDir, until, type TestService } from './helpers.js';
import { makeDemoCertificate, startFakeCis, type FakeCis } from './fake-cis.js';

const OIB = '12345678903';
const OPERATOR = '12345678903';
const CFG = { Cfg: { Cmp: { Nam: 'Demo Trgovina d.o.o.', Adr: 'Ilica 1', Zip: '10000', City: 'Zagreb', Ctry: 'HR', TaxId: `HR${OIB}` }, Loc: { TL: 'POSL1', Nam: 'Trgovina Ilica' }, Trm: { TT: '1' } } };

function sale(extra: Record<string, unknown> = {}): { Tra: { ESR: Record<string, unknown> } } {
  return {
    Tra: {
      ESR: {
        TL: 'POSL1',
        TT: '1',
        OprTIN: OPERATOR,
        OprN: 'Ana',
        PosA: [
          { _: 'Pos', PN: '1', Dsc: 'Kava', TaxG: 'A', Amt: '3.50' },
          { _: 'Pos', PN: '2', Dsc: 'Kruh', TaxG: 'C', Amt: '1.20' },
        ],
        PayA: [{ _: 'Pay', Dsc: 'Gotovina', PayG: 'cash', Amt: '4.70' }],
        ...extra,
      },
    },
  };
}

/** The ZKI recomputed outside the service: openssl signs the input with SHA-1, md5sum digests the signature. */
function opensslZki(keyFile: string, d: string, number: string, total: string): string {
  const [date, time] = d.split('T') as [string, string];
  const [y, m, day] = date.split('-');
  const input = `${OIB}${day}.${m}.${y} ${time.slice(0, 8)}${number}POSL11${total}`;
  const dir = tempDir('hr-zki-');
  const inFile = join(dir, 'in.txt');
  writeFileSync(inFile, input);
  const r = spawnSync('sh', ['-c', `openssl dgst -sha1 -sign "${keyFile}" "${inFile}" | md5sum`], { encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  return r.stdout.split(' ')[0] ?? '';
}

async function setUp(svc: TestService, cis: FakeCis, attributes = ''): Promise<void> {
  assert.equal((await post(`${svc.url}/profile`, { Badge: 'B1', Attributes: `Fiscal_Test Fiscal_Url=${cis.url} Fiscal_Timeout=1500 ${attributes}`.trim() })).status, 200);
  assert.equal((await post(`${svc.url}/cfg`, CFG)).status, 200);
}

test('Croatia: certificate, ZKI and JIR online, the CIS away and the JIR delivered later with NakDost, a refusal', async () => {
  const cis = await startFakeCis();
  const dataDir = tempDir('efr-hr-');
  const env = { EFR_FISCAL_RETRY_MS: '300' };
  let svc = await startTestService({ dataDir, env });
  try {
    await setUp(svc, cis);
    // no certificate yet: refused before anything is journaled
    const none = await post(`${svc.url}/register`, sale());
    assert.equal(none.status, 400, none.text);
    assert.equal(none.json.TraC.Result.ErrorCode, '#FISCAL_CERTIFICATE');
    assert.equal((await get(`${svc.url}/find?_=Tra`)).json.Find.Records.length, 0);

    const cert = makeDemoCertificate(OIB);
    const wrong = await post(`${svc.url}/cer/fiscal`, { fiscalCert: cert.p12.toString('base64'), password: 'nope' });
    assert.equal(wrong.status, 400, wrong.text);
    const up = await post(`${svc.url}/cer/fiscal`, { fiscalCert: cert.p12.toString('base64'), password: cert.password });
    assert.equal(up.status, 200, up.text);
    assert.equal(up.json.CertificateC.Test, 'true');
    assert.match(up.json.CertificateC.Subject, /Demo/);
    const shown = await get(`${svc.url}/cer/fiscal`);
    assert.equal(shown.json.CertificateC.Serial, up.json.CertificateC.Serial);
    assert.ok(!shown.text.includes('PRIVATE KEY'));

    // online: the JIR comes back, the ZKI is the one openssl computes for the same key and fields
    const a = await post(`${svc.url}/register`, sale());
    assert.equal(a.status, 200, a.text);
    assert.equal(a.json.TraC.Result.RC, 'OK');
    assert.equal(a.json.TraC.Result.ErrorCode, undefined, a.text);
    const fisA = a.json.TraC.Fis;
    assert.match(fisA.ZKI, /^[0-9a-f]{32}$/);
    assert.match(fisA.JIR, /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    assert.equal(fisA.FN, `${a.json.TraC.ESR.TN}/POSL1/1`);
    assert.equal(fisA.ZKI, opensslZki(cert.keyFile, a.json.TraC.ESR.D, a.json.TraC.ESR.TN, '4.70'));
    assert.match(fisA.Code, new RegExp(`jir=${fisA.JIR}`));
    assert.ok(fisA.Tag.some((t: { Name: string; Value: string }) => t.Name === 'JIR' && t.Value === fisA.JIR), JSON.stringify(fisA.Tag));
    assert.equal(cis.received.length, 1);
    assert.equal(cis.received[0]?.later, false);
    assert.equal(cis.received[0]?.zki, fisA.ZKI);
    assert.equal(cis.received[0]?.jir, fisA.JIR);
    assert.equal(cis.received[0]?.error, undefined);

    // the CIS away: the receipt is valid with its ZKI; the JIR follows
    cis.setMode('down');
    const b = await post(`${svc.url}/register`, sale());
    assert.equal(b.status, 200, b.text);
    assert.equal(b.json.TraC.Result.RC, 'OK');
    assert.equal(b.json.TraC.Result.ErrorCode, '#AUTHORITY_PENDING');
    assert.match(b.json.TraC.Result.UserMessage, /CIS/);
    assert.match(b.json.TraC.Fis.ZKI, /^[0-9a-f]{32}$/);
    assert.equal(b.json.TraC.Fis.JIR, undefined);
    assert.match(b.json.TraC.Fis.Code, /zki=/);
    const state = await get(`${svc.url}/state`);
    assert.equal(state.json.FiscalQueued, 1);
    assert.equal(state.json.FiscalQueue.def.OldestFN, b.json.TraC.Fis.FN);

    // it comes back: delivered later with NakDost, the JIR journaled and shown
    cis.setMode('ok');
    await until('the JIR of the queued receipt', async () => ((await get(`${svc.url}/state`)).json.FiscalQueued === 0 ? true : undefined), 15_000);
    const later = cis.received.find((r) => r.zki === b.json.TraC.Fis.ZKI && r.jir);
    assert.ok(later, 'the queued receipt reached the CIS');
    assert.equal(later.later, true);
    const found = await get(`${svc.url}/find?fn=${encodeURIComponent(b.json.TraC.Fis.FN)}`);
    const record = (found.json.Find.Records as Array<{ _: string; Fis?: { JIR?: string } }>).find((r) => r._ === 'Tra');
    assert.equal(record?.Fis?.JIR, later.jir);
    const html = await get(`${svc.url}/render?fn=${encodeURIComponent(b.json.TraC.Fis.FN)}`);
    assert.ok(html.text.includes(later.jir ?? 'none'), 'the rendered receipt shows the JIR');
    const last = await get(`${svc.url}/last`);
    assert.equal(last.json.TraC.Fis.JIR, later.jir);
    const answers = (await get(`${svc.url}/find?_=log`)).json.Find.Records as Array<{ Event?: string; RSQ?: string; JIR?: string; Later?: string }>;
    assert.ok(answers.some((r) => r.Event === 'FiscalAnswer' && r.JIR === later.jir && r.Later === '1'));

    // the CIS away and the service restarted: the receipt is found again in the journal and delivered
    cis.setMode('down');
    const c = await post(`${svc.url}/register`, sale());
    assert.equal(c.json.TraC.Result.ErrorCode, '#AUTHORITY_PENDING');
    await svc.close();
    cis.setMode('ok');
    svc = await startTestService({ dataDir, env });
    await until('the receipt queued before the restart delivered', async () => (cis.received.some((r) => r.zki === c.json.TraC.Fis.ZKI && r.later && r.jir) ? true : undefined), 15_000);
    await until('its JIR journaled', async () => ((await get(`${svc.url}/find?fn=${encodeURIComponent(c.json.TraC.Fis.FN)}`)).json.Find.Records as Array<{ Fis?: { JIR?: string } }>).find((r) => r.Fis?.JIR)?.Fis?.JIR, 10_000);

    // a refusal (OIB not the certificate's): journaled, the POS told, not retried
    cis.setMode('error', { code: 's005', message: 'OIB iz poruke zahtjeva nije jednak OIB-u iz certifikata.' });
    const d = await post(`${svc.url}/register`, sale());
    assert.equal(d.status, 200, d.text);
    assert.equal(d.json.TraC.Result.ErrorCode, '#AUTHORITY_REFUSED');
    assert.match(d.json.TraC.Result.UserMessage, /s005/);
    const refusals = (await get(`${svc.url}/find?_=log`)).json.Find.Records as Array<{ Event?: string; Code?: string; FN?: string }>;
    assert.ok(refusals.some((r) => r.Event === 'FiscalRefusal' && r.Code === 's005' && r.FN === d.json.TraC.Fis.FN));
    assert.equal((await get(`${svc.url}/state`)).json.FiscalQueued, 0);

    // corrected set-up (here: any change of the base data): the refused receipt is sent again and answered
    cis.setMode('ok');
    assert.equal((await get(`${svc.url}/state`)).json.FiscalQueue.def.Refused, '1');
    assert.equal((await post(`${svc.url}/cfg`, { Cfg: { ...CFG.Cfg, Loc: { ...CFG.Cfg.Loc, Nam: 'Trgovina Ilica 1' } } })).status, 200);
    const resent = await until('the refused receipt sent again', async () => cis.received.find((r) => r.zki === d.json.TraC.Fis.ZKI && r.jir), 15_000);
    assert.equal(resent.later, true);
    await until('its JIR shown', async () => ((await get(`${svc.url}/find?fn=${encodeURIComponent(d.json.TraC.Fis.FN)}`)).json.Find.Records as Array<{ Fis?: { JIR?: string } }>).find((r) => r.Fis?.JIR === resent.jir), 10_000);
    await until('no refused receipt left', async () => ((await get(`${svc.url}/state`)).json.FiscalQueue.def === undefined ? true : undefined), 10_000);

    // every receipt reached the CIS with an answer exactly once
    for (const zki of [fisA.ZKI, b.json.TraC.Fis.ZKI, c.json.TraC.Fis.ZKI, d.json.TraC.Fis.ZKI]) {
      assert.equal(cis.received.filter((r) => r.zki === zki && r.jir).length, 1, `one JIR for ZKI ${zki}`);
    }

    // training is not reported and carries no ZKI; it takes no number of the invoice series
    const tnBefore = Number(d.json.TraC.ESR.TN);
    cis.setMode('ok');
    const sent = cis.received.length;
    const training = await post(`${svc.url}/register`, sale({ Test: '1' }));
    assert.equal(training.status, 200, training.text);
    assert.equal(training.json.TraC.Fis.ZKI, undefined);
    assert.equal(cis.received.length, sent);
    assert.doesNotMatch(training.json.TraC.ESR.TN, /^\d+$/);
    const e = await post(`${svc.url}/register`, sale());
    assert.equal(e.json.TraC.ESR.TN, String(tnBefore + 1), 'the next invoice number follows without a gap');

    // a Demo certificate on a register reporting to production: refused, nothing journaled
    assert.equal((await post(`${svc.url}/profile`, { Badge: 'B1', Attributes: `Fiscal_Url=${cis.url}` })).status, 200);
    const before = (await get(`${svc.url}/state`)).json;
    const prod = await post(`${svc.url}/register`, sale());
    assert.equal(prod.status, 400, prod.text);
    assert.equal(prod.json.TraC.Result.ErrorCode, '#FISCAL_CERTIFICATE');
    assert.match(prod.json.TraC.Result.UserMessage, /test certificate/);
    assert.ok(before.FiscalCertificate.def.Warning.some((w: string) => /test certificate/.test(w)));
  } finally {
    await svc.close();
    await cis.close();
  }
});

test('Croatia: a register made while the service runs, a slow CIS and a short retry pause: the receipt is sent once, the printed JIR is the journaled one', async () => {
  const cis = await startFakeCis();
  const svc = await startTestService({ dataDir: tempDir('efr-hr-race-'), env: { EFR_FISCAL_RETRY_MS: '200' } });
  try {
    assert.equal((await post(`${svc.url}/profile`, { Badge: 'B1', Attributes: `Fiscal_Test Fiscal_Url=${cis.url} Fiscal_Timeout=4000` })).status, 200);
    const cert = makeDemoCertificate(OIB);
    assert.equal((await post(`${svc.url}/cer/fiscal`, { fiscalCert: cert.p12.toString('base64'), password: cert.password })).status, 200);
    // R2 is made now, after the start; the CIS takes 1.5 s, several looks at the queue meanwhile
    cis.delayMs = 1500;
    // the sale right after the register is made: the first look at R2's journal falls into the CIS's 1.5 s
    assert.equal((await post(`${svc.url}/cfg?rn=R2`, CFG)).status, 200);
    const a = await post(`${svc.url}/register?rn=R2`, sale());
    assert.equal(a.status, 200, a.text);
    assert.ok(a.json.TraC.Fis.JIR, a.text);
    await new Promise((r) => setTimeout(r, 2000));
    assert.equal(cis.received.filter((r) => r.zki === a.json.TraC.Fis.ZKI).length, 1, 'sent once');
    const found = (await get(`${svc.url}/find?rn=R2&fn=${encodeURIComponent(a.json.TraC.Fis.FN)}`)).json.Find.Records as Array<{ _: string; Fis?: { JIR?: string } }>;
    assert.equal(found.find((r) => r._ === 'Tra')?.Fis?.JIR, a.json.TraC.Fis.JIR);
    const answers = ((await get(`${svc.url}/find?rn=R2&_=log`)).json.Find.Records as Array<{ Event?: string }>).filter((r) => r.Event === 'FiscalAnswer');
    assert.equal(answers.length, 1);
  } finally {
    await svc.close();
    await cis.close();
  }
});
