/**
 * Denmark through POST /register: the certificate installed with POST /cer/fiscal, a day with a login,
 * sales, a return, a training receipt, a copy, a drawer opened, an X and a Z report; GET /export?type=saft
 * validated with xmllint against the Danish SAF-T Cash Register schema, every signature checked with
 * `openssl dgst -sha512 -verify` and the public key of the certificate in the file (independently of our
 * verifier), and `efr verify --country dk` on the export and on a tampered copy.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { request } from 'undici';
import { ZipFile } from 'yazl';
import { vectorPath } from '../src/shared/testing.js';
import { ROOT, post, startTestService, tempDir, unzip } from './helpers.js';

const CFG = { Cfg: { Cmp: { Nam: 'Café Nord ApS', Adr: 'Strøget', AdrNr: '1', Zip: '1160', City: 'København K', Ctry: 'DK', TaxId: 'DK12345678' }, Loc: { TL: '1', Nam: 'Café Nord', Adr: 'Strøget', AdrNr: '1', Zip: '1160', City: 'København K', Ctry: 'DK' }, Trm: { TT: 'K1' } } };
const XSD = vectorPath('dk-saft', 'Danish_SAF-T_Cash_Register_Schema_v_1.0.3.xsd');

function tra(esr: Record<string, unknown>): { Tra: { ESR: Record<string, unknown> } } {
  return { Tra: { ESR: { TL: '1', TT: 'K1', Opr: '7', OprN: 'Mette', ...esr } } };
}

function sale(amount: string, extra: Record<string, unknown> = {}): { Tra: { ESR: Record<string, unknown> } } {
  const negative = amount.startsWith('-');
  return tra({ PosA: [{ _: 'Pos', PN: '1', Dsc: 'Kaffe', TaxG: 'A', Amt: amount }], PayA: [{ _: 'Pay', Dsc: negative ? 'Retur' : 'Kontant', PayG: negative ? 'refund' : 'cash', Amt: amount }], ...extra });
}

function openssl(args: string[]): string {
  const r = spawnSync('openssl', args, { encoding: 'utf8' });
  assert.equal(r.status, 0, `openssl ${args.join(' ')}: ${r.stdout}${r.stderr}`);
  return r.stdout;
}

function efrVerify(file: string): { code: number | null; out: string } {
  const r = spawnSync(process.execPath, ['--import', 'tsx', join(ROOT, 'src/cli.ts'), 'verify', '--country', 'dk', file], { cwd: ROOT, encoding: 'utf8', timeout: 60_000 });
  return { code: r.status, out: `${r.stdout}${r.stderr}` };
}

const field = (xml: string, name: string): string => new RegExp(`<${name}>([^<]*)</${name}>`).exec(xml)?.[1] ?? '';

test('Denmark: cash transactions signed SHA-512 with the installed certificate, the SAF-T export valid against the Danish schema, its signatures verified by openssl, a tampered copy caught', async () => {
  const work = tempDir('efr-dk-work-');
  openssl(['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', join(work, 'key.pem'), '-out', join(work, 'cert.pem'), '-days', '30', '-subj', '/C=DK/O=Kasse Software ApS/CN=Kasse POS']);
  openssl(['pkcs12', '-export', '-inkey', join(work, 'key.pem'), '-in', join(work, 'cert.pem'), '-out', join(work, 'cert.p12'), '-passout', 'pass:dk']);
  const svc = await startTestService({ dataDir: tempDir('efr-dk-') });
  try {
    assert.equal((await post(`${svc.url}/cfg`, CFG)).status, 200);
    const none = await post(`${svc.url}/register`, sale('10.00'));
    assert.equal(none.status, 400, 'no certificate: refused before anything is journaled');
    assert.equal(none.json.TraC.Result.ErrorCode, '#FISCAL_CERTIFICATE');
    const up = await post(`${svc.url}/cer/fiscal`, { fiscalCert: readFileSync(join(work, 'cert.p12')).toString('base64'), password: 'dk' });
    assert.equal(up.status, 200, up.text);

    const ok = async (body: object): Promise<Record<string, string>> => {
      const r = await post(`${svc.url}/register`, body);
      assert.equal(r.status, 200, r.text);
      return r.json.TraC.Fis;
    };
    await ok(tra({ NFS: 'LOGIN' }));
    const s1 = await ok(sale('50.00'));
    assert.equal(s1.FN, '1');
    assert.equal(Buffer.from(s1.Signature ?? '', 'base64').length, 256, 'RSA-2048');
    const s2 = await ok(sale('12.50'));
    await ok(sale('-50.00', { RFN: s1.FN }));
    await ok(sale('8.00', { Test: '1' }));
    await ok(tra({ NFS: 'DUP', RFN: s2.FN }));
    assert.equal((await post(`${svc.url}/register`, { Audit: { Type: 'DrawerOpen', Opr: '7' } })).status, 200);
    await ok(tra({ NFS: 'X' }));
    await ok(tra({ NFS: 'Z' }));
    await ok(tra({ NFS: 'LOGOUT' }));

    const res = await request(`${svc.url}/export?type=saft`);
    const zip = Buffer.from(await res.body.arrayBuffer());
    assert.equal(res.statusCode, 200, zip.toString('utf8').slice(0, 300));
    const files = await unzip(zip, work);
    const xmlName = Object.keys(files).find((n) => n.endsWith('.xml')) ?? '';
    assert.match(xmlName, /^SAF-T Cash Register_12345678_\d{14}_1_1\.xml$/);
    const xml = files[xmlName] ?? '';
    const xmlFile = join(work, 'saft.xml');
    writeFileSync(xmlFile, xml);
    const lint = spawnSync('xmllint', ['--noout', '--nonet', '--schema', XSD, xmlFile], { encoding: 'utf8', env: { ...process.env, XML_CATALOG_FILES: vectorPath('dk-saft', 'catalog.xml') } });
    assert.equal(lint.status, 0, `xmllint: ${lint.stderr}`);
    assert.match(xml, /urn:StandardAuditFile-Taxation-CashRegister:DK/);

    // every signature, with openssl and the public key of the certificate in the file, over the Danish string
    const companyIdent = field(xml.slice(xml.indexOf('<company>')), 'companyIdent');
    assert.equal(companyIdent, '12345678');
    const registerId = field(xml.slice(xml.indexOf('<cashregister>')), 'registerID');
    const txs = [...xml.matchAll(/<cashtransaction>([\s\S]*?)<\/cashtransaction>/g)].map((m) => m[1] ?? '');
    assert.equal(txs.length, 4);
    let prev = '0';
    for (const t of txs) {
      const head = t.replace(/<ctLine>[\s\S]*?<\/ctLine>/g, '');
      const pem = /<certificateData>([\s\S]*?)<\/certificateData>/.exec(head)?.[1] ?? '';
      writeFileSync(join(work, 'c.pem'), pem);
      writeFileSync(join(work, 'pub.pem'), openssl(['x509', '-in', join(work, 'c.pem'), '-pubkey', '-noout']));
      const data = [prev, field(head, 'nr'), field(head, 'transID'), field(head, 'transType'), field(head, 'transDate'), field(head, 'transTime'), field(head, 'empID'), field(head, 'transAmntIn'), field(head, 'transAmntEx'), registerId, companyIdent].join(';');
      const signature = field(head, 'signature').replace(/\s+/g, '');
      writeFileSync(join(work, 'data.txt'), data);
      writeFileSync(join(work, 'sig.bin'), Buffer.from(signature, 'base64'));
      assert.match(openssl(['dgst', '-sha512', '-verify', join(work, 'pub.pem'), '-signature', join(work, 'sig.bin'), join(work, 'data.txt')]), /Verified OK/, data);
      prev = signature;
    }

    const exportFile = join(work, 'export.zip');
    writeFileSync(exportFile, zip);
    const good = efrVerify(exportFile);
    assert.equal(good.code, 0, good.out);
    const tampered = xml.replace('<transAmntIn>12.50</transAmntIn>', '<transAmntIn>2.50</transAmntIn>');
    assert.notEqual(tampered, xml);
    const badFile = join(work, 'tampered.zip');
    const z = new ZipFile();
    z.addBuffer(Buffer.from(tampered), xmlName);
    z.end();
    const chunks: Buffer[] = [];
    for await (const c of z.outputStream) chunks.push(c as Buffer);
    writeFileSync(badFile, Buffer.concat(chunks));
    const bad = efrVerify(badFile);
    assert.notEqual(bad.code, 0, bad.out);
    assert.match(bad.out, /nr 2\b/);
  } finally {
    await svc.close();
  }
});

async function zipOf(name: string, text: string): Promise<Buffer> {
  const z = new ZipFile();
  z.addBuffer(Buffer.from(text), name);
  z.end();
  const chunks: Buffer[] = [];
  for await (const c of z.outputStream) chunks.push(c as Buffer);
  return Buffer.concat(chunks);
}

test('Denmark: a fiscal PKCS#12 with its CA chain exports the signing certificate alone; every payment has a paymentRefID; the file validates and verifies, also with a chain in certificateData', async () => {
  const work = tempDir('efr-dk-chain-');
  const w = (f: string): string => join(work, f);
  // a CA of the certificate's issuer and the signing certificate it issued, both in the PKCS#12 file
  openssl(['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', w('ca.key'), '-out', w('ca.pem'), '-days', '30', '-subj', '/C=DK/O=Kasse Rod/CN=Kasse Rod CA']);
  openssl(['req', '-newkey', 'rsa:2048', '-nodes', '-keyout', w('key.pem'), '-out', w('leaf.csr'), '-subj', '/C=DK/O=Kasse Software ApS/CN=Kasse POS']);
  openssl(['x509', '-req', '-in', w('leaf.csr'), '-CA', w('ca.pem'), '-CAkey', w('ca.key'), '-set_serial', '0x5A17', '-out', w('cert.pem'), '-days', '30']);
  openssl(['pkcs12', '-export', '-inkey', w('key.pem'), '-in', w('cert.pem'), '-certfile', w('ca.pem'), '-out', w('chain.p12'), '-passout', 'pass:dk']);
  const leafSerial = openssl(['x509', '-in', w('cert.pem'), '-noout', '-serial']).trim().replace(/^serial=/, '').toUpperCase();
  const svc = await startTestService({ dataDir: tempDir('efr-dk-chain-data-') });
  try {
    assert.equal((await post(`${svc.url}/cfg`, CFG)).status, 200);
    const up = await post(`${svc.url}/cer/fiscal`, { fiscalCert: readFileSync(w('chain.p12')).toString('base64'), password: 'dk' });
    assert.equal(up.status, 200, up.text);
    const pay = (PayG: string, Amt: string, extra: Record<string, string> = {}): Record<string, string> => ({ _: 'Pay', Dsc: PayG, PayG, Amt, ...extra });
    const sell = async (payments: Array<Record<string, string>>, total: string): Promise<Record<string, string>> => {
      const r = await post(`${svc.url}/register`, tra({ PosA: [{ _: 'Pos', PN: '1', Dsc: 'Kaffe', TaxG: 'A', Amt: total }], PayA: payments }));
      assert.equal(r.status, 200, r.text);
      return r.json.TraC.Fis;
    };
    const s1 = await sell([pay('debitcard', '40.00')], '40.00');
    assert.equal(s1.CertSerial, leafSerial, 'signed with the leaf of the chain');
    await sell([pay('mobile', '25.00')], '25.00');
    await sell([pay('creditcard', '30.00', { UID: 'VISA 4711-0001' })], '30.00');
    await sell([pay('cash', '10.00'), pay('debitcard', '15.00'), pay('mobile', '5.00')], '30.00');

    const res = await request(`${svc.url}/export?type=saft`);
    const zip = Buffer.from(await res.body.arrayBuffer());
    assert.equal(res.statusCode, 200, zip.toString('utf8').slice(0, 300));
    const files = await unzip(zip, tempDir('efr-dk-chain-x-'));
    const xmlName = Object.keys(files).find((n) => n.endsWith('.xml')) ?? '';
    const xml = files[xmlName] ?? '';
    writeFileSync(w('saft.xml'), xml);
    const lint = spawnSync('xmllint', ['--noout', '--nonet', '--schema', XSD, w('saft.xml')], { encoding: 'utf8', env: { ...process.env, XML_CATALOG_FILES: vectorPath('dk-saft', 'catalog.xml') } });
    assert.equal(lint.status, 0, `xmllint: ${lint.stderr}`);

    // certificateData: one certificate, the signer's, never the CA
    const certs = [...xml.matchAll(/<certificateData>([\s\S]*?)<\/certificateData>/g)].map((m) => m[1] ?? '');
    assert.equal(certs.length, 4);
    for (const c of certs) {
      assert.equal(c.match(/BEGIN CERTIFICATE/g)?.length, 1, c);
      writeFileSync(w('c.pem'), c);
      assert.equal(openssl(['x509', '-in', w('c.pem'), '-noout', '-serial']).trim().replace(/^serial=/, '').toUpperCase(), leafSerial);
    }

    // every payment has a paymentRefID: the UID, else <registerID>-<transID>-<place in PayA>, all different
    const payments = [...xml.matchAll(/<payment>([\s\S]*?)<\/payment>/g)].map((m) => m[1] ?? '');
    assert.equal(payments.length, 6);
    const refs = payments.map((p) => field(p, 'paymentRefID'));
    assert.ok(refs.every((r) => r !== ''), refs.join(' | '));
    assert.equal(new Set(refs).size, refs.length, `unique: ${refs.join(' | ')}`);
    assert.ok(refs.includes('VISA 4711-0001'), 'a payment with a UID keeps it');
    const txs = [...xml.matchAll(/<cashtransaction>([\s\S]*?)<\/cashtransaction>/g)].map((m) => m[1] ?? '');
    const registerId = field(xml.slice(xml.indexOf('<cashregister>')), 'registerID');
    const last = txs[3] ?? '';
    const transId = field(last, 'transID');
    assert.deepEqual([...last.matchAll(/<paymentRefID>([^<]*)<\/paymentRefID>/g)].map((m) => m[1]), [1, 2, 3].map((n) => `${registerId}-${transId}-${n}`));
    // a second export writes the same references
    const again = Buffer.from(await (await request(`${svc.url}/export?type=saft`)).body.arrayBuffer());
    const xml2 = Object.entries(await unzip(again, tempDir('efr-dk-chain-y-'))).find(([n]) => n.endsWith('.xml'))?.[1] ?? '';
    assert.deepEqual([...xml2.matchAll(/<paymentRefID>([^<]*)<\/paymentRefID>/g)].map((m) => m[1]), refs);

    // written into a folder of this machine (target) as well: the country's streamed zip, the same bytes as answered
    const folder = tempDir('efr-dk-chain-target-');
    const targeted = await request(`${svc.url}/export?type=saft&target=${encodeURIComponent(folder)}`);
    const targetedZip = Buffer.from(await targeted.body.arrayBuffer());
    assert.equal(targeted.statusCode, 200, targetedZip.toString('utf8').slice(0, 300));
    assert.deepEqual(readdirSync(folder), ['saft-12345678.zip']);
    assert.ok(readFileSync(join(folder, 'saft-12345678.zip')).equals(targetedZip));
    assert.equal(efrVerify(join(folder, 'saft-12345678.zip')).code, 0);

    writeFileSync(w('export.zip'), zip);
    const good = efrVerify(w('export.zip'));
    assert.equal(good.code, 0, good.out);
    // a file that carries the certificate with its CA chain (as our earlier exports did) still verifies
    const caPem = readFileSync(w('ca.pem'), 'utf8').trim();
    const withChain = xml.replace(/(<certificateData>[\s\S]*?)(<\/certificateData>)/g, (_m, head: string, end: string) => `${head.trim()}\n${caPem}${end}`);
    assert.equal(withChain.match(/BEGIN CERTIFICATE/g)?.length, 8);
    writeFileSync(w('chain.zip'), await zipOf(xmlName, withChain));
    const chained = efrVerify(w('chain.zip'));
    assert.equal(chained.code, 0, chained.out);
    // the CA first, the signer after it: still the signer's key
    const caFirst = xml.replace(/<certificateData>([\s\S]*?)<\/certificateData>/g, (_m, leaf: string) => `<certificateData>${caPem}\n${leaf.trim()}</certificateData>`);
    writeFileSync(w('ca-first.zip'), await zipOf(xmlName, caFirst));
    const reordered = efrVerify(w('ca-first.zip'));
    assert.equal(reordered.code, 0, reordered.out);
  } finally {
    await svc.close();
  }
});
