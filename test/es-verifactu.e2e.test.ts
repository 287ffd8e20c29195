/**
 * Spain through POST /register: VeriFactu records (simplified and full invoices, a rectifying invoice, a
 * cancellation), their SHA-256 fingerprints and chain recomputed here from the returned XML with plain
 * node:crypto, the chain across a restart of the service, the AEAT QR URL, the VatRegime breakdown, the
 * verifactu export checked by `efr verify --country es` (and a tampered copy named); TicketBAI registers
 * with a signed invoice, its TBAI identifier and the province's QR URL with valid CRC-8s.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { createHash, createPublicKey, verify } from 'node:crypto';
import { mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { request } from 'undici';
import { ZipFile } from 'yazl';
import { ManualClock } from '../src/shared/clock.js';
import { crc8Text } from '../src/register/fiscal/es/tbai.js';
import { tbaiKeyPath } from '../src/register/fiscal/es/tbai-key.js';
import { ROOT, post, startTestService, tempDir, unzip } from './helpers.js';

const NIF = 'B12345674';
const CFG = { Cfg: { Cmp: { Nam: 'Bar Pepe S.L.', Ctry: 'ES', TaxId: `ES${NIF}` }, Loc: { TL: '1' }, Trm: { TT: '1' } } };

function tra(esr: Record<string, unknown>, positions: Array<[string, string]>): { Tra: { ESR: Record<string, unknown> } } {
  const cents = positions.reduce((a, [, amt]) => a + BigInt(amt.replace('.', '')), 0n);
  const neg = cents < 0n;
  const abs = neg ? -cents : cents;
  const t = `${neg ? '-' : ''}${abs / 100n}.${String(abs % 100n).padStart(2, '0')}`;
  return { Tra: { ESR: { TL: '1', TT: '1', PosA: positions.map(([g, amt], i) => ({ _: 'Pos', PN: String(i + 1), Dsc: `Artículo ${i + 1}`, TaxG: g, Amt: amt })), PayA: [{ _: 'Pay', Dsc: 'Efectivo', PayG: 'cash', Amt: t }], ...esr } } };
}

const tag = (xml: string, name: string): string => new RegExp(`<sum1:${name}>([^<]*)</sum1:${name}>`).exec(xml)?.[1] ?? '';
const sha = (s: string): string => createHash('sha256').update(s, 'utf8').digest('hex').toUpperCase();

/** The fingerprint of a record, rebuilt here from its XML by AEAT's field order (not by the module's code). */
function recompute(xml: string): string {
  const prev = /<sum1:RegistroAnterior>.*<sum1:Huella>([0-9A-F]{64})<\/sum1:Huella><\/sum1:RegistroAnterior>/.exec(xml)?.[1] ?? '';
  if (xml.startsWith('<sum1:RegistroAnulacion')) {
    return sha(`IDEmisorFacturaAnulada=${tag(xml, 'IDEmisorFacturaAnulada')}&NumSerieFacturaAnulada=${tag(xml, 'NumSerieFacturaAnulada')}&FechaExpedicionFacturaAnulada=${tag(xml, 'FechaExpedicionFacturaAnulada')}&Huella=${prev}&FechaHoraHusoGenRegistro=${tag(xml, 'FechaHoraHusoGenRegistro')}`);
  }
  const idf = /<sum1:IDFactura>(.*?)<\/sum1:IDFactura>/.exec(xml)?.[1] ?? '';
  return sha(`IDEmisorFactura=${tag(idf, 'IDEmisorFactura')}&NumSerieFactura=${tag(idf, 'NumSerieFactura')}&FechaExpedicionFactura=${tag(idf, 'FechaExpedicionFactura')}&TipoFactura=${tag(xml, 'TipoFactura')}&CuotaTotal=${tag(xml, 'CuotaTotal')}&ImporteTotal=${tag(xml, 'ImporteTotal')}&Huella=${prev}&FechaHoraHusoGenRegistro=${tag(xml, 'FechaHoraHusoGenRegistro')}`);
}

function efrVerify(file: string): { code: number | null; out: string } {
  const r = spawnSync(process.execPath, ['--import', 'tsx', join(ROOT, 'src/cli.ts'), 'verify', '--country', 'es', file], { cwd: ROOT, encoding: 'utf8', timeout: 60_000 });
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

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- parsed JSON answers
type Fis = any;

test('VeriFactu: F2, F1, R5 and a cancellation chained across a restart; QR URL; export verified and a tampered record named', async () => {
  const dataDir = tempDir('efr-es-');
  const work = tempDir('efr-es-work-');
  // 10:00 in Madrid in winter: FechaHoraHusoGenRegistro carries +01:00 whatever the machine's zone
  const clock = new ManualClock(new Date('2026-03-10T09:00:00Z'));
  let svc = await startTestService({ clock, dataDir });
  const fis: Fis[] = [];
  try {
    assert.equal((await post(`${svc.url}/cfg`, CFG)).status, 200);
    const reg = async (body: object): Promise<Fis> => {
      clock.advance(5000);
      const r = await post(`${svc.url}/register`, body);
      assert.equal(r.json?.TraC?.Result?.RC, 'OK', r.text);
      fis.push(r.json.TraC.Fis);
      return r.json.TraC;
    };
    // a simplified invoice: 3.50 at 21 % (VAT 0.61) and 1.20 at 10 % (VAT 0.11)
    const s1 = await reg(tra({}, [['A', '3.50'], ['B', '1.20']]));
    assert.equal(s1.ESR.FN, 'T1-1/1');
    assert.equal(s1.Fis.Type, 'F2');
    const d1 = (s1.ESR.D as string).slice(0, 10).split('-').reverse().join('-');
    assert.equal(s1.Fis.Code, `https://www2.agenciatributaria.gob.es/wlpl/TIKE-CONT/ValidarQRNoVerifactu?nif=${NIF}&numserie=T1-1%2F1&fecha=${d1}&importe=4.70`);
    assert.equal(tag(s1.Fis.Payload, 'CuotaTotal'), '0.72');
    assert.equal(tag(s1.Fis.Payload, 'ImporteTotal'), '4.70');
    assert.match(s1.Fis.Payload, /<sum1:PrimerRegistro>S<\/sum1:PrimerRegistro>/);
    assert.equal(tag(s1.Fis.Payload, 'FechaHoraHusoGenRegistro'), '2026-03-10T10:00:05+01:00');
    const printed = (s1.Fis.Tag as Array<{ Name: string; Value: string }>).map((t) => t.Value);
    assert.ok(printed.includes('T1-1/1'), printed.join(' | '));
    // the legend says the records reach the AEAT; this service does not send them, so it is not printed
    assert.ok(!printed.some((v: string) => v.includes('VERI*FACTU') || v.includes('sede electrónica')), printed.join(' | '));
    // a full invoice: the customer's NIF makes it F1 in its own series
    const f1 = await reg(tra({ Ctm: { Nam: 'Hostal Sol S.L.', Adr: 'Calle Mayor 1', Zip: '28013', City: 'Madrid', TaxId: 'ESA87654321' } }, [['A', '121.00']]));
    assert.equal(f1.ESR.FN, 'F1-1/1');
    assert.equal(f1.Fis.Type, 'F1');
    assert.match(f1.Fis.Payload, /<sum1:Destinatarios><sum1:IDDestinatario><sum1:NombreRazon>Hostal Sol S\.L\.<\/sum1:NombreRazon><sum1:NIF>A87654321<\/sum1:NIF>/);
    assert.equal(tag(f1.Fis.Payload, 'CuotaTotal'), '21.00');
    // a return of the first sale: a rectifying invoice R5 naming it
    const r5 = await reg(tra({ RFN: 'T1-1/1' }, [['A', '-3.50']]));
    assert.equal(r5.Fis.Type, 'R5');
    assert.equal(r5.ESR.FN, 'R1-1/1');
    assert.match(r5.Fis.Payload, /<sum1:TipoRectificativa>I<\/sum1:TipoRectificativa><sum1:FacturasRectificadas><sum1:IDFacturaRectificada><sum1:IDEmisorFactura>B12345674<\/sum1:IDEmisorFactura><sum1:NumSerieFactura>T1-1\/1<\/sum1:NumSerieFactura>/);
    assert.equal(tag(r5.Fis.Payload, 'ImporteTotal'), '-3.50');
    // a void of the full invoice: a cancellation record of it
    const an = await reg(tra({ Void: '1', RFN: 'F1-1/1' }, [['A', '-121.00']]));
    assert.equal(an.Fis.Type, 'Anulacion');
    assert.ok((an.Fis.Payload as string).startsWith('<sum1:RegistroAnulacion'));
    assert.equal(tag(an.Fis.Payload, 'NumSerieFacturaAnulada'), 'F1-1/1');
    const sale2 = await reg(tra({}, [['C', '2.08']]));
    assert.equal(sale2.ESR.FN, 'T1-1/2', 'the series is numbered without gaps');
    // a non-fiscal document and a test receipt make no record and take no invoice number
    const login = await post(`${svc.url}/register`, { Tra: { ESR: { TL: '1', TT: '1', NFS: 'LOGIN' } } });
    assert.equal(login.json.TraC.Result.RC, 'OK');
    assert.match(login.json.TraC.ESR.FN, /^\d+$/, 'the generic numbering');
    assert.ok(!String(login.json.TraC.Fis.Payload ?? '').startsWith('<sum1:'));
    const trial = await post(`${svc.url}/register`, tra({ Test: '1' }, [['A', '1.00']]));
    assert.ok(trial.json.TraC.Fis.Tag.some((t: { Name: string }) => t.Name === 'Test'));
    assert.ok(!String(trial.json.TraC.Fis.Payload ?? '').startsWith('<sum1:'));

    // the service stops; the chain goes on from the journaled state
    await svc.stop();
    svc = await startTestService({ clock, dataDir });
    const s3 = await reg(tra({}, [['A', '10.00']]));
    assert.equal(s3.ESR.FN, 'T1-1/3');
    // a void of a receipt made before the restart: found in the journal
    const an2 = await reg(tra({ Void: '1', RFN: 'T1-1/2' }, [['C', '-2.08']]));
    assert.equal(tag(an2.Fis.Payload, 'NumSerieFacturaAnulada'), 'T1-1/2');
    assert.equal(tag(an2.Fis.Payload, 'FechaExpedicionFacturaAnulada'), d1);

    // every fingerprint recomputed here, every record chained to the one before
    let prev: string | undefined;
    let prevId: string[] | undefined;
    for (const f of fis) {
      const xml = f.Payload as string;
      assert.equal(recompute(xml), f.Signature, `fingerprint of ${f.FN}`);
      if (prev === undefined) assert.match(xml, /PrimerRegistro>S</);
      else {
        const ant = /<sum1:RegistroAnterior>(.*)<\/sum1:RegistroAnterior>/.exec(xml)?.[1] ?? '';
        assert.equal(tag(ant, 'Huella'), prev, `chain of ${f.FN}`);
        assert.deepEqual([tag(ant, 'NumSerieFactura'), tag(ant, 'FechaExpedicionFactura')], prevId);
      }
      prev = f.Signature;
      const own = xml.startsWith('<sum1:RegistroAnulacion') ? [tag(xml, 'NumSerieFacturaAnulada'), tag(xml, 'FechaExpedicionFacturaAnulada')] : [tag(xml, 'NumSerieFactura'), tag(xml, 'FechaExpedicionFactura')];
      prevId = own;
    }

    // the export: one record per file in chain order, each an AEAT envelope; the verifier recomputes them
    const res = await request(`${svc.url}/export?type=verifactu`);
    const zip = Buffer.from(await res.body.arrayBuffer());
    assert.equal(res.statusCode, 200, zip.toString().slice(0, 300));
    const zipPath = join(work, 'export.zip');
    writeFileSync(zipPath, zip);
    mkdirSync(join(work, 'x'));
    const files = await unzip(zip, join(work, 'x'));
    const names = Object.keys(files).sort();
    assert.equal(names.length, fis.length);
    assert.equal(names[0], 'records/000000001.xml');
    for (const [k, n] of names.entries()) {
      assert.ok((files[n] as string).includes((fis[k] as Fis).Payload), `${n} holds record ${k + 1} as hashed`);
      assert.match(files[n] as string, /<sum:RegFactuSistemaFacturacion xmlns:sum="https:\/\/www2\.agenciatributaria\.gob\.es\/static_files\/common\/internet\/dep\/aplicaciones\/es\/aeat\/tike\/cont\/ws\/SuministroLR\.xsd"/);
    }
    const wellFormed = spawnSync('xmllint', ['--noout', ...readdirSync(join(work, 'x', 'records')).map((f) => join(work, 'x', 'records', f))], { encoding: 'utf8' });
    if (!wellFormed.error) assert.equal(wellFormed.status, 0, wellFormed.stderr);
    const ok = efrVerify(zipPath);
    assert.equal(ok.code, 0, ok.out);
    assert.match(ok.out, /^OK: 7 records \(5 registrations, 2 cancellations\)/);

    // record 3 (the R5) with another total: its fingerprint no longer fits
    const third = files['records/000000003.xml'] as string;
    const tampered = { ...files, 'records/000000003.xml': third.replace('<sum1:ImporteTotal>-3.50<', '<sum1:ImporteTotal>-0.50<') };
    assert.notEqual(tampered['records/000000003.xml'], third);
    await zipFiles(tampered, join(work, 'bad.zip'));
    const bad = efrVerify(join(work, 'bad.zip'));
    assert.equal(bad.code, 1, bad.out);
    assert.match(bad.out, /BROKEN at record 3 \(records\/000000003\.xml, R1-1\/1\): the fingerprint does not match/);
    // record 2 taken out: record 3 names a predecessor that is not the one before it
    const dropped = { ...files };
    delete dropped['records/000000002.xml'];
    await zipFiles(dropped, join(work, 'dropped.zip'));
    const gap = efrVerify(join(work, 'dropped.zip'));
    assert.equal(gap.code, 1, gap.out);
    assert.match(gap.out, /BROKEN at record 2 \(records\/000000003\.xml, R1-1\/1\): RegistroAnterior names F1-1\/1/);
    // the breakdown is not hashed: a changed base is caught by the sums
    const base = { ...files, 'records/000000002.xml': (files['records/000000002.xml'] as string).replace('<sum1:BaseImponibleOimporteNoSujeto>100.00<', '<sum1:BaseImponibleOimporteNoSujeto>90.00<') };
    await zipFiles(base, join(work, 'base.zip'));
    const sums = efrVerify(join(work, 'base.zip'));
    assert.equal(sums.code, 1, sums.out);
    assert.match(sums.out, /BROKEN at record 2 .*ImporteTotal is 121\.00/);
  } finally {
    await svc.stop();
    rmSync(dataDir, { recursive: true, force: true });
    rmSync(work, { recursive: true, force: true });
  }
});

test('VeriFactu: VatRegime of Cmp, ESR and Pos (ClaveRegimen 01, 20, 18), recargo de equivalencia, refusals', async () => {
  const svc = await startTestService();
  try {
    await post(`${svc.url}/cfg`, { Cfg: { ...CFG.Cfg, Cmp: { ...CFG.Cfg.Cmp, VatRegime: 'SIMPLE' } } });
    const simple = await post(`${svc.url}/register`, tra({}, [['A', '12.10']]));
    assert.equal(tag(simple.json.TraC.Fis.Payload, 'ClaveRegimen'), '20', simple.text);
    // ESR overrides the company; a position overrides the ESR: the 21 % group is split between them
    const mixed = await post(`${svc.url}/register`, tra({ VatRegime: 'REDE', PosA: [
      { _: 'Pos', PN: '1', Dsc: 'Vino', TaxG: 'A', Amt: '12.10' },
      { _: 'Pos', PN: '2', Dsc: 'Pan', TaxG: 'A', Amt: '24.20', VatRegime: 'GENERAL' },
    ] }, [['A', '36.30']]));
    const xml = mixed.json.TraC.Fis.Payload as string;
    const lines = [...xml.matchAll(/<sum1:DetalleDesglose>(.*?)<\/sum1:DetalleDesglose>/g)].map((m) => [tag(m[1] as string, 'ClaveRegimen'), tag(m[1] as string, 'BaseImponibleOimporteNoSujeto'), tag(m[1] as string, 'CuotaRepercutida')]);
    assert.deepEqual(lines, [['18', '10.00', '2.10'], ['01', '20.00', '4.20']]);
    assert.equal(tag(xml, 'CuotaTotal'), '6.30');
    // a surcharge element (TTY SVAT) goes onto its VAT line; CuotaTotal includes it
    const re = await post(`${svc.url}/register`, tra({ VatRegime: 'GENERAL', PosA: [{ _: 'Pos', PN: '1', Dsc: 'Caja', TaxG: 'N RE', Amt: '100.00' }], TaxA: [
      { _: 'Tax', TaxG: 'N', Prc: '21', Net: '82.64', TAmt: '17.36', Amt: '100.00' },
      { _: 'Tax', TaxG: 'RE', TTY: 'SVAT', Prc: '5.2', Base: '82.64', Amt: '4.30' },
    ] }, [['N', '100.00']]));
    assert.equal(re.json.TraC.Result.RC, 'OK', re.text);
    const rx = re.json.TraC.Fis.Payload as string;
    assert.equal(tag(rx, 'TipoRecargoEquivalencia'), '5.20');
    assert.equal(tag(rx, 'CuotaRecargoEquivalencia'), '4.30');
    assert.equal(tag(rx, 'CuotaTotal'), '21.66');
    assert.equal(tag(rx, 'ImporteTotal'), '104.30');
    // 0 % is an exempt operation (E1) without rate and VAT amount
    const ex = await post(`${svc.url}/register`, tra({ VatRegime: 'GENERAL' }, [['D', '5.00']]));
    assert.match(ex.json.TraC.Fis.Payload, /<sum1:OperacionExenta>E1<\/sum1:OperacionExenta><sum1:BaseImponibleOimporteNoSujeto>5\.00</);
    const bad = await post(`${svc.url}/register`, tra({ VatRegime: 'MODULOS' }, [['A', '1.00']]));
    assert.equal(bad.status, 400);
    assert.match(bad.text, /ESR\.VatRegime/);
    const badPos = await post(`${svc.url}/register`, tra({ PosA: [{ _: 'Pos', PN: '1', Dsc: 'x', TaxG: 'A', Amt: '1.00', VatRegime: 'X' }] }, [['A', '1.00']]));
    assert.equal(badPos.status, 400);
    assert.match(badPos.text, /PosA\[0\]\.VatRegime/);
    // a void whose original this register does not know, without RD: refused, nothing registered
    const unknown = await post(`${svc.url}/register`, tra({ Void: '1', RFN: 'T9-9/9' }, [['A', '-1.00']]));
    assert.equal(unknown.status, 400, unknown.text);
    assert.match(unknown.text, /RFN/);
    // with RD the original is named as given
    const named = await post(`${svc.url}/register`, tra({ Void: '1', RFN: 'T9-9/9', RD: '2026-01-02T10:00:00' }, [['A', '-1.00']]));
    assert.equal(named.json.TraC.Result.RC, 'OK', named.text);
    assert.equal(tag(named.json.TraC.Fis.Payload, 'FechaExpedicionFacturaAnulada'), '02-01-2026');
  } finally {
    await svc.stop();
  }
});

test('TicketBAI: a Bizkaia register signs, gives ES_TBAI_Code with a valid CRC-8 and the batuz QR URL; Fiscal_System and Fiscal_Test choose the province and host', async () => {
  const svc = await startTestService({ clock: new ManualClock(new Date(2026, 2, 10, 12, 30, 0)) });
  try {
    await post(`${svc.url}/cfg`, { Cfg: { ...CFG.Cfg, Loc: { TL: '1', State: 'Bizkaia' } } });
    const r = await post(`${svc.url}/register`, tra({ D: '2026-03-10T12:30:00' }, [['A', '3.50'], ['B', '1.20']]));
    assert.equal(r.json.TraC.Result.RC, 'OK', r.text);
    const f = r.json.TraC.Fis;
    const id: string = f.ES_TBAI_Code;
    assert.match(id, new RegExp(`^TBAI-${NIF}-100326-.{13}-\\d{3}$`));
    assert.equal(id.slice(22, 35), (f.Signature as string).slice(0, 13), 'the first 13 characters of the signature value');
    assert.equal(id.slice(-3), crc8Text(id.slice(0, -3)), 'CRC-8 of the identifier');
    const url: string = f.Code;
    assert.ok(url.startsWith(`https://batuz.eus/QRTBAI/?id=${encodeURIComponent(id)}&s=T1-1&nf=1&i=4.70&cr=`), url);
    assert.equal(url.slice(-3), crc8Text(url.slice(0, url.lastIndexOf('&cr='))), 'CRC-8 of the QR URL');
    // the signature verifies with the register's public key
    const pub = createPublicKey(readFileSync(tbaiKeyPath(svc.dataDir, NIF)));
    assert.ok(verify('sha256', Buffer.from(f.Payload as string), { key: pub, dsaEncoding: 'ieee-p1363' }, Buffer.from(f.Signature as string, 'base64')));
    assert.ok(f.Tag.some((t: { Value: string }) => t.Value === id));
    // the second invoice's signed text carries the first one's signature (first 100 characters)
    const r2 = await post(`${svc.url}/register`, tra({ D: '2026-03-10T12:31:00' }, [['A', '1.00']]));
    assert.ok((r2.json.TraC.Fis.Payload as string).endsWith(`|${(f.Signature as string).slice(0, 100)}`));
    // no VeriFactu record in a TicketBAI register
    const exp = await request(`${svc.url}/export?type=verifactu`);
    assert.equal(exp.statusCode, 404);
    await exp.body.text();
    await post(`${svc.url}/profile`, { Badge: 'B', Attributes: 'Fiscal_System=Gipuzkoa Fiscal_Test' });
    const g = await post(`${svc.url}/register`, tra({}, [['A', '1.00']]));
    assert.ok((g.json.TraC.Fis.Code as string).startsWith('https://tbai.prep.gipuzkoa.eus/qr/?id=TBAI-'), g.text);
    await post(`${svc.url}/profile`, { Badge: 'B', Attributes: 'Fiscal_System=VERIFACTU Fiscal_Test' });
    const v = await post(`${svc.url}/register`, tra({}, [['A', '1.00']]));
    assert.ok((v.json.TraC.Fis.Code as string).startsWith('https://prewww2.aeat.es/wlpl/TIKE-CONT/ValidarQRNoVerifactu?nif=B12345674&numserie=T1-1%2F4&'), v.text);
    await post(`${svc.url}/profile`, { Badge: 'B', Attributes: 'Fiscal_System=Madrid' });
    const wrong = await post(`${svc.url}/register`, tra({}, [['A', '1.00']]));
    assert.equal(wrong.status, 400);
    assert.match(wrong.text, /Fiscal_System/);
  } finally {
    await svc.stop();
  }
});
