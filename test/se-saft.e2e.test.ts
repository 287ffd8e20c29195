/**
 * Sweden through POST /register: a day with a login, sales, a return, a training receipt, a copy (a second
 * copy refused), a drawer opened, an X report, a Z report and a logout; every receipt's control code and
 * control unit printed in Swedish, the X/Z reports' figures; GET /export?type=saft validated with xmllint
 * against the SAF-T Cash Register schema (the Norwegian v1.00 in Sweden's namespace), every signature
 * checked with `openssl dgst -sha256 -verify` and the exported public key of the control unit, and
 * `efr verify --country se` on the export, with the key pinned, and on tampered copies.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { request } from 'undici';
import { ZipFile } from 'yazl';
import { vectorPath } from '../src/shared/testing.js';
import { ROOT, get, post, startTestService, tempDir, unzip } from './helpers.js';

const CFG = {
  Cfg: {
    Cmp: { Nam: 'Kaffe Nord AB', Adr: 'Storgatan', AdrNr: '1', Zip: '111 22', City: 'Stockholm', Ctry: 'SE', TaxId: 'SE556677889901', Org: '556677-8899' },
    Loc: { TL: '1', Nam: 'Kaffe Nord' },
    Trm: { TT: 'K1', Serial: 'POS-0042' },
  },
};
const XSD = vectorPath('no-saft', 'Norwegian_SAF-T_Cash_Register_Schema_v_1.00.xsd');

type Fis = { FN?: string; Signature?: string; ControlCode?: string; ControlUnit?: string; CopySignature?: string; Tag?: Array<{ Name: string; Label: string; Value: string }>; X?: { T: string }; Z?: { ZI: string; T: string } };

function tra(esr: Record<string, unknown>): { Tra: { ESR: Record<string, unknown> } } {
  return { Tra: { ESR: { TL: '1', TT: 'K1', Opr: '7', OprN: 'Karin', ...esr } } };
}

/** A receipt of two positions at 25 % (A) and 12 % (B), paid in cash (refunded when negative). */
function sale(a: string, b: string, extra: Record<string, unknown> = {}): { Tra: { ESR: Record<string, unknown> } } {
  const cents = BigInt(a.replace('.', '')) + BigInt(b.replace('.', ''));
  const abs = cents < 0n ? -cents : cents;
  const t = `${cents < 0n ? '-' : ''}${abs / 100n}.${String(abs % 100n).padStart(2, '0')}`;
  return tra({
    PosA: [
      { _: 'Pos', PN: '1', Dsc: 'Kaffe', TaxG: 'A', Amt: a },
      { _: 'Pos', PN: '2', Dsc: 'Bulle', TaxG: 'B', Amt: b },
    ],
    PayA: [{ _: 'Pay', Dsc: cents < 0n ? 'Retur' : 'Kontant', PayG: cents < 0n ? 'refund' : 'cash', Amt: t }],
    ...extra,
  });
}

async function download(url: string): Promise<Buffer> {
  const res = await request(url);
  const body = Buffer.from(await res.body.arrayBuffer());
  assert.equal(res.statusCode, 200, body.toString('utf8').slice(0, 500));
  return body;
}

function efrVerify(file: string, ...keys: string[]): { code: number | null; out: string } {
  const args = ['--import', 'tsx', join(ROOT, 'src/cli.ts'), 'verify', '--country', 'se', ...keys.flatMap((k) => ['--key', k]), file];
  const r = spawnSync(process.execPath, args, { cwd: ROOT, encoding: 'utf8', timeout: 60_000 });
  return { code: r.status, out: `${r.stdout}${r.stderr}` };
}

async function zipOf(files: Record<string, string>, path: string): Promise<void> {
  const zip = new ZipFile();
  for (const [name, text] of Object.entries(files)) zip.addBuffer(Buffer.from(text), name);
  zip.end();
  const chunks: Buffer[] = [];
  for await (const c of zip.outputStream) chunks.push(c as Buffer);
  writeFileSync(path, Buffer.concat(chunks));
}

const field = (xml: string, name: string): string => new RegExp(`<${name}>([^<]*)</${name}>`).exec(xml)?.[1] ?? '';
const tag = (fis: Fis, name: string): string | undefined => fis.Tag?.find((t) => t.Name === name)?.Value;
const tagOf = (fis: Fis, label: string): string | undefined => fis.Tag?.find((t) => t.Label === label)?.Value;

/** The control code printed: base32 (RFC 4648) of the first 20 bytes of SHA-256 over the signature, computed here independently. */
function controlCode(signatureBase64: string): string {
  const bytes = createHash('sha256').update(Buffer.from(signatureBase64, 'base64')).digest().subarray(0, 20);
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
  const bits = [...bytes].map((b) => b.toString(2).padStart(8, '0')).join('');
  return (bits.match(/.{1,5}/g) ?? []).map((g) => alphabet[parseInt(g.padEnd(5, '0'), 2)]).join('');
}

test('Sweden: a day of receipts signed by the control unit, copies and training marked, X/Z figures, the SAF-T export valid, its signatures verified by openssl and efr verify, tampering caught', async () => {
  const work = tempDir('efr-se-work-');
  const svc = await startTestService({ dataDir: tempDir('efr-se-') });
  try {
    assert.equal((await post(`${svc.url}/cfg`, CFG)).status, 200);
    const ok = async (body: object): Promise<Fis> => {
      const r = await post(`${svc.url}/register`, body);
      assert.equal(r.status, 200, r.text);
      return r.json.TraC.Fis as Fis;
    };
    await ok(tra({ NFS: 'LOGIN' }));
    const s1 = await ok(sale('40.00', '22.40'));
    assert.equal(s1.FN, '1');
    assert.equal(Buffer.from(s1.Signature ?? '', 'base64').length, 64, 'ECDSA P-256 r‖s: 64 bytes');
    assert.equal(tag(s1, 'Heading'), 'KVITTO');
    assert.equal(tagOf(s1, 'Org.nr'), '556677-8899');
    assert.equal(tagOf(s1, 'Kvittonr'), '1');
    assert.equal(tagOf(s1, 'Kassa'), 'K1');
    assert.equal(tagOf(s1, 'Kassans tillverkningsnr'), 'POS-0042');
    assert.equal(tagOf(s1, 'Moms 25.00 %'), '8.00');
    assert.equal(tagOf(s1, 'Moms 12.00 %'), '2.40');
    assert.equal(tagOf(s1, 'Kontrollkod'), controlCode(s1.Signature ?? ''));
    assert.match(tagOf(s1, 'Kontrollkod') ?? '', /^[A-Z2-7]{32}$/);
    assert.match(tagOf(s1, 'Kontrollenhet') ?? '', /^EFRSE[0-9A-F]{12}$/);
    const s2 = await ok(sale('12.50', '0.00'));
    const ret = await ok(sale('-40.00', '0.00', { RFN: s1.FN }));
    assert.equal(tag(ret, 'Heading'), 'RETURKVITTO');
    const training = await ok(sale('10.00', '5.60', { Test: '1' }));
    assert.equal(tag(training, 'Heading'), 'ÖVNINGSKVITTO');
    assert.equal(training.FN, '4', 'a training receipt is numbered and signed in the register chain, marked');
    const copy = await ok(tra({ NFS: 'DUP', RFN: s2.FN }));
    assert.equal(tag(copy, 'Heading'), 'KOPIA');
    assert.equal(tagOf(copy, 'Kvittonr'), s2.FN, 'the copy carries the original number');
    assert.equal(copy.FN, undefined, 'a copy takes no number');
    assert.equal(tagOf(copy, 'Kontrollkod'), controlCode(copy.CopySignature ?? ''));
    assert.notEqual(tagOf(copy, 'Kontrollkod'), tagOf(s2, 'Kontrollkod'), 'the copy has a control code of its own');
    const second = await post(`${svc.url}/register`, tra({ NFS: 'DUP', RFN: s2.FN }));
    assert.equal(second.status, 400, 'one copy per receipt');
    assert.match(second.text, /one copy of a receipt/);
    assert.equal((await post(`${svc.url}/register`, { Audit: { Type: 'DrawerOpen', Opr: '7' } })).status, 200);

    // the printed receipt: the Swedish lines are on it
    const printed = (await get(`${svc.url}/render/text?fn=${s2.FN ?? ''}`)).text;
    assert.match(printed, /KVITTO/);
    for (const value of [tagOf(s2, 'Kontrollkod'), tagOf(s2, 'Kontrollenhet'), '556677-8899']) assert.ok(value && printed.includes(value), `${value ?? ''} printed:\n${printed}`);

    const x = await ok(tra({ NFS: 'X' }));
    // the day so far: 62.40 + 12.50 - 40.00 (training not counted)
    assert.equal(x.X?.T, '34.90');
    assert.equal(tag(x, 'Heading'), 'X-DAGRAPPORT');
    assert.equal(tagOf(x, 'Försäljning totalt'), '34.90');
    assert.equal(tagOf(x, 'Antal kvitton'), '2');
    assert.equal(tagOf(x, 'Returer, antal'), '1');
    assert.equal(tagOf(x, 'Returer, belopp'), '40.00');
    assert.equal(tagOf(x, 'Kvittokopior, antal'), '1');
    assert.equal(tagOf(x, 'Kvittokopior, belopp'), '12.50');
    assert.equal(tagOf(x, 'Övningskvitton, antal'), '1');
    assert.equal(tagOf(x, 'Övningskvitton, belopp'), '15.60');
    assert.equal(tagOf(x, 'Moms 25.00 %'), '2.50', '8.00 + 2.50 - 8.00');
    assert.equal(tagOf(x, 'Moms 12.00 %'), '2.40');
    assert.equal(tagOf(x, 'Kontant'), '74.90');
    assert.equal(tagOf(x, 'Återbetalning'), '-40.00');
    assert.equal(tagOf(x, 'Lådöppningar'), '3');
    assert.equal(tagOf(x, 'Grand total försäljning'), '74.90');
    assert.equal(tagOf(x, 'Grand total retur'), '40.00');
    assert.equal(tagOf(x, 'Grand total netto'), '34.90');
    const printedX = (await get(`${svc.url}/render/text`)).text;
    assert.match(printedX, /X-DAGRAPPORT/);
    assert.match(printedX, /Grand total netto/);
    assert.match(printedX, /Pro forma-kvitton/);
    const z = await ok(tra({ NFS: 'Z' }));
    assert.equal(tag(z, 'Heading'), 'Z-DAGRAPPORT');
    assert.equal(tagOf(z, 'Z-dagrapport nr'), z.Z?.ZI);
    assert.equal(tagOf(z, 'Försäljning totalt'), z.Z?.T);
    await ok(tra({ NFS: 'LOGOUT' }));
    const s3 = await ok(sale('25.00', '0.00'));
    assert.equal(s3.FN, '5');
    const x2 = await ok(tra({ NFS: 'X' }));
    assert.equal(tagOf(x2, 'Antal kvitton'), '1', 'the Z closed the day');
    assert.equal(tagOf(x2, 'Kvittokopior, antal'), '0');
    assert.equal(tagOf(x2, 'Grand total försäljning'), '99.90', 'the grand totals go on');

    const zip = await download(`${svc.url}/export?type=saft`);
    const files = await unzip(zip, work);
    const xmlName = Object.keys(files).find((n) => n.endsWith('.xml')) ?? '';
    assert.match(xmlName, /^SAF-T Cash Register_5566778899_\d{14}\.xml$/);
    const unitId = tagOf(s1, 'Kontrollenhet') ?? '';
    const pem = files[`control-unit-${unitId}.pem`] ?? '';
    assert.match(pem, /BEGIN PUBLIC KEY/);
    const xml = files[xmlName] ?? '';
    const xmlFile = join(work, 'saft.xml');
    writeFileSync(xmlFile, xml);
    // the Norwegian schema in Sweden's namespace: the file has its layout
    const xsd = join(work, 'se.xsd');
    writeFileSync(xsd, readFileSync(XSD, 'utf8').replaceAll('urn:StandardAuditFile-Taxation-CashRegister:NO', 'urn:StandardAuditFile-Taxation-CashRegister:SE'));
    const lint = spawnSync('xmllint', ['--noout', '--schema', xsd, xmlFile], { encoding: 'utf8' });
    assert.equal(lint.status, 0, `xmllint: ${lint.stderr}`);
    assert.match(xml, /<curCode>SEK<\/curCode>/);
    assert.match(xml, /<companyIdent>5566778899<\/companyIdent>/);
    for (const code of ['13003', '13004', '13005', '13008', '13009', '13014', '13017']) assert.ok(xml.includes(`<predefinedBasicID>${code}</predefinedBasicID>`), `event code ${code} declared`);
    assert.match(xml, /<reportType>Z report<\/reportType>/);
    assert.match(xml, /<trainingID>true<\/trainingID>/);
    assert.match(xml, /<receiptCopyNum>1<\/receiptCopyNum>/);
    assert.match(xml, new RegExp(`<eventText>Kopia av kvitto nr 2; kontrollenhet ${unitId}; signatur [A-Za-z0-9+/=]{88}</eventText>`));

    // every receipt signature, with openssl and the exported public key, over the control data as documented
    writeFileSync(join(work, 'pub.pem'), pem);
    const opensslVerify = (data: string, signatureB64: string): void => {
      const raw = Buffer.from(signatureB64, 'base64');
      // openssl wants DER: r‖s as an ASN.1 SEQUENCE of two INTEGERs
      const int = (b: Buffer): Buffer => {
        let v = b;
        while (v.length > 1 && v[0] === 0 && ((v[1] ?? 0) & 0x80) === 0) v = v.subarray(1);
        if (((v[0] ?? 0) & 0x80) !== 0) v = Buffer.concat([Buffer.from([0]), v]);
        return Buffer.concat([Buffer.from([0x02, v.length]), v]);
      };
      const body = Buffer.concat([int(raw.subarray(0, 32)), int(raw.subarray(32))]);
      writeFileSync(join(work, 'data.txt'), data);
      writeFileSync(join(work, 'sig.der'), Buffer.concat([Buffer.from([0x30, body.length]), body]));
      const v = spawnSync('openssl', ['dgst', '-sha256', '-verify', join(work, 'pub.pem'), '-signature', join(work, 'sig.der'), join(work, 'data.txt')], { encoding: 'utf8' });
      assert.equal(v.status, 0, `${v.stdout}${v.stderr} (${data})`);
      assert.match(v.stdout, /Verified OK/);
    };
    const txs = [...xml.matchAll(/<cashtransaction>([\s\S]*?)<\/cashtransaction>/g)].map((m) => m[1] ?? '');
    assert.equal(txs.length, 5);
    let prev = '0';
    for (const t of txs) {
      const head = t.replace(/<ctLine>[\s\S]*?<\/ctLine>/g, '');
      const vat = [...head.matchAll(/<vat>([\s\S]*?)<\/vat>/g)].map((m) => `${field(m[1] ?? '', 'vatPerc')}=${field(m[1] ?? '', 'vatAmnt')}`).join(',');
      const type = field(head, 'trainingID') === 'true' ? 'ovning' : 'normal';
      const data = ['SE1', prev, '5566778899', 'K1', field(head, 'transDate'), field(head, 'transTime'), field(head, 'nr'), type, field(head, 'transAmntIn'), field(head, 'transAmntEx'), vat].join(';');
      opensslVerify(data, field(head, 'signature'));
      prev = field(head, 'signature');
    }
    assert.equal(field(txs[0] ?? '', 'transAmntIn'), '62.40');
    assert.equal(field(txs[0] ?? '', 'transAmntEx'), '52.00', '40.00 at 25 % and 22.40 at 12 %: 32.00 + 20.00 net');
    // the copy: chained to its original's signature, with the copy's own date and time
    const t2 = (txs[1] ?? '').replace(/<ctLine>[\s\S]*?<\/ctLine>/g, '');
    const copyEvent = /<event>((?:(?!<\/event>)[\s\S])*?<eventType>COPYREC<\/eventType>[\s\S]*?)<\/event>/.exec(xml)?.[1] ?? '';
    const copyData = ['SE1', field(t2, 'signature'), '5566778899', 'K1', field(copyEvent, 'eventDate'), field(copyEvent, 'eventTime'), '2', 'kopia', '12.50', '10.00', '25.00=2.50,12.00=0.00'].join(';');
    opensslVerify(copyData, copy.CopySignature ?? '');

    // our verifier on the export, with the key pinned, and on copies with one value changed
    const exportFile = join(work, 'export.zip');
    writeFileSync(exportFile, zip);
    const good = efrVerify(exportFile);
    assert.equal(good.code, 0, good.out);
    assert.match(good.out, /all 5 receipt signatures verify/);
    assert.match(good.out, /1 copy signatures verify/);
    assert.equal(efrVerify(exportFile, join(work, 'pub.pem')).code, 0);
    const otherKey = join(work, 'other.pem');
    spawnSync('openssl', ['ecparam', '-name', 'prime256v1', '-genkey', '-noout', '-out', join(work, 'other-priv.pem')]);
    spawnSync('openssl', ['ec', '-in', join(work, 'other-priv.pem'), '-pubout', '-out', otherKey]);
    const pinnedOther = efrVerify(exportFile, otherKey);
    assert.notEqual(pinnedOther.code, 0, pinnedOther.out);
    assert.match(pinnedOther.out, /signed with another key/);
    const tampered = async (from: string, to: string, name: string): Promise<{ code: number | null; out: string }> => {
      const changed = xml.replace(from, to);
      assert.notEqual(changed, xml, from);
      const file = join(work, name);
      await zipOf({ [xmlName]: changed, [`control-unit-${unitId}.pem`]: pem }, file);
      return efrVerify(file);
    };
    const amount = await tampered('<transAmntIn>12.50</transAmntIn>', '<transAmntIn>2.50</transAmntIn>', 'amount.zip');
    assert.notEqual(amount.code, 0, amount.out);
    assert.match(amount.out, /nr 2\b/);
    // the VAT of the first receipt's own VAT block (after its lines), not of a line
    const tx1 = txs[0] ?? '';
    const tx1Vat = tx1.slice(tx1.lastIndexOf('</ctLine>'));
    const vatChanged = await tampered(tx1, tx1.slice(0, tx1.length - tx1Vat.length) + tx1Vat.replace('<vatAmnt>2.40</vatAmnt>', '<vatAmnt>2.30</vatAmnt>'), 'vat.zip');
    assert.notEqual(vatChanged.code, 0, vatChanged.out);
    assert.match(vatChanged.out, /nr 1\b/);
    // the journal export: its own chain, and the control unit's signatures from the records, with the unit's key
    const jouFile = join(tempDir('efr-se-jou-'), 'jou.zip');
    writeFileSync(jouFile, await download(`${svc.url}/export?type=jou`));
    const jouGood = efrVerify(jouFile, join(work, 'pub.pem'));
    assert.equal(jouGood.code, 0, jouGood.out);
    assert.match(jouGood.out, /control unit: OK: 5 cashtransactions in 1 registers, all 5 receipt signatures verify/);
    assert.match(jouGood.out, /1 copy signatures verify/);
    const jouNoKey = efrVerify(jouFile);
    assert.notEqual(jouNoKey.code, 0, jouNoKey.out);
    assert.match(jouNoKey.out, /give it with --key/);
    const copyTime = await tampered(copyEvent, copyEvent.replace(/<eventTime>[^<]*<\/eventTime>/, '<eventTime>23:59:59</eventTime>'), 'copy.zip');
    assert.notEqual(copyTime.code, 0, copyTime.out);
    assert.match(copyTime.out, /copy/);
  } finally {
    await svc.close();
  }
});

test('Sweden: receipts need the organisation number and the control unit; its key is in the backup and signs on after a restore, a lost key stops every receipt', async () => {
  const dataDir = tempDir('efr-se-rules-');
  let svc = await startTestService({ dataDir });
  try {
    const noOrg = { Cfg: { ...CFG.Cfg, Cmp: { Nam: 'Kaffe Nord AB', Ctry: 'SE' } } };
    assert.equal((await post(`${svc.url}/cfg`, noOrg)).status, 200);
    const refused = await post(`${svc.url}/register`, sale('10.00', '0.00'));
    assert.equal(refused.status, 400, refused.text);
    assert.equal(refused.json.TraC.Result.ErrorCode, '#MISSING_FIELD');
    assert.match(refused.text, /Cfg\.Cmp\.Org/);
    const badOrg = { Cfg: { ...CFG.Cfg, Cmp: { ...CFG.Cfg.Cmp, Org: '556677-8898' } } };
    assert.equal((await post(`${svc.url}/cfg`, badOrg)).status, 200);
    const wrongDigit = await post(`${svc.url}/register`, sale('10.00', '0.00'));
    assert.equal(wrongDigit.status, 400, wrongDigit.text);
    assert.equal(wrongDigit.json.TraC.Result.ErrorCode, '#INVALID_VALUE');
    assert.equal((await post(`${svc.url}/cfg`, CFG)).status, 200);
    const a = await post(`${svc.url}/register`, sale('100.00', '0.00'));
    assert.equal(a.status, 200, a.text);
    assert.equal(a.json.TraC.Fis.FN, '1', 'the refused receipts took no number');
    const noRfn = await post(`${svc.url}/register`, tra({ NFS: 'DUP' }));
    assert.equal(noRfn.status, 400, noRfn.text);
    assert.equal(noRfn.json.TraC.Result.ErrorCode, '#MISSING_FIELD');

    const backup = await download(`${svc.url}/backup`);
    const names = Object.keys(await unzip(backup, tempDir('efr-se-rules-b-')));
    assert.ok(names.some((n) => /^files\/se\/def\/control-unit\.key\.pem$/.test(n)), names.join(', '));

    // restored into a fresh instance: the same control unit signs on, one chain across the restore
    const fresh = await startTestService({ dataDir: tempDir('efr-se-restored-') });
    try {
      const restored = await request(`${fresh.url}/backup/restore`, { method: 'POST', body: backup, headers: { 'content-type': 'application/zip' } });
      assert.equal(restored.statusCode, 200, await restored.body.text());
      const b = await post(`${fresh.url}/register`, sale('7.00', '0.00'));
      assert.equal(b.status, 200, b.text);
      assert.equal(b.json.TraC.Fis.FN, '2');
      assert.equal(b.json.TraC.Fis.ControlUnit, a.json.TraC.Fis.ControlUnit, 'the restored unit');
      const work = tempDir('efr-se-restored-x-');
      const exportFile = join(work, 'export.zip');
      writeFileSync(exportFile, await download(`${fresh.url}/export?type=saft`));
      const verified = efrVerify(exportFile);
      assert.equal(verified.code, 0, verified.out);
      assert.match(verified.out, /all 2 receipt signatures verify/);
    } finally {
      await fresh.close();
    }

    await svc.close();
    rmSync(join(dataDir, 'se', 'def', 'control-unit.key.pem'));
    svc = await startTestService({ dataDir });
    const lost = await post(`${svc.url}/register`, sale('5.00', '0.00'));
    assert.equal(lost.status, 406, lost.text);
    assert.equal(lost.json.TraC.Result.ErrorCode, '#DEVICE_FAILED');
    assert.ok(!existsSync(join(dataDir, 'se', 'def', 'control-unit.key.pem')), 'no new control unit was made');
    // events need no control unit
    const z = await post(`${svc.url}/register`, tra({ NFS: 'Z' }));
    assert.equal(z.status, 200, z.text);
  } finally {
    await svc.close();
  }
});
