/**
 * Norway through POST /register: a day with a login, sales, a return, a training receipt, a copy (a second
 * copy refused), a drawer opened, an X report, a Z report and a logout; GET /export?type=saft validated
 * with xmllint against the official SAF-T Cash Register schema, every signature checked with
 * `openssl dgst -sha1 -verify` and the exported public key (independently of our verifier), and
 * `efr verify --country no` on the export and on a tampered copy.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { request } from 'undici';
import { ZipFile } from 'yazl';
import { vectorPath } from '../src/shared/testing.js';
import { ROOT, get, post, startTestService, tempDir, unzip } from './helpers.js';

const CFG = { Cfg: { Cmp: { Nam: 'Kafé Nord AS', Adr: 'Storgata 1', Zip: '0155', City: 'Oslo', Ctry: 'NO', TaxId: 'NO999999999MVA' }, Loc: { TL: '1', Nam: 'Kafé Nord' }, Trm: { TT: '1' } } };
const XSD = vectorPath('no-saft', 'Norwegian_SAF-T_Cash_Register_Schema_v_1.00.xsd');

function tra(esr: Record<string, unknown>): { Tra: { ESR: Record<string, unknown> } } {
  return { Tra: { ESR: { TL: '1', TT: '1', Opr: '7', OprN: 'Kari', ...esr } } };
}

function sale(a: string, b: string, extra: Record<string, unknown> = {}): { Tra: { ESR: Record<string, unknown> } } {
  const cents = BigInt(a.replace('.', '')) + BigInt(b.replace('.', ''));
  const t = `${cents < 0n ? '-' : ''}${(cents < 0n ? -cents : cents) / 100n}.${String((cents < 0n ? -cents : cents) % 100n).padStart(2, '0')}`;
  return tra({
    PosA: [
      { _: 'Pos', PN: '1', Dsc: 'Kaffe', TaxG: 'A', Amt: a },
      { _: 'Pos', PN: '2', Dsc: 'Bolle', TaxG: 'B', Amt: b },
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

function efrVerify(file: string): { code: number | null; out: string } {
  const r = spawnSync(process.execPath, ['--import', 'tsx', join(ROOT, 'src/cli.ts'), 'verify', '--country', 'no', file], { cwd: ROOT, encoding: 'utf8', timeout: 60_000 });
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

test('Norway: signed cash transactions and events of a day, the SAF-T Cash Register export valid, its signatures verified by openssl, a tampered copy caught', async () => {
  const work = tempDir('efr-no-work-');
  const svc = await startTestService({ dataDir: tempDir('efr-no-') });
  try {
    assert.equal((await post(`${svc.url}/cfg`, CFG)).status, 200);
    const ok = async (body: object): Promise<{ FN?: string; Signature?: string; Tag?: Array<{ Name: string; Value: string }>; X?: { T: string } }> => {
      const r = await post(`${svc.url}/register`, body);
      assert.equal(r.status, 200, r.text);
      return r.json.TraC.Fis;
    };
    await ok(tra({ NFS: 'LOGIN' }));
    const s1 = await ok(sale('40.00', '23.00'));
    assert.equal(s1.FN, '1');
    assert.equal(Buffer.from(s1.Signature ?? '', 'base64').length, 128, 'RSA-1024: 128 bytes');
    assert.ok(s1.Tag?.some((t) => t.Name === 'Heading' && t.Value === 'Salgskvittering'));
    assert.ok(s1.Tag?.some((t) => t.Name === 'OrgNr' && t.Value === '999999999 MVA'));
    const s2 = await ok(sale('12.50', '0.00'));
    const ret = await ok(sale('-40.00', '0.00', { RFN: s1.FN }));
    assert.ok(ret.Tag?.some((t) => t.Value === 'Returkvittering'));
    const training = await ok(sale('10.00', '5.00', { Test: '1' }));
    assert.ok(training.Tag?.some((t) => /Treningskvittering/.test(t.Value)));
    const copy = await ok(tra({ NFS: 'DUP', RFN: s2.FN }));
    assert.ok(copy.Tag?.some((t) => t.Value === 'KOPI'));
    const second = await post(`${svc.url}/register`, tra({ NFS: 'DUP', RFN: s2.FN }));
    assert.equal(second.status, 400, 'one copy per receipt');
    assert.equal((await post(`${svc.url}/register`, { Audit: { Type: 'DrawerOpen', Opr: '7' } })).status, 200);
    const x = await ok(tra({ NFS: 'X' }));
    // the day so far: 63.00 + 12.50 - 40.00 (training not counted)
    assert.equal(x.X?.T, '35.50');
    // the X report is printed with its figures (the last receipt is the X)
    const printed = (await get(`${svc.url}/render/text`)).text;
    assert.match(printed, /X-rapport/);
    assert.match(printed, /^Turnover +35\.50$/m);
    assert.match(printed, /^A 25 % +10\.00 +2\.50 +12\.50$/m);
    assert.doesNotMatch(printed, /X T |X VAT/, 'a report, not field names of the record');
    await ok(tra({ NFS: 'Z' }));
    await ok(tra({ NFS: 'LOGOUT' }));
    const s3 = await ok(sale('25.00', '0.00'));
    assert.equal(s3.FN, '5', 'training receipts are numbered and signed in the same chain');

    const zip = await download(`${svc.url}/export?type=saft`);
    const files = await unzip(zip, work);
    const xmlName = Object.keys(files).find((n) => n.endsWith('.xml')) ?? '';
    assert.match(xmlName, /^SAF-T Cash Register_999999999_\d{14}\.xml$/);
    const pem = files['public-key-1.pem'] ?? '';
    assert.match(pem, /BEGIN PUBLIC KEY/);
    const xml = files[xmlName] ?? '';
    const xmlFile = join(work, 'saft.xml');
    writeFileSync(xmlFile, xml);
    const lint = spawnSync('xmllint', ['--noout', '--schema', XSD, xmlFile], { encoding: 'utf8' });
    assert.equal(lint.status, 0, `xmllint: ${lint.stderr}`);
    for (const code of ['13003', '13004', '13005', '13008', '13009', '13014', '13017']) assert.ok(xml.includes(`<predefinedBasicID>${code}</predefinedBasicID>`), `event code ${code} declared`);
    assert.match(xml, /<reportType>X report<\/reportType>/);
    assert.match(xml, /<reportType>Z report<\/reportType>/);
    assert.match(xml, /<trainingID>true<\/trainingID>/);
    assert.match(xml, /<receiptCopyNum>1<\/receiptCopyNum>/);

    // every signature, with openssl and the exported public key, over the string the regulation names
    writeFileSync(join(work, 'pub.pem'), pem);
    const txs = [...xml.matchAll(/<cashtransaction>([\s\S]*?)<\/cashtransaction>/g)].map((m) => m[1] ?? '');
    assert.equal(txs.length, 5);
    let prev = '0';
    for (const t of txs) {
      const head = t.replace(/<ctLine>[\s\S]*?<\/ctLine>/g, '');
      const data = [prev, field(head, 'transDate'), field(head, 'transTime'), field(head, 'nr'), field(head, 'transAmntIn'), field(head, 'transAmntEx')].join(';');
      const signature = field(head, 'signature');
      writeFileSync(join(work, 'data.txt'), data);
      writeFileSync(join(work, 'sig.bin'), Buffer.from(signature, 'base64'));
      const v = spawnSync('openssl', ['dgst', '-sha1', '-verify', join(work, 'pub.pem'), '-signature', join(work, 'sig.bin'), join(work, 'data.txt')], { encoding: 'utf8' });
      assert.equal(v.status, 0, `nr ${field(head, 'nr')}: ${v.stdout}${v.stderr} (${data})`);
      assert.match(v.stdout, /Verified OK/);
      prev = signature;
    }
    assert.equal(field(txs[0] ?? '', 'transAmntIn'), '63.00');
    assert.equal(field(txs[0] ?? '', 'transAmntEx'), '52.00', '40.00 at 25 % and 23.00 at 15 %: 32.00 + 20.00 net');

    // our verifier on the export, and on a copy with one amount changed
    const exportFile = join(work, 'export.zip');
    writeFileSync(exportFile, zip);
    const good = efrVerify(exportFile);
    assert.equal(good.code, 0, good.out);
    const tampered = xml.replace('<transAmntIn>12.50</transAmntIn>', '<transAmntIn>2.50</transAmntIn>');
    assert.notEqual(tampered, xml);
    const badFile = join(work, 'tampered.zip');
    await zipOf({ [xmlName]: tampered, 'public-key-1.pem': pem }, badFile);
    const bad = efrVerify(badFile);
    assert.notEqual(bad.code, 0, bad.out);
    assert.match(bad.out, /nr 2\b/);

    // the period: from/till limit the transactions
    const day = String(readFileSync(xmlFile, 'utf8').match(/<transDate>([^<]+)<\/transDate>/)?.[1]);
    const period = await unzip(await download(`${svc.url}/export?type=saft&from=${day}&till=${day}`), tempDir('efr-no-period-'));
    assert.ok(Object.keys(period).some((n) => n.endsWith('.xml')));
    assert.equal((await get(`${svc.url}/export?type=saft&from=2001-01-01&till=2001-01-02`)).status, 200);
  } finally {
    await svc.close();
  }
});

test('Norway: a copy names an existing receipt, training reports stay events outside the Z, the key is in the backup and a lost key stops signing', async () => {
  const dataDir = tempDir('efr-no-rules-');
  let svc = await startTestService({ dataDir });
  try {
    assert.equal((await post(`${svc.url}/cfg`, CFG)).status, 200);
    const noRfn = await post(`${svc.url}/register`, tra({ NFS: 'DUP' }));
    assert.equal(noRfn.status, 400, noRfn.text);
    assert.equal(noRfn.json.TraC.Result.ErrorCode, '#MISSING_FIELD');
    const unknown = await post(`${svc.url}/register`, tra({ NFS: 'DUP', RFN: '999' }));
    assert.equal(unknown.status, 400, unknown.text);
    const a = await post(`${svc.url}/register`, sale('100.00', '0.00'));
    assert.equal(a.status, 200, a.text);
    // a Z in training mode: an event, not signed, not the day's Z
    const trainingZ = await post(`${svc.url}/register`, tra({ NFS: 'Z', Test: '1' }));
    assert.equal(trainingZ.status, 200, trainingZ.text);
    assert.equal(trainingZ.json.TraC.Fis.KeyVersion, undefined, 'not signed with the chain key');
    assert.equal(trainingZ.json.TraC.Fis.FN, undefined);
    const b = await post(`${svc.url}/register`, sale('25.00', '0.00'));
    assert.equal(b.json.TraC.Fis.FN, '2', 'the training Z took no number of the chain');
    const z = await post(`${svc.url}/register`, tra({ NFS: 'Z' }));
    assert.equal(z.json.TraC.Fis.Z.T, '125.00');
    const files = await unzip(await download(`${svc.url}/export?type=saft`), tempDir('efr-no-rules-x-'));
    const xml = Object.entries(files).find(([n]) => n.endsWith('.xml'))?.[1] ?? '';
    const reports = [...xml.matchAll(/<eventReport>([\s\S]*?)<\/eventReport>/g)].map((m) => m[1] ?? '');
    assert.equal(reports.length, 1, 'one Z report: the training Z is none');
    assert.equal(field(reports[0] ?? '', 'reportID'), z.json.TraC.Fis.Z.ZI);
    assert.equal(field(reports[0] ?? '', 'totalCashSaleAmnt'), '125.00');

    const backup = await download(`${svc.url}/backup`);
    const names = Object.keys(await unzip(backup, tempDir('efr-no-rules-b-')));
    assert.ok(names.includes('files/keys/no-saft-rsa1024.pem'), names.join(', '));

    // the key lost after the chain was signed: no new key under the same version, the transaction refused
    await svc.close();
    rmSync(join(dataDir, 'keys', 'no-saft-rsa1024.pem'));
    svc = await startTestService({ dataDir });
    const lost = await post(`${svc.url}/register`, sale('5.00', '0.00'));
    assert.equal(lost.status, 406, lost.text);
    assert.equal(lost.json.TraC.Result.ErrorCode, '#DEVICE_FAILED');
    assert.ok(!existsSync(join(dataDir, 'keys', 'no-saft-rsa1024.pem')), 'no new key was made');
  } finally {
    await svc.close();
  }
});
