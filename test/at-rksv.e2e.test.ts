/**
 * Austria (RKSV): the eight official test scenarios replayed through POST /register with an injected
 * clock, the scenario's cashbox id and AES key, switching and failing signature devices for real
 * (the device's key file is taken away while it is "damaged"); the DEP export checked by `efr verify`.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse as parseLossless } from 'lossless-json';
import { request } from 'undici';
import { ZipFile } from 'yazl';
import { ManualClock } from '../src/shared/clock.js';
import { add, dec, fmt, ZERO } from '../src/shared/money.js';
import { cashboxDir, deviceStore } from '../src/register/fiscal/at/devices.js';
import { ROOT, post, startTestService, tempDir, unzip } from './helpers.js';
import { vectorPath } from '../src/shared/testing.js';
import { VERIFIERS } from '../src/register/fiscal/verifiers.js';
import { createDecipheriv, createHash, createPrivateKey, sign } from 'node:crypto';

const DATA = vectorPath('at-rksv');
const SETS = ['taxSetNormal', 'taxSetErmaessigt1', 'taxSetErmaessigt2', 'taxSetNull', 'taxSetBesonders'] as const;
const LETTERS = ['A', 'B', 'C', 'D', 'E'];

interface Instruction {
  signatureDeviceDamaged: boolean;
  receiptIdentifier: string;
  dateToUse: string;
  usedSignatureDevice: string;
  simplifiedReceipt: Record<string, string>;
  typeOfReceipt: string;
}
interface Scenario {
  cashBoxId: string;
  base64AesKey: string;
  companyID: string;
  numberOfSignatureDevices: string;
  cashBoxInstructionList: Instruction[];
}

function load(n: number): Scenario {
  // numbers keep their text: 120.34 stays "120.34"
  return parseLossless(readFileSync(join(DATA, `TESTSUITE_TEST_SZENARIO_${n}.json`), 'utf8'), null, (s: string) => s) as unknown as Scenario;
}

function esrOf(i: Instruction): Record<string, unknown> {
  const base = { TT: '1', TN: i.receiptIdentifier, D: i.dateToUse };
  if (i.typeOfReceipt === 'START_BELEG' || i.typeOfReceipt === 'NULL_BELEG') return { ...base, NFS: 'NULL' };
  const positions = SETS.map((k, n) => ({ n, amt: fmt(dec(i.simplifiedReceipt[k] as string), 2) })).filter((p) => dec(p.amt).v !== 0n);
  const total = fmt(positions.reduce((a, p) => add(a, dec(p.amt)), ZERO), 2);
  const esr: Record<string, unknown> = {
    ...base,
    T: total,
    PosA: positions.map((p, k) => ({ _: 'Pos', PN: String(k + 1), Dsc: `Artikel ${LETTERS[p.n]}`, TaxG: LETTERS[p.n], Amt: p.amt })),
    PayA: [{ _: 'Pay', Dsc: 'Bar', PayG: 'cash', Amt: total }],
  };
  if (i.typeOfReceipt === 'TRAINING_BELEG') esr.Test = '1';
  if (i.typeOfReceipt === 'STORNO_BELEG') Object.assign(esr, { Void: '1', RTL: '', RTT: '9', RTN: `${i.receiptIdentifier}-ORIGINAL` });
  return esr;
}

async function zipFiles(files: Record<string, string>, path: string): Promise<void> {
  const zip = new ZipFile();
  for (const [name, text] of Object.entries(files)) zip.addBuffer(Buffer.from(text), name);
  zip.end();
  const chunks: Buffer[] = [];
  for await (const c of zip.outputStream) chunks.push(c as Buffer);
  writeFileSync(path, Buffer.concat(chunks));
}

function efrVerify(zip: string): { code: number | null; out: string } {
  const r = spawnSync(process.execPath, ['--import', 'tsx', 'src/cli.ts', 'verify', '--country', 'at', zip], { cwd: ROOT, encoding: 'utf8', timeout: 180_000 });
  return { code: r.status, out: `${r.stdout}${r.stderr}` };
}

/** The same verifier as `efr verify --country at` without a process of its own (the CLI is run once per scenario). */
async function verifyInProcess(zip: string): Promise<{ code: number | null; out: string }> {
  const r = await VERIFIERS.at?.verify(zip);
  return { code: r?.ok ? 0 : 1, out: r?.text ?? '' };
}

describe('RKSV official test scenarios', () => {
  for (const n of [1, 2, 3, 4, 5, 6, 7, 8]) {
    test(`scenario ${n}: every receipt registers, the DEP export verifies, one tampered receipt is named`, async () => {
      const sc = load(n);
      const first = sc.cashBoxInstructionList[0] as Instruction;
      const clock = new ManualClock(new Date(first.dateToUse));
      const svc = await startTestService({ clock });
      const work = tempDir('efr-at-');
      try {
        const attrs = (device: string): string => `Fiscal_CashboxId=${sc.cashBoxId} Sign_Cfg=${device}`;
        assert.equal((await post(`${svc.url}/profile`, { Badge: 'B', Attributes: attrs(first.usedSignatureDevice) })).status, 200);
        assert.equal((await post(`${svc.url}/cfg`, { Cfg: { Cmp: { Nam: 'Demo', Ctry: 'AT', TaxId: sc.companyID } } })).status, 200);
        // the scenario's AES key and signature devices, placed as an installer would
        const box = cashboxDir(svc.dataDir, sc.cashBoxId);
        mkdirSync(box, { recursive: true });
        writeFileSync(join(box, 'aes.key'), sc.base64AesKey);
        for (let d = 0; d < Number(sc.numberOfSignatureDevices); d++) await deviceStore(svc.dataDir).device(sc.cashBoxId, sc.companyID, d);
        let device = first.usedSignatureDevice;
        let failed = 0;
        for (const [k, ins] of sc.cashBoxInstructionList.entries()) {
          clock.set(new Date(ins.dateToUse));
          if (ins.usedSignatureDevice !== device) {
            device = ins.usedSignatureDevice;
            assert.equal((await post(`${svc.url}/profile`, { Badge: 'B', Attributes: attrs(device) })).status, 200);
          }
          const key = join(box, `device-${device}`, 'key.pem');
          if (ins.signatureDeviceDamaged) renameSync(key, `${key}.damaged`);
          let r;
          try {
            r = await post(`${svc.url}/register`, { Tra: { ESR: esrOf(ins) } });
          } finally {
            if (ins.signatureDeviceDamaged) renameSync(`${key}.damaged`, key);
          }
          assert.equal(r.json.TraC.Result.RC, 'OK', `${ins.receiptIdentifier}: ${r.text}`);
          const code: string = r.json.TraC.Fis.Code;
          assert.ok(code.startsWith(`_R1-AT0_${sc.cashBoxId}_${ins.receiptIdentifier}_${ins.dateToUse}_`), code);
          assert.equal(code, `${r.json.TraC.Fis.Payload}_${Buffer.from(r.json.TraC.Fis.Signature, 'base64url').toString('base64')}`, 'the QR text is the code and the signature');
          if (ins.signatureDeviceDamaged) {
            failed += 1;
            assert.ok(r.json.TraC.Fis.Tag.some((t: { Value: string }) => t.Value === 'Sicherheitseinrichtung ausgefallen'));
          }
          if (k === 0) {
            const fields = code.split('_');
            // the chain value of a first receipt depends on the cashbox id only; the counter on scenario 1's AES key
            assert.equal(fields[12], 'cg8hNU5ihto=', 'official chain value of receipt 1');
            if (n === 1) assert.equal(fields[10], '4r1iIdZGeAQ=', 'official encrypted turnover counter of receipt 1');
          }
        }
        assert.ok(failed > 0);
        const res = await request(`${svc.url}/export?type=dep&aes=1`);
        const zip = Buffer.from(await res.body.arrayBuffer());
        assert.equal(res.statusCode, 200, zip.toString().slice(0, 300));
        const zipPath = join(work, 'dep.zip');
        writeFileSync(zipPath, zip);
        const ok = efrVerify(zipPath);
        assert.equal(ok.code, 0, ok.out);
        assert.match(ok.out, /^OK: \d+ receipts/);
        assert.match(ok.out, /turnover counter verifies/);
        const receipts = Number(/OK: (\d+)/.exec(ok.out)?.[1]);
        assert.ok(receipts >= sc.cashBoxInstructionList.length);

        // independent of rksv.ts: the chain values and the decrypted counters, against the scenario's own amounts
        const files0 = await unzip(zip, work);
        const all = (JSON.parse(files0['dep-export.json'] as string) as { 'Belege-Gruppe': Array<{ 'Belege-kompakt': string[] }> })['Belege-Gruppe'].flatMap((g) => g['Belege-kompakt']);
        const byId = new Map(sc.cashBoxInstructionList.map((x) => [x.receiptIdentifier, x]));
        const aes = Buffer.from(sc.base64AesKey, 'base64');
        let prev = sc.cashBoxId;
        let expected = 0n;
        let checked = 0;
        for (const jws of all) {
          const fields = Buffer.from(jws.split('.')[1] as string, 'base64url').toString('utf8').split('_');
          assert.equal(fields[12], createHash('sha256').update(prev).digest().subarray(0, 8).toString('base64'), `chain of ${fields[3]}`);
          const ins = byId.get(fields[3] as string);
          const cents = ins && ins.typeOfReceipt !== 'TRAINING_BELEG' ? SETS.reduce((a, k) => a + BigInt(fmt(dec(ins.simplifiedReceipt[k] as string), 2).replace('.', '')), 0n) : 0n;
          expected += cents;
          if (fields[10] !== 'U1RP' && fields[10] !== 'VFJB') {
            const d = createDecipheriv('aes-256-ctr', aes, createHash('sha256').update(`${sc.cashBoxId}${fields[3]}`).digest().subarray(0, 16));
            const plain = Buffer.concat([d.update(Buffer.from(fields[10] as string, 'base64')), d.final()]);
            assert.equal(plain.readBigInt64BE(), expected, `turnover counter of ${fields[3]}`);
            checked += 1;
          }
          prev = jws;
        }
        assert.ok(checked > 20);

        // one receipt changed: its amount in the signed payload
        const files = await unzip(zip, work);
        const dep = JSON.parse(files['dep-export.json'] as string) as { 'Belege-Gruppe': Array<{ 'Belege-kompakt': string[] }> };
        // a signed receipt (one made while its device had failed is caught by the next one's chain value)
        const failedMark = Buffer.from('Sicherheitseinrichtung ausgefallen').toString('base64url');
        const group = dep['Belege-Gruppe'].find((g) => g['Belege-kompakt'].slice(1).some((j) => !j.endsWith(`.${failedMark}`)));
        assert.ok(group);
        const at = group['Belege-kompakt'].findIndex((j, i) => i > 0 && !j.endsWith(`.${failedMark}`));
        const jws = group['Belege-kompakt'][at] as string;
        const [h, p, s] = jws.split('.');
        const payload = Buffer.from(p as string, 'base64url').toString('utf8');
        const parts = payload.split('_');
        parts[5] = parts[5] === '0,00' ? '0,01' : '0,00';
        const receiptId = parts[3];
        group['Belege-kompakt'][at] = `${h}.${Buffer.from(parts.join('_')).toString('base64url')}.${s}`;
        const bad = join(work, 'tampered.zip');
        await zipFiles({ 'dep-export.json': JSON.stringify(dep), 'cryptographicMaterialContainer.json': files['cryptographicMaterialContainer.json'] as string }, bad);
        const broken = n === 1 ? efrVerify(bad) : await verifyInProcess(bad);
        assert.equal(broken.code, 1, broken.out);
        assert.match(broken.out, new RegExp(`BROKEN at receipt \\d+ \\(${receiptId}\\)`));

        // a sale changed and signed again with the device's own key: the turnover counter gives it away
        group['Belege-kompakt'][at] = jws;
        const fieldsOf = (j: string): string[] => Buffer.from(j.split('.')[1] as string, 'base64url').toString('utf8').split('_');
        const list = group['Belege-kompakt'];
        const victim = list.findIndex((j, i) => i > 0 && !j.endsWith(`.${failedMark}`) && !(list[i - 1] as string).endsWith(`.${failedMark}`) && !['U1RP', 'VFJB'].includes(fieldsOf(j)[10] as string) && fieldsOf(j).slice(5, 10).some((a) => a !== '0,00'));
        assert.ok(victim > 0, 'a signed sale after a signed receipt');
        const vf = fieldsOf(list[victim] as string);
        vf[5] = vf[5] === '1,00' ? '2,00' : '1,00';
        const keyFile = join(box, `device-${/-K(\d+)$/.exec(vf[11] as string)?.[1]}`, 'key.pem');
        const input = `${h}.${Buffer.from(vf.join('_')).toString('base64url')}`;
        const resigned = sign('sha256', Buffer.from(input), { key: createPrivateKey(readFileSync(keyFile)), dsaEncoding: 'ieee-p1363' }).toString('base64url');
        const original = list[victim] as string;
        list[victim] = `${input}.${resigned}`;
        const bad2 = join(work, 'resigned.zip');
        await zipFiles({ 'dep-export.json': JSON.stringify(dep), 'cryptographicMaterialContainer.json': files['cryptographicMaterialContainer.json'] as string }, bad2);
        const broken2 = await verifyInProcess(bad2);
        assert.equal(broken2.code, 1, broken2.out);
        assert.match(broken2.out, new RegExp(`\\(${vf[3]}\\): the turnover counter`));
        list[victim] = original;

        // a receipt taken out: the next one's chain value no longer fits
        group['Belege-kompakt'][at] = jws;
        group['Belege-kompakt'].splice(at, 1);
        const bad3 = join(work, 'dropped.zip');
        await zipFiles({ 'dep-export.json': JSON.stringify(dep), 'cryptographicMaterialContainer.json': files['cryptographicMaterialContainer.json'] as string }, bad3);
        const broken3 = await verifyInProcess(bad3);
        assert.equal(broken3.code, 1, broken3.out);
        assert.match(broken3.out, /the chain value does not match/);
      } finally {
        await svc.stop();
        rmSync(work, { recursive: true, force: true });
        assert.ok(!existsSync(work));
      }
    });
  }
});

test('Austria: returns are STO, Fiscal_Test makes training (TRA), Fis_OCR adds the BASE32 form, TL/TT/TN without "_"', async () => {
  const svc = await startTestService();
  try {
    await post(`${svc.url}/profile`, { Badge: 'B', Attributes: 'Fis_OCR' });
    await post(`${svc.url}/cfg`, { Cfg: { Cmp: { Nam: 'Demo', Ctry: 'AT', TaxId: 'ATU1' }, Loc: { TL: 'wien' }, Trm: { TT: '3' } } });
    const sale = await post(`${svc.url}/register`, { Tra: { ESR: { PosA: [{ _: 'Pos', Dsc: 'Kaffee', TaxG: '10%', Amt: '3.30' }, { _: 'Pos', Dsc: 'Wein', TaxG: 'A', Amt: '6.00' }], PayA: [{ _: 'Pay', Dsc: 'Bar', Amt: '9.30' }] } } });
    assert.equal(sale.json.TraC.Result.RC, 'OK', sale.text);
    const f = (sale.json.TraC.Fis.Code as string).split('_');
    assert.equal(f[2], 'wien-3', 'cashbox id from TL-TT');
    assert.deepEqual(f.slice(5, 10), ['6,00', '3,30', '0,00', '0,00', '0,00']);
    const ocr = sale.json.TraC.Fis.Tag.find((t: { Name: string }) => t.Name === 'OCR');
    assert.match(ocr.Value, /^_R1-AT0_wien-3_.*_[A-Z2-7=]+$/);
    const ret = await post(`${svc.url}/register`, { Tra: { ESR: { RFN: sale.json.TraC.ESR.FN, PosA: [{ _: 'Pos', Dsc: 'Wein', TaxG: 'A', Amt: '-6.00' }], PayA: [{ _: 'Pay', Dsc: 'Bar', Amt: '-6.00' }] } } });
    assert.equal((ret.json.TraC.Fis.Code as string).split('_')[10], 'U1RP');
    await post(`${svc.url}/profile`, { Badge: 'B', Attributes: 'Fiscal_Test' });
    const tra = await post(`${svc.url}/register`, { Tra: { ESR: { PosA: [{ _: 'Pos', Dsc: 'Wein', TaxG: 'A', Amt: '6.00' }], PayA: [{ _: 'Pay', Dsc: 'Bar', Amt: '6.00' }] } } });
    assert.equal((tra.json.TraC.Fis.Code as string).split('_')[10], 'VFJB');
    const bad = await post(`${svc.url}/register`, { Tra: { ESR: { TN: 'a_b', PosA: [{ _: 'Pos', Dsc: 'Wein', TaxG: 'A', Amt: '6.00' }], PayA: [{ _: 'Pay', Dsc: 'Bar', Amt: '6.00' }] } } });
    assert.equal(bad.status, 400);
    assert.match(bad.json.TraC.Result.UserMessage, /ESR\.TN: "_" separates the fields/);
    // the first receipt of the cashbox was preceded by an automatic start receipt
    const start = (await (await request(`${svc.url}/find?sort=asc&_=Tra&limit=1rows`)).body.json()) as { Find: { Records: Array<{ ESR: { NFS: string; Rsn: string } }> } };
    assert.deepEqual([start.Find.Records[0]?.ESR.NFS, start.Find.Records[0]?.ESR.Rsn], ['NULL', 'Startbeleg']);
  } finally {
    await svc.stop();
  }
});

test('Austria: start, monthly, yearly and after-failure null receipts are made automatically; a failed start is refused', async () => {
  const clock = new ManualClock(new Date(2026, 10, 20, 10, 0, 0));
  const svc = await startTestService({ clock });
  try {
    await post(`${svc.url}/profile`, { Badge: 'B', Attributes: 'Fiscal_CashboxId=KASSE-7' });
    await post(`${svc.url}/cfg`, { Cfg: { Cmp: { Nam: 'Demo', Ctry: 'AT', TaxId: 'ATU12345678' } } });
    const box = cashboxDir(svc.dataDir, 'KASSE-7');
    await deviceStore(svc.dataDir).device('KASSE-7', 'ATU12345678', 0);
    const key = join(box, 'device-0', 'key.pem');
    const sale = (): Promise<Awaited<ReturnType<typeof post>>> => post(`${svc.url}/register`, { Tra: { ESR: { PosA: [{ _: 'Pos', Dsc: 'Wein', TaxG: 'A', Amt: '6.00' }], PayA: [{ _: 'Pay', Dsc: 'Bar', Amt: '6.00' }] } } });
    // the cashbox cannot start while its device is gone
    renameSync(key, `${key}.gone`);
    const refused = await sale();
    assert.equal(refused.status, 406);
    assert.equal(refused.json.TraC.Result.ErrorCode, '#DEVICE_FAILED');
    renameSync(`${key}.gone`, key);
    const first = await sale();
    assert.equal(first.json.TraC.Result.RC, 'OK', first.text);
    assert.match(first.json.TraC.Fis.Code, /_R1-AT0_KASSE-7_\d+_2026-11-20T10:00:00_6,00_0,00_0,00_0,00_0,00_[^_]+_U:ATU12345678-K0_/);
    // a failure, then the device is back: a Sammelbeleg first
    renameSync(key, `${key}.gone`);
    const during = await sale();
    assert.ok(during.json.TraC.Fis.Tag.some((t: { Value: string }) => t.Value === 'Sicherheitseinrichtung ausgefallen'));
    renameSync(`${key}.gone`, key);
    await sale();
    clock.set(new Date(2027, 0, 5, 9, 0, 0));
    await sale();
    const rsns = ((await (await request(`${svc.url}/find?sort=asc&nfs=NULL&limit=100rows`)).body.json()) as { Find: { Records: Array<{ ESR: { Rsn: string } }> } }).Find.Records.map((r) => r.ESR.Rsn);
    assert.deepEqual(rsns, ['Startbeleg', 'Sammelbeleg', 'Jahresbeleg']);
    // the export: without the AES key unless asked; with it, everything verifies
    const work = tempDir('efr-at-');
    try {
      const plain = await request(`${svc.url}/export?type=dep`);
      const files = await unzip(Buffer.from(await plain.body.arrayBuffer()), work);
      assert.ok(!('base64AESKey' in JSON.parse(files['cryptographicMaterialContainer.json'] as string)));
      const full = await request(`${svc.url}/export?type=dep&aes=1`);
      writeFileSync(join(work, 'full.zip'), Buffer.from(await full.body.arrayBuffer()));
      const r = efrVerify(join(work, 'full.zip'));
      assert.equal(r.code, 0, r.out);
      assert.match(r.out, /OK: 7 receipts.*turnover counter verifies/); // start, 4 sales, Sammelbeleg, Jahresbeleg
    } finally {
      rmSync(work, { recursive: true, force: true });
    }
    // a POS's TN is the receipt number: it cannot come back in another year
    const t1 = await post(`${svc.url}/register`, { Tra: { ESR: { TN: 'R-1', PosA: [{ _: 'Pos', Dsc: 'Wein', TaxG: 'A', Amt: '6.00' }], PayA: [{ _: 'Pay', Dsc: 'Bar', Amt: '6.00' }] } } });
    assert.equal(t1.json.TraC.Result.RC, 'OK', t1.text);
    clock.set(new Date(2028, 0, 5, 9, 0, 0));
    const again = await post(`${svc.url}/register`, { Tra: { ESR: { TN: 'R-1', PosA: [{ _: 'Pos', Dsc: 'Bier', TaxG: 'A', Amt: '4.00' }], PayA: [{ _: 'Pay', Dsc: 'Bar', Amt: '4.00' }] } } });
    assert.equal(again.json.TraC.Result.ErrorCode, '#TN_USED');
    // a non-fiscal document with Test=1 does not enter the chain
    const nf = await post(`${svc.url}/register`, { Tra: { ESR: { NFS: 'LOGIN', Test: '1' } } });
    assert.equal(nf.json.TraC.Result.RC, 'OK', nf.text);
    assert.doesNotMatch(String(nf.json.TraC.Fis.Code), /_R1-AT/);
  } finally {
    await svc.stop();
  }
});
