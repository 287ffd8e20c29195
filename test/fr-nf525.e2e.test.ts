/**
 * France (NF525) end to end through POST /register with a French register: tickets, a refund, an
 * invoice, duplicates, training, the day closing (Z), month and fiscal-year closings with
 * Fiscal_YearEnd, the JET (start, stop, exports), signatures checked with the public key by plain
 * node:crypto and the chains re-computed independently, the four exports, `efr verify --country fr`
 * and the proof script verify.mjs run with plain node on untouched and tampered exports, and the
 * chains continuing across a service restart.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { createPublicKey, verify } from 'node:crypto';
import { mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { request } from 'undici';
import { ManualClock } from '../src/shared/clock.js';
import { ZERO, add, dec, fmt, type Dec } from '../src/shared/money.js';
import { VERIFIERS } from '../src/register/fiscal/verifiers.js';
import { ROOT, get, post, sale, startTestService, tempDir, unzip, type TestService } from './helpers.js';

interface Tag {
  Name: string;
  Label: string;
  Value: string;
}
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- test access to parsed JSON
type Fis = any;

const tag = (fis: Fis, name: string): string | undefined => (fis.Tag as Tag[] | undefined)?.find((t) => t.Name === name)?.Value;

function publicKeyOf(svc: TestService): ReturnType<typeof createPublicKey> {
  const dir = join(svc.dataDir, 'fr');
  const [rnDir] = readdirSync(dir);
  return createPublicKey(readFileSync(join(dir, rnDir as string, 'public.pem')));
}

/** Plain node:crypto: ECDSA P-256 / SHA-256, r||s in base64url. */
function verifies(key: ReturnType<typeof createPublicKey>, payload: string, signature: string): boolean {
  return verify('sha256', Buffer.from(payload), { key, dsaEncoding: 'ieee-p1363' }, Buffer.from(signature, 'base64url'));
}

async function register(svc: TestService, esr: Record<string, unknown>): Promise<Fis> {
  const r = await post(`${svc.url}/register`, { Tra: { ESR: esr } });
  assert.equal(r.status, 200, r.text);
  return r.json.TraC.Fis;
}

async function registerSale(svc: TestService, extra: Record<string, unknown> = {}, positions?: Array<[string, string]>): Promise<Fis> {
  const r = await post(`${svc.url}/register`, sale(extra, positions));
  assert.equal(r.status, 200, r.text);
  return r.json.TraC.Fis;
}

async function download(svc: TestService, type: string): Promise<Buffer> {
  const res = await request(`${svc.url}/export?type=${type}`);
  const body = Buffer.from(await res.body.arrayBuffer());
  assert.equal(res.statusCode, 200, body.toString());
  return body;
}

function efrVerify(file: string): { code: number | null; out: string } {
  const r = spawnSync(process.execPath, ['--import', 'tsx', join(ROOT, 'src/cli.ts'), 'verify', '--country', 'fr', file], { cwd: ROOT, encoding: 'utf8', timeout: 60_000 });
  return { code: r.status, out: `${r.stdout}${r.stderr}` };
}

const unxml = (s: string): string => s.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&quot;/g, '"').replace(/&apos;/g, "'").replace(/&#10;/g, '\n').replace(/&amp;/g, '&');

interface XmlRecord {
  sq: number;
  chain: string;
  n: number;
  signature: string;
  previous: string;
  payload: string;
  fields: Record<string, string>;
}

function xmlRecords(xml: string): XmlRecord[] {
  const out: XmlRecord[] = [];
  for (const m of xml.matchAll(/<Record SQ="(\d+)" D="[^"]*" Chain="(\w)" N="(\d+)" Signature="([^"]*)" Previous="([^"]*)">\n<Payload>([^<]*)<\/Payload>\n((?:<Field [^>]*\/>\n)*)<\/Record>/g)) {
    const fields: Record<string, string> = {};
    for (const f of (m[7] ?? '').matchAll(/<Field Name="([^"]*)" Value="([^"]*)"\/>/g)) fields[f[1] as string] = unxml(f[2] as string);
    out.push({ sq: Number(m[1]), chain: m[2] as string, n: Number(m[3]), signature: m[4] as string, previous: m[5] as string, payload: unxml(m[6] as string), fields });
  }
  return out;
}

/** The chains re-computed independently: per chain, numbers 1, 2, 3... and each previous signature the one before (GENESIS first). */
function checkChains(records: XmlRecord[], key: ReturnType<typeof createPublicKey>): Map<string, XmlRecord[]> {
  const chains = new Map<string, XmlRecord[]>();
  for (const r of records) {
    const list = chains.get(r.chain) ?? [];
    const before = list[list.length - 1];
    assert.equal(r.n, list.length + 1, `chain ${r.chain} numbering at SQ ${r.sq}`);
    assert.equal(r.previous, before ? before.signature : 'GENESIS', `chain ${r.chain} n° ${r.n} names the previous signature`);
    assert.ok(r.payload.endsWith(`;${r.previous}`), 'the previous signature is part of the signed string');
    assert.ok(r.payload.startsWith(`FR1;${r.chain};${r.n};`));
    assert.ok(verifies(key, r.payload, r.signature), `signature of SQ ${r.sq}`);
    list.push(r);
    chains.set(r.chain, list);
  }
  return chains;
}

const sumT = (values: string[]): string => fmt(values.reduce((a: Dec, v) => add(a, dec(v)), ZERO), 2);

describe('France NF525', () => {
  test('tickets, refund, invoice, duplicates, training, closings, JET, exports, verifier and proof script, restart', async () => {
    const clock = new ManualClock(new Date(2026, 4, 28, 9, 0, 0));
    const dataDir = tempDir('efr-fr-');
    const work = tempDir('efr-fr-work-');
    let svc = await startTestService({ clock, dataDir });
    try {
      assert.equal((await post(`${svc.url}/profile`, { Badge: 'B', Attributes: 'Fiscal_YearEnd=06 Fis_Certification=B0123' })).status, 200);
      assert.equal((await post(`${svc.url}/cfg`, { Cfg: { Cmp: { Nam: 'Boulangerie', Ctry: 'FR', TaxId: 'FR40303265045' } } })).status, 200);

      // tickets
      const s1 = await registerSale(svc);
      const key = publicKeyOf(svc);
      assert.equal(s1.Type, 'Ticket');
      assert.ok(verifies(key, s1.Payload, s1.Signature), 'ticket 1 signature with the public key');
      assert.match(s1.Payload, /^FR1;T;1;def;1\/1\/\d+;1;2026-05-28T09:00:00;Vente;4\.70;20\.00:3\.50\/10\.00:1\.20;GENESIS$/);
      assert.equal(tag(s1, 'Nr'), '1');
      assert.equal(tag(s1, 'Type'), 'Vente');
      assert.equal(tag(s1, 'Code'), 'B0123');
      const sig1 = s1.Signature as string;
      assert.equal(tag(s1, 'Sig'), `${sig1[2]}${sig1[6]}${sig1[12]}${sig1[18]}`);
      assert.equal(s1.FR_JET[0].Code, '30', 'the first record initializes the register in the JET');

      clock.advance(60_000);
      const s2 = await registerSale(svc, { FR_OperationType: 'Vente' });
      assert.equal(tag(s2, 'Nr'), '2');
      assert.ok(s2.Payload.endsWith(`;${sig1}`), 'ticket 2 chains to ticket 1');
      assert.ok(verifies(key, s2.Payload, s2.Signature));

      const wrong = await post(`${svc.url}/register`, sale({ FR_OperationType: 'Remboursement' }));
      assert.equal(wrong.status, 400, 'FR_OperationType must agree with the sign of T');
      assert.match(wrong.text, /FR_OperationType/);

      // refund of article 1 of ticket 1
      clock.advance(60_000);
      const refund = await registerSale(svc, { RFN: s1.FN, FR_OperationType: 'Remboursement' }, [['A', '-3.50']]);
      assert.equal(tag(refund, 'Type'), 'Remboursement');
      assert.match(refund.Payload, /;Remboursement;-3\.50;20\.00:-3\.50;/);
      assert.equal(tag(refund, 'Nr'), '3');

      // invoice: chain F
      const invoice = await registerSale(svc, { Ctm: { Nam: 'Client SA', Adr: '1 rue de la Paix', Zip: '75002', City: 'Paris' } });
      assert.equal(invoice.Type, 'Facture');
      assert.ok(invoice.Payload.startsWith('FR1;F;1;'));
      assert.ok(invoice.Payload.endsWith(';GENESIS'), 'the first invoice starts its own chain');
      assert.ok(verifies(key, invoice.Payload, invoice.Signature));

      // duplicates of ticket 1: DUPLICATA n° 1 then 2, chain D
      const dup1 = await register(svc, { TL: '1', TT: '1', NFS: 'DUP', RFN: s1.FN });
      const dup2 = await register(svc, { TL: '1', TT: '1', NFS: 'DUP', RFN: s1.FN });
      assert.equal(tag(dup1, 'Dup'), 'DUPLICATA n° 1');
      assert.equal(tag(dup2, 'Dup'), 'DUPLICATA n° 2');
      assert.ok(dup1.Payload.startsWith('FR1;D;1;') && dup2.Payload.startsWith('FR1;D;2;'));
      assert.ok(dup2.Payload.endsWith(`;${dup1.Signature}`));
      assert.ok(verifies(key, dup2.Payload, dup2.Signature));
      assert.equal((await post(`${svc.url}/register`, { Tra: { ESR: { TL: '1', TT: '1', NFS: 'DUP' } } })).status, 400, 'a duplicate names its ticket');
      const unknownDup = await post(`${svc.url}/register`, { Tra: { ESR: { TL: '1', TT: '1', NFS: 'DUP', RFN: '999999' } } });
      assert.equal(unknownDup.status, 400, unknownDup.text);
      assert.match(unknownDup.text, /ESR\.RFN: names no ticket of this journal/);
      // the same ticket named by its TN counts on: the third duplicate
      const s1Tn = (s1.Payload.split(';')[4] as string).split('/')[2];
      const dup3 = await register(svc, { TL: '1', TT: '1', NFS: 'DUP', RTL: '1', RTT: '1', RTN: s1Tn });
      assert.equal(tag(dup3, 'Dup'), 'DUPLICATA n° 3');

      // training: marked, own chain M, not in the totals
      const training = await registerSale(svc, { FR_Trainer: '1' }, [['A', '99.00']]);
      assert.equal(tag(training, 'Trainer'), 'MODE FORMATION - ticket sans valeur fiscale');
      assert.ok(training.Payload.startsWith('FR1;M;1;'));

      // day closing: the totals are the sum of the tickets (training excluded)
      const dayTickets = [s1, s2, refund, invoice].map((f) => f.Payload.split(';')[8] as string);
      clock.advance(3600_000);
      const z = await register(svc, { TL: '1', TT: '1', NFS: 'Z' });
      assert.equal(z.Type, 'Clôture journalière');
      assert.equal(tag(z, 'Total'), sumT(dayTickets));
      assert.equal(tag(z, 'Count'), '4');
      assert.equal(tag(z, 'GTP'), sumT(dayTickets));
      assert.equal(tag(z, 'GTA'), sumT(dayTickets.map((t) => t.replace('-', ''))));
      assert.ok(z.Payload.startsWith('FR1;G;1;def;J;2026-05-28;'));
      assert.ok(verifies(key, z.Payload, z.Signature));
      assert.equal(z.FR_JET.find((e: { Code: string }) => e.Code === '40')?.Code, '40', 'the closing is a JET event');

      // June: the month of May is closed automatically; July: June and the fiscal year (Fiscal_YearEnd=06)
      clock.set(new Date(2026, 5, 2, 10, 0, 0));
      const june = await registerSale(svc, {}, [['C', '2.20']]);
      clock.set(new Date(2026, 6, 1, 8, 0, 0));
      const july = await registerSale(svc, {}, [['A', '1.00']]);
      assert.equal(tag(july, 'Nr'), '5', 'tickets 1-3, May; 4, June; 5, July (the invoice is in chain F)');

      // nf525-total: the closings and their totals
      const total = (await download(svc, 'nf525-total')).toString();
      const closings = [...total.matchAll(/<Closing SQ="\d+" N="(\d+)" RN="def" Period="(\w)" PeriodId="([^"]*)" FN="[^"]*" D="[^"]*" Count="(\d+)" Total="([^"]*)" Taxes="([^"]*)" GT="([^"]*)" GTAbs="([^"]*)"/g)].map((m) => ({ n: m[1], p: m[2], id: m[3], count: m[4], total: m[5], gt: m[7] }));
      const mayTotal = sumT(dayTickets);
      assert.deepEqual(closings.map((c) => `${c.n} ${c.p} ${c.id} ${c.count} ${c.total}`), [
        `1 J 2026-05-28 4 ${mayTotal}`,
        `2 M 2026-05 4 ${mayTotal}`,
        `3 M 2026-06 1 2.20`,
        `4 A 2026 5 ${sumT([mayTotal, '2.20'])}`,
      ]);
      assert.equal(closings[3]?.gt, sumT([mayTotal, '2.20']), 'the perpetual grand total at the year closing');
      assert.match(total, /<Open Period="M" PeriodId="2026-07" Count="1" Total="1\.00" Taxes="20\.00:1\.00"\/>/);
      assert.match(total, /<Open Period="A" PeriodId="2027" Span="2026-07\.\.2027-06" Count="1"/);
      assert.match(total, new RegExp(`<Perpetual GT="${sumT([mayTotal, '2.20', '1.00']).replace('.', '\\.')}"`));
      assert.ok(june.Payload.startsWith('FR1;T;4;'));

      // restart: stop and start journal JET events, the chains continue
      await svc.stop();
      svc = await startTestService({ clock, dataDir });
      clock.advance(60_000);
      const after = await registerSale(svc);
      assert.equal(tag(after, 'Nr'), '6');
      assert.ok(after.Payload.endsWith(`;${july.Signature}`), 'ticket 6 chains to ticket 5 across the restart');
      assert.ok(verifies(key, after.Payload, after.Signature));

      // nf525-jet: the JET with start, stop, exports, closings; its own chain
      const csv = (await download(svc, 'nf525-jet')).toString().trim().split('\r\n');
      assert.equal(csv[0], 'SQ;N;Code;Label;D;Detail;Signature;Previous');
      const codes = csv.slice(1).map((l) => l.split(';')[2]);
      assert.deepEqual(codes, ['30', '40', '41', '41', '42', '50', '20', '10', '50'], csv.join('\n'));
      csv.slice(1).forEach((l, i) => assert.equal(l.split(';')[1], String(i + 1), 'JET numbers follow each other'));

      // nf525-export: every chain re-computed and every signature checked here, then by efr verify
      const xmlBuf = await download(svc, 'nf525-export');
      const xml = xmlBuf.toString();
      const records = xmlRecords(xml);
      const chains = checkChains(records, key);
      assert.deepEqual([...chains.keys()].sort(), ['D', 'E', 'F', 'G', 'M', 'T']);
      assert.equal(chains.get('T')?.length, 6);
      assert.equal(chains.get('E')?.at(-1)?.fields.Code, '50', 'exporting is itself a JET event, in the export');
      const xmlFile = join(work, 'export.xml');
      writeFileSync(xmlFile, xml);
      const ok = efrVerify(xmlFile);
      assert.equal(ok.code, 0, ok.out);
      assert.match(ok.out, /OK: \d+ signed records verify/);
      // tamper: the amount of ticket 2 in its signed string
      const t2 = chains.get('T')?.[1] as XmlRecord;
      const bad = xml.replace(`<Payload>${t2.payload}</Payload>`, `<Payload>${t2.payload.replace(';4.70;', ';0.70;')}</Payload>`);
      assert.notEqual(bad, xml);
      writeFileSync(xmlFile, bad);
      const broken = efrVerify(xmlFile);
      assert.equal(broken.code, 1, broken.out);
      assert.match(broken.out, new RegExp(`BROKEN at SQ ${t2.sq} \\(chain T n° 2\\)`));
      // tamper: a listed field only
      writeFileSync(xmlFile, xml.replace(`<Field Name="Total" Value="4.70"/>`, `<Field Name="Total" Value="0.70"/>`));
      const broken2 = efrVerify(xmlFile);
      assert.equal(broken2.code, 1);
      assert.match(broken2.out, new RegExp(`BROKEN at SQ ${(chains.get('T')?.[0] as XmlRecord).sq} .*field Total`));

      // nf525-jou: the proof script with plain node, untouched then tampered; efr verify on the zip
      const zip = await download(svc, 'nf525-jou');
      const dir = join(work, 'jou');
      mkdirSync(dir);
      const files = await unzip(zip, dir);
      assert.ok(files['verify.mjs'] && files['fr-public.pem'] && files['public.pem'] && files['0000.jou']);
      assert.equal(createPublicKey(files['fr-public.pem'] as string).export({ type: 'spki', format: 'pem' }), key.export({ type: 'spki', format: 'pem' }));
      const proof = spawnSync(process.execPath, [join(dir, 'verify.mjs')], { encoding: 'utf8', timeout: 30_000 });
      assert.equal(proof.status, 0, `${proof.stdout}${proof.stderr}`);
      assert.match(proof.stdout, /journal: OK/);
      assert.match(proof.stdout, /NF525: OK: \d+ signed records verify; chains D/);
      const zipFile = join(work, 'jou.zip');
      writeFileSync(zipFile, zip);
      const zipOk = efrVerify(zipFile);
      assert.equal(zipOk.code, 0, zipOk.out);
      // tamper: ticket 1's record in the journal file
      const jou = files['0000.jou'] as string;
      const line = jou.split('\n').find((l) => l.includes(sig1) && l.includes('FR1;T;1;')) as string;
      const rec = JSON.parse(line.replace(/,$/, '')) as { SQ: number };
      writeFileSync(join(dir, '0000.jou'), jou.replace(line, line.replace(';Vente;4.70;', ';Vente;0.70;')));
      const proofBad = spawnSync(process.execPath, [join(dir, 'verify.mjs')], { encoding: 'utf8', timeout: 30_000 });
      assert.equal(proofBad.status, 1, proofBad.stdout);
      assert.match(proofBad.stdout, new RegExp(`journal: BROKEN at SQ ${rec.SQ} `));
      assert.match(proofBad.stdout, new RegExp(`NF525: BROKEN at SQ ${rec.SQ} \\(chain T n° 1\\)`));
    } finally {
      await svc.stop();
      rmSync(dataDir, { recursive: true, force: true });
      rmSync(work, { recursive: true, force: true });
    }
  });

  test('a key that is gone after the first record refuses the ticket and is a JET error event; Fis_Sec wins; none omits', async () => {
    const clock = new ManualClock(new Date(2026, 0, 10, 9, 0, 0));
    const svc = await startTestService({ clock });
    try {
      await post(`${svc.url}/profile`, { Badge: 'B', Attributes: 'Fis_Certification=B0123 Fis_Sec=00042-1' });
      await post(`${svc.url}/cfg`, { Cfg: { Cmp: { Nam: 'Café', Ctry: 'FR' } } });
      const first = await registerSale(svc);
      assert.equal(tag(first, 'Code'), '00042-1', 'Fis_Sec wins');
      const dir = join(svc.dataDir, 'fr', 'def');
      const pem = readFileSync(join(dir, 'key.pem'));
      rmSync(join(dir, 'key.pem'));
      const refused = await post(`${svc.url}/register`, sale());
      assert.equal(refused.status, 406, refused.text);
      assert.equal(refused.json.TraC.Result.ErrorCode, '#DEVICE_FAILED');
      writeFileSync(join(dir, 'key.pem'), pem);
      await post(`${svc.url}/profile`, { Badge: 'B', Attributes: 'Fis_Sec=none' });
      const next = await registerSale(svc);
      assert.equal(tag(next, 'Nr'), '2', 'the refused ticket took no number');
      assert.equal(tag(next, 'Code'), undefined, 'none omits the certification');
      assert.equal(next.FR_JET, undefined, 'the profile change was journaled when it happened, with the error noted before it');
      const csv = (await download(svc, 'nf525-jet')).toString();
      const codes = csv.trim().split('\n').slice(1).map((l) => l.split(';')[2]);
      const i70 = codes.indexOf('70');
      assert.ok(i70 > 0 && codes[i70 + 1] === '90', codes.join(' '));
      assert.match(csv, /;90;Erreur;[^;]*;signature impossible \(transaction\): #DEVICE_FAILED;/);
      // a changed Cfg is a JET event at once, in a log record of its own
      const before = codes.length;
      assert.equal((await post(`${svc.url}/cfg`, { Cfg: { Cmp: { Nam: 'Café du Port', Ctry: 'FR' } } })).status, 200);
      const after = (await download(svc, 'nf525-jet')).toString().trim().split('\n').slice(1).map((l) => l.split(';')[2]);
      assert.deepEqual(after.slice(before), ['70', '50'], 'the Cfg change, then the export that reads it (journaled before it is read)');
      const state = await get(`${svc.url}/state`);
      assert.equal(state.status, 200);
    } finally {
      await svc.stop();
    }
  });
});

/** A French register on a fresh service: profile attributes, then the Cfg. */
async function frService(clock: ManualClock, attributes = ''): Promise<TestService> {
  const svc = await startTestService({ clock });
  if (attributes) assert.equal((await post(`${svc.url}/profile`, { Badge: 'B', Attributes: attributes })).status, 200);
  assert.equal((await post(`${svc.url}/cfg`, { Cfg: { Cmp: { Nam: 'Épicerie', Ctry: 'FR' } } })).status, 200);
  return svc;
}

/**
 * The verifier of `efr verify --country fr` on an export written to a temporary file, in this process (the
 * CLI itself, its process and exit codes, is run by the tests above).
 */
async function verifyBuffer(body: Buffer | string, name: string): Promise<{ code: number | null; out: string }> {
  const dir = tempDir('efr-fr-v-');
  try {
    const file = join(dir, name);
    writeFileSync(file, body);
    const r = await VERIFIERS.fr?.verify(file);
    return { code: r?.ok ? 0 : 1, out: r?.text ?? '' };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function downloadWith(svc: TestService, query: string): Promise<Buffer> {
  const res = await request(`${svc.url}/export?${query}`);
  const body = Buffer.from(await res.body.arrayBuffer());
  assert.equal(res.statusCode, 200, body.toString());
  return body;
}

describe('France NF525: parallel duplicates, odd input, a lost key, sealed exports and the automatic Z', () => {
  test('three parallel duplicates of one ticket are DUPLICATA n° 1, 2 and 3', async () => {
    const svc = await frService(new ManualClock(new Date(2026, 4, 28, 9, 0, 0)));
    try {
      const s = await registerSale(svc);
      const dups = await Promise.all([1, 2, 3].map(() => register(svc, { TL: '1', TT: '1', NFS: 'DUP', RFN: s.FN })));
      assert.deepEqual(dups.map((d) => tag(d, 'Dup')).sort(), ['DUPLICATA n° 1', 'DUPLICATA n° 2', 'DUPLICATA n° 3']);
      assert.deepEqual(dups.map((d) => d.Payload.split(';').at(-2)).sort(), ['1', '2', '3'], 'the signed count too');
    } finally {
      await svc.stop();
    }
  });

  test('a TN with a carriage return is signed as sent and export.xml verifies', async () => {
    const svc = await frService(new ManualClock(new Date(2026, 4, 28, 9, 0, 0)));
    try {
      const s = await registerSale(svc, { TN: '7\r8' });
      assert.match(s.Payload, /;1\/1\/7\r8;/);
      const xml = await download(svc, 'nf525-export');
      const v = await verifyBuffer(xml, 'export.xml');
      assert.equal(v.code, 0, v.out);
      assert.match(v.out, /OK: \d+ signed records verify; .*sealed/);
    } finally {
      await svc.stop();
    }
  });

  test('a period export holds a ticket dated back among the period\'s records: the chains have no gap and verify', async () => {
    const clock = new ManualClock(new Date(2026, 4, 29, 10, 0, 0));
    const svc = await frService(clock);
    try {
      for (const d of ['2026-05-29T10:00:00', '2026-05-28T18:00:00', '2026-05-29T10:05:00']) {
        clock.advance(60_000);
        await registerSale(svc, { D: d });
      }
      const xml = await downloadWith(svc, 'type=nf525-export&from=2026-05-29');
      const records = xmlRecords(xml.toString());
      assert.deepEqual(records.filter((r) => r.chain === 'T').map((r) => r.n), [1, 2, 3], 'ticket 2, dated 05-28, is in the export');
      assert.match(xml.toString(), /Complete="0" From="2026-05-29"/);
      const v = await verifyBuffer(xml, 'export.xml');
      assert.equal(v.code, 0, v.out);
      // the JET of the period: its numbers follow each other, each naming the signature before it
      const lines = (await downloadWith(svc, 'type=nf525-jet&from=2026-05-29')).toString().trim().split('\r\n').slice(1).map((l) => l.split(';'));
      lines.forEach((l, i) => {
        assert.equal(l[1], String(i + 1));
        // Signature and Previous are the last two columns (a Detail may hold a quoted ;)
        assert.equal(l.at(-1), i > 0 ? lines[i - 1]?.at(-2) : 'GENESIS');
      });
      assert.equal((await downloadWith(svc, 'type=nf525-total&from=2026-05-29')).toString().includes('<Perpetual GT="14.10"'), true);
    } finally {
      await svc.stop();
    }
  });

  test('amounts with more than 2 decimals are refused, naming the field; trailing zeros are exact', async () => {
    const svc = await frService(new ManualClock(new Date(2026, 4, 28, 9, 0, 0)));
    try {
      const refused = async (body: object, field: string): Promise<void> => {
        const r = await post(`${svc.url}/register`, body);
        assert.equal(r.status, 400, r.text);
        assert.match(r.text, new RegExp(`${field.replace(/[[\].]/g, '\\$&')}.*exact to the cent`));
      };
      await refused(sale({ PayA: [{ _: 'Pay', Dsc: 'Cash', PayG: 'cash', Amt: '0.005' }] }, [['A', '0.005']]), 'ESR.T');
      await refused(sale({}, [['A', '3.505'], ['B', '1.195']]), 'ESR.PosA[0].Amt');
      await refused(sale({ PayA: [{ _: 'Pay', Dsc: 'Cash', PayG: 'cash', Amt: '2.355' }, { _: 'Pay', Dsc: 'Card', PayG: 'creditcard', Amt: '2.345' }] }), 'ESR.PayA[0].Amt');
      const ok = await registerSale(svc, { T: '4.700' });
      assert.match(ok.Payload, /;Vente;4\.70;/);
      assert.equal(tag(ok, 'Nr'), '1', 'the refused ones took no number');
    } finally {
      await svc.stop();
    }
  });

  test('NFS=CLOSE with Test=1 or FR_Trainer=1 is refused and closes nothing', async () => {
    const svc = await frService(new ManualClock(new Date(2026, 4, 28, 9, 0, 0)));
    try {
      await registerSale(svc);
      for (const flag of ['Test', 'FR_Trainer']) {
        const r = await post(`${svc.url}/register`, { Tra: { ESR: { TL: '1', TT: '1', NFS: 'CLOSE', FR_Closing: 'M', [flag]: '1' } } });
        assert.equal(r.status, 400, r.text);
        assert.match(r.text, new RegExp(`ESR\\.${flag}.*cannot be a test or training`));
      }
      const total = (await download(svc, 'nf525-total')).toString();
      assert.doesNotMatch(total, /<Closing /);
      assert.match(total, /<Open Period="M" PeriodId="2026-05" Count="1" Total="4\.70"/);
    } finally {
      await svc.stop();
    }
  });

  test('a JET error stays noted when the next record fails; a different key is a JET error too', async () => {
    const svc = await frService(new ManualClock(new Date(2026, 4, 28, 9, 0, 0)));
    try {
      const first = await registerSale(svc);
      const dir = join(svc.dataDir, 'fr', 'def');
      const pem = readFileSync(join(dir, 'key.pem'));
      rmSync(join(dir, 'key.pem'));
      assert.equal((await post(`${svc.url}/register`, sale())).status, 406);
      writeFileSync(join(dir, 'key.pem'), pem);
      // refused inside the signing section, after the waiting events were read
      const dup = await post(`${svc.url}/register`, { Tra: { ESR: { TL: '1', TT: '1', NFS: 'DUP', RFN: '999' } } });
      assert.equal(dup.status, 400, dup.text);
      const next = await registerSale(svc);
      assert.deepEqual(next.FR_JET?.map((e: { Code: string }) => e.Code), ['90'], 'the error is journaled with the next signed record');
      assert.match(next.FR_JET[0].Detail, /signature impossible \(transaction\): #DEVICE_FAILED/);
      // another key in place of the register's: refused, and noted
      const other = await import('node:crypto').then((c) => c.generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ type: 'pkcs8', format: 'pem' }));
      writeFileSync(join(dir, 'key.pem'), other);
      const refused = await post(`${svc.url}/register`, sale());
      assert.equal(refused.status, 406, refused.text);
      writeFileSync(join(dir, 'key.pem'), pem);
      const back = await registerSale(svc);
      assert.equal(back.FR_JET?.[0]?.Code, '90', JSON.stringify(back.FR_JET));
      assert.match(back.FR_JET[0].Detail, new RegExp(`signature impossible \\(transaction 1/1/\\d+, clé [0-9a-f]{16} au lieu de ${first.ID}\\)`));
      assert.ok(back.Payload.endsWith(`;${next.Signature}`), 'the chain goes on with the register key');
    } finally {
      await svc.stop();
    }
  });

  test('with the key gone all four exports answer and verify; their JET events are journaled when the key is back', async () => {
    const svc = await frService(new ManualClock(new Date(2026, 4, 28, 9, 0, 0)));
    try {
      await registerSale(svc);
      await registerSale(svc);
      const dir = join(svc.dataDir, 'fr', 'def');
      const pem = readFileSync(join(dir, 'key.pem'));
      rmSync(join(dir, 'key.pem'));
      const xml = await download(svc, 'nf525-export');
      assert.match(xml.toString(), /<Seal Key="instance"/);
      const v = await verifyBuffer(xml, 'export.xml');
      assert.equal(v.code, 0, v.out);
      assert.match(v.out, /sealed with the service's instance key/);
      const total = (await download(svc, 'nf525-total')).toString();
      assert.match(total, /<Perpetual GT="9\.40"/);
      assert.match((await download(svc, 'nf525-jet')).toString(), /;30;Initialisation/);
      const zip = await download(svc, 'nf525-jou');
      const z = await verifyBuffer(zip, 'jou.zip');
      assert.equal(z.code, 0, z.out);
      assert.match(z.out, /NF525: OK/);
      assert.match(z.out, /seal: OK: sealed with the instance key/);
      writeFileSync(join(dir, 'key.pem'), pem);
      const next = await registerSale(svc);
      assert.deepEqual(next.FR_JET?.map((e: { Code: string }) => e.Code), ['90', '50', '90', '50', '90', '50', '90', '60']);
      assert.match(next.FR_JET[1].Detail, /^nf525-export \(2026-05-28T09:00:00, non signé alors\)$/);
      const sealed = await verifyBuffer(await download(svc, 'nf525-export'), 'export.xml');
      assert.equal(sealed.code, 0, sealed.out);
      assert.match(sealed.out, /; sealed$/m);
    } finally {
      await svc.stop();
    }
  });

  test('export.xml is sealed: records removed at the end, a changed header, D or SQ, a missing seal are named', async () => {
    const svc = await frService(new ManualClock(new Date(2026, 4, 28, 9, 0, 0)));
    try {
      for (let i = 0; i < 3; i++) await registerSale(svc);
      const xml = (await download(svc, 'nf525-export')).toString();
      const records = [...xml.matchAll(/<Record [\s\S]*?<\/Record>\n/g)].map((m) => m[0]);
      const broken = async (text: string, expected: RegExp): Promise<void> => {
        const v = await verifyBuffer(text, 'export.xml');
        assert.equal(v.code, 1, v.out);
        assert.match(v.out, expected);
      };
      assert.equal((await verifyBuffer(xml, 'export.xml')).code, 0);
      // the last record (the export's own JET event) removed
      await broken(xml.replace(records.at(-1) as string, ''), /BROKEN \(seal, last record SQ \d+\): the seal names chain E n° 2 as its last record; the file ends at n° 1: records were removed at the end/);
      // Complete="1" made "0" and ticket n° 1 deleted: the chains alone would accept it
      const t1 = records.find((r) => r.includes('Chain="T" N="1"')) as string;
      await broken(xml.replace('Complete="1"', 'Complete="0"').replace(t1, ''), /BROKEN \(seal, .*\): Complete="0" differs from the sealed value "1"/);
      // the D attribute of ticket 2
      const t2 = records.find((r) => r.includes('Chain="T" N="2"')) as string;
      const sq2 = (/SQ="(\d+)"/.exec(t2) as RegExpExecArray)[1];
      await broken(xml.replace(t2, t2.replace(/ D="[^"]*"/, ' D="2026-05-01T00:00:00"')), new RegExp(`BROKEN at SQ ${sq2} \\(chain T n° 2\\): D "2026-05-01T00:00:00" differs from the signed D field`));
      // the SQ attribute of ticket 2: out of order, then in order but not the sealed one
      await broken(xml.replace(t2, t2.replace(/SQ="\d+"/, 'SQ="99"')), /BROKEN at SQ \d+ \(chain T n° 3\): SQ \d+ after SQ 99: the records are not in ascending SQ order/);
      const last = records.at(-1) as string;
      await broken(xml.replace(last, last.replace(/SQ="(\d+)"/, (_m, n: string) => `SQ="${Number(n) + 5}"`)), /the SQ or signatures of the records differ from the sealed digest/);
      await broken(xml.replace(/<Seal [^>]*\/>\n/, ''), /not sealed: the end of the chains cannot be checked/);

      // jou.zip: its last record removed and the (unsigned) manifest made to agree: only the seal sees it
      const work = tempDir('efr-fr-jou-');
      try {
        const files = await unzip(await download(svc, 'nf525-jou'), work);
        const run = (): { status: number | null; stdout: string } => spawnSync(process.execPath, [join(work, 'verify.mjs')], { encoding: 'utf8', timeout: 30_000 });
        const good = run();
        assert.equal(good.status, 0, good.stdout);
        assert.match(good.stdout, /seal: OK: sealed with the register key/);
        const recs = JSON.parse(files['0000.jou'] as string) as Array<{ SQ: number }>;
        const manifest = JSON.parse(files['manifest.json'] as string) as { lastSQ: number; count: number };
        writeFileSync(join(work, '0000.jou'), `[\n${recs.slice(0, -1).map((r) => JSON.stringify(r)).join(',\n')}\n]\n`);
        writeFileSync(join(work, 'manifest.json'), JSON.stringify({ ...manifest, lastSQ: manifest.lastSQ - 1, count: manifest.count - 1 }));
        const cut = run();
        assert.equal(cut.status, 1, cut.stdout);
        assert.match(cut.stdout, /journal: OK/);
        assert.match(cut.stdout, new RegExp(`seal: BROKEN \\(seal\\): manifest lastSQ "${manifest.lastSQ - 1}" differs from the sealed "${manifest.lastSQ}": records were removed at the end`));
        rmSync(join(work, 'fr-seal.json'));
        assert.match(run().stdout, /seal: BROKEN \(seal\): not sealed/);
      } finally {
        rmSync(work, { recursive: true, force: true });
      }
    } finally {
      await svc.stop();
    }
  });

  test('Fiscal_ZLaunch: the automatic Z closes the day of the last ticket, before the month closing', async () => {
    const clock = new ManualClock(new Date(2026, 4, 31, 18, 0, 0));
    const svc = await frService(clock, 'Fiscal_ZLaunch');
    try {
      await registerSale(svc);
      clock.advance(60_000);
      await registerSale(svc);
      clock.set(new Date(2026, 5, 1, 9, 0, 0));
      await registerSale(svc);
      const total = (await download(svc, 'nf525-total')).toString();
      const closings = [...total.matchAll(/<Closing SQ="\d+" N="(\d+)" RN="def" Period="(\w)" PeriodId="([^"]*)" FN="[^"]*" D="[^"]*" Count="(\d+)"/g)].map((m) => `${m[1]} ${m[2]} ${m[3]} ${m[4]}`);
      assert.deepEqual(closings, ['1 J 2026-05-31 2', '2 M 2026-05 2']);
    } finally {
      await svc.stop();
    }
  });
});
