/**
 * Spain through POST /register and GET /export, the rules beyond a plain sale and its export: a period export that
 * keeps a back-dated receipt inside the chain, amounts with three decimals, the customer of a rectifying
 * invoice, NumeroInstalacion and required shop (TL), a change of the issuer's NIF, customer tax ids the AEAT
 * would reject, invoice numbers the AEAT would reject and the 12-line limit of the breakdown.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { createHash, createPublicKey } from 'node:crypto';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { request } from 'undici';
import { ManualClock } from '../src/shared/clock.js';
import { ROOT, post, startTestService, tempDir, unzip } from './helpers.js';

const NIF = 'B12345674';
const CFG = { Cfg: { Cmp: { Nam: 'Bar Pepe S.L.', Ctry: 'ES', TaxId: `ES${NIF}` }, Loc: { TL: '1' }, Trm: { TT: '1' } } };

type Esr = Record<string, unknown>;

/** A sale with positions [tax letter, amount] (any number of decimals), paid in cash. */
function tra(esr: Esr, positions: Array<[string, string]>): { Tra: { ESR: Esr } } {
  const scale = Math.max(2, ...positions.map(([, a]) => a.split('.')[1]?.length ?? 0));
  const units = positions.reduce((s, [, a]) => s + BigInt(a.replace('.', '').padEnd(a.replace('.', '').length + scale - (a.split('.')[1]?.length ?? 0), '0')), 0n);
  const neg = units < 0n;
  const abs = neg ? -units : units;
  const p = 10n ** BigInt(scale);
  const t = `${neg ? '-' : ''}${abs / p}.${String(abs % p).padStart(scale, '0')}`;
  return { Tra: { ESR: { TL: '1', TT: '1', PosA: positions.map(([g, amt], i) => ({ _: 'Pos', PN: String(i + 1), Dsc: `Artículo ${i + 1}`, TaxG: g, Amt: amt })), PayA: [{ _: 'Pay', Dsc: 'Efectivo', PayG: 'cash', Amt: t }], ...esr } } };
}

const tag = (xml: string, name: string): string => new RegExp(`<sum1:${name}>([^<]*)</sum1:${name}>`).exec(xml)?.[1] ?? '';
const cents = (s: string): bigint => BigInt(s.replace('.', ''));

function efrVerify(file: string): { code: number | null; out: string } {
  const r = spawnSync(process.execPath, ['--import', 'tsx', join(ROOT, 'src/cli.ts'), 'verify', '--country', 'es', file], { cwd: ROOT, encoding: 'utf8', timeout: 60_000 });
  return { code: r.status, out: `${r.stdout}${r.stderr}` };
}

/** GET /export?type=verifactu (with a query), written to work/<name>.zip and unpacked beside it. */
async function exportTo(url: string, query: string, work: string, name: string): Promise<{ path: string; files: Record<string, string> }> {
  const res = await request(`${url}/export?type=verifactu${query}`);
  const zip = Buffer.from(await res.body.arrayBuffer());
  assert.equal(res.statusCode, 200, zip.toString().slice(0, 300));
  const path = join(work, `${name}.zip`);
  writeFileSync(path, zip);
  mkdirSync(join(work, name));
  return { path, files: await unzip(zip, join(work, name)) };
}

test('VeriFactu export of one day: a receipt dated back among that day\'s records is exported with them and the chain verifies', async () => {
  const work = tempDir('efr-es-period-');
  const svc = await startTestService({ clock: new ManualClock(new Date('2026-03-10T11:00:00Z')) });
  try {
    await post(`${svc.url}/cfg`, CFG);
    // the second receipt comes from an offline POS: dated the day before, registered between today's two
    for (const d of ['2026-03-10T10:00:00', '2026-03-09T18:00:00', '2026-03-10T11:00:00']) {
      const r = await post(`${svc.url}/register`, tra({ D: d }, [['A', '1.00']]));
      assert.equal(r.json.TraC.Result.RC, 'OK', r.text);
    }
    const day = await exportTo(svc.url, '&from=2026-03-10&till=2026-03-10', work, 'day');
    const names = Object.keys(day.files).sort();
    assert.equal(names.length, 3, names.join(' '));
    assert.equal(tag(day.files[names[1] as string] as string, 'FechaExpedicionFactura'), '09-03-2026');
    const ok = efrVerify(day.path);
    assert.equal(ok.code, 0, ok.out);
    assert.match(ok.out, /^OK: 3 records/);
    // the day before alone: its record continues a chain that started before it, and says so
    const before = await exportTo(svc.url, '&from=2026-03-09&till=2026-03-09', work, 'before');
    assert.equal(Object.keys(before.files).length, 1);
    const cont = efrVerify(before.path);
    assert.equal(cont.code, 0, cont.out);
    assert.match(cont.out, /^OK: 1 records .*starts before this export/);
    const none = await request(`${svc.url}/export?type=verifactu&from=2026-03-11&till=2026-03-11`);
    assert.equal(none.statusCode, 404);
    await none.body.text();
  } finally {
    await svc.stop();
    rmSync(work, { recursive: true, force: true });
  }
});

test('VeriFactu amounts with three decimals: each breakdown line in cents, CuotaTotal and ImporteTotal their sums; the export verifies', async () => {
  const work = tempDir('efr-es-dec-');
  const svc = await startTestService();
  try {
    await post(`${svc.url}/cfg`, CFG);
    // 0.029 at 21 % (VAT 0.005, base 0.024) and 0.058 at 10 % (VAT 0.005, base 0.053)
    const r = await post(`${svc.url}/register`, tra({}, [['A', '0.029'], ['B', '0.058']]));
    assert.equal(r.json.TraC.Result.RC, 'OK', r.text);
    const xml = r.json.TraC.Fis.Payload as string;
    const lines = [...xml.matchAll(/<sum1:DetalleDesglose>(.*?)<\/sum1:DetalleDesglose>/g)].map((m) => [tag(m[1] as string, 'BaseImponibleOimporteNoSujeto'), tag(m[1] as string, 'CuotaRepercutida')]);
    // each line's total is its exact total rounded (0.029 → 0.03, 0.058 → 0.06); the VAT rounded, the base the rest
    assert.deepEqual(lines, [['0.02', '0.01'], ['0.05', '0.01']]);
    const cuota = lines.reduce((a, [, c]) => a + cents(c as string), 0n);
    const total = lines.reduce((a, [b, c]) => a + cents(b as string) + cents(c as string), 0n);
    assert.equal(cents(tag(xml, 'CuotaTotal')), cuota, 'CuotaTotal is the sum of the lines');
    assert.equal(cents(tag(xml, 'ImporteTotal')), total, 'ImporteTotal is the sum of the lines');
    assert.equal(tag(xml, 'ImporteTotal'), '0.09');
    assert.match(r.json.TraC.Fis.Code as string, /&importe=0\.09$/);
    const exp = await exportTo(svc.url, '', work, 'x');
    const ok = efrVerify(exp.path);
    assert.equal(ok.code, 0, ok.out);
  } finally {
    await svc.stop();
    rmSync(work, { recursive: true, force: true });
  }
});

test('VeriFactu: the return of a full invoice (F1) is an R1 naming the original\'s customer in Destinatarios', async () => {
  const svc = await startTestService();
  try {
    await post(`${svc.url}/cfg`, CFG);
    const f1 = await post(`${svc.url}/register`, tra({ Ctm: { Nam: 'Hostal Sol S.L.', TaxId: 'ESA87654321' } }, [['A', '100.00'], ['A', '21.00']]));
    assert.equal(f1.json.TraC.ESR.FN, 'F1-1/1', f1.text);
    const r1 = await post(`${svc.url}/register`, tra({ RFN: 'F1-1/1' }, [['A', '-100.00']]));
    assert.equal(r1.json.TraC.Result.RC, 'OK', r1.text);
    const xml = r1.json.TraC.Fis.Payload as string;
    assert.equal(r1.json.TraC.Fis.Type, 'R1');
    assert.match(xml, /<sum1:Destinatarios><sum1:IDDestinatario><sum1:NombreRazon>Hostal Sol S\.L\.<\/sum1:NombreRazon><sum1:NIF>A87654321<\/sum1:NIF><\/sum1:IDDestinatario><\/sum1:Destinatarios>/);
    // a customer sent with the return wins over the original's
    const r2 = await post(`${svc.url}/register`, tra({ RFN: 'F1-1/1', Ctm: { Nam: 'Otra S.A.', TaxId: 'A11111111' }, PosA: [{ _: 'Pos', PN: '1', Dsc: 'Artículo 2', TaxG: 'A', Amt: '-21.00' }] }, [['A', '-21.00']]));
    assert.equal(r2.json?.TraC?.Result?.RC, 'OK', r2.text);
    assert.match(r2.json.TraC.Fis.Payload as string, /<sum1:NombreRazon>Otra S\.A\.<\/sum1:NombreRazon><sum1:NIF>A11111111</);
    // the return of a simplified invoice stays an R5 without recipient
    await post(`${svc.url}/register`, tra({}, [['A', '2.00']]));
    const r5 = await post(`${svc.url}/register`, tra({ RFN: 'T1-1/1' }, [['A', '-2.00']]));
    assert.equal(r5.json.TraC.Fis.Type, 'R5');
    assert.ok(!(r5.json.TraC.Fis.Payload as string).includes('Destinatarios'));
  } finally {
    await svc.stop();
  }
});

test('VeriFactu: NumeroInstalacion is the instance\'s key id and the register; a receipt without a shop (TL) is refused, Cfg.Loc.TL serves', async () => {
  const svc = await startTestService();
  try {
    await post(`${svc.url}/cfg`, { Cfg: { Cmp: CFG.Cfg.Cmp, Trm: { TT: '1' } } });
    const noTl = await post(`${svc.url}/register`, tra({ TL: undefined }, [['A', '1.00']]));
    assert.equal(noTl.status, 400, noTl.text);
    assert.match(noTl.text, /ESR\.TL/);
    await post(`${svc.url}/cfg`, { Cfg: { ...CFG.Cfg, Loc: { TL: '7' } } });
    const r = await post(`${svc.url}/register`, tra({ TL: undefined }, [['A', '1.00']]));
    assert.equal(r.json.TraC.Result.RC, 'OK', r.text);
    assert.equal(r.json.TraC.Fis.FN, 'T7-1/1', 'the refused receipt took no number');
    const pem = readFileSync(join(svc.dataDir, 'keys', 'instance.pub.pem'), 'utf8');
    const keyId = createHash('sha256').update(createPublicKey(pem).export({ type: 'spki', format: 'der' })).digest('hex').slice(0, 16);
    const rn = (r.json.TraC.RN as string | undefined) ?? 'def';
    assert.equal(tag(r.json.TraC.Fis.Payload as string, 'NumeroInstalacion'), `${keyId}-${rn}`);
  } finally {
    await svc.stop();
  }
});

test('VeriFactu: after Cfg.Cmp.TaxId changes, a void of an invoice of the old NIF is refused; the new NIF starts its own chain and the export verifies', async () => {
  const work = tempDir('efr-es-nif-');
  const svc = await startTestService();
  try {
    await post(`${svc.url}/cfg`, CFG);
    const old = await post(`${svc.url}/register`, tra({}, [['A', '5.00']]));
    assert.equal(old.json.TraC.Fis.FN, 'T1-1/1', old.text);
    await post(`${svc.url}/cfg`, { Cfg: { ...CFG.Cfg, Cmp: { ...CFG.Cfg.Cmp, TaxId: 'A87654321' } } });
    const cancel = await post(`${svc.url}/register`, tra({ Void: '1', RFN: 'T1-1/1' }, [['A', '-5.00']]));
    assert.equal(cancel.status, 400, cancel.text);
    assert.match(cancel.text, /ESR\.RFN/);
    assert.match(cancel.text, /B12345674/);
    const sale = await post(`${svc.url}/register`, tra({}, [['A', '1.00']]));
    assert.equal(sale.json.TraC.Result.RC, 'OK', sale.text);
    const xml = sale.json.TraC.Fis.Payload as string;
    assert.equal(tag(xml, 'IDEmisorFactura'), 'A87654321');
    assert.match(xml, /<sum1:PrimerRegistro>S</);
    const exp = await exportTo(svc.url, '', work, 'x');
    const ok = efrVerify(exp.path);
    assert.equal(ok.code, 0, ok.out);
    assert.match(ok.out, /^OK: 2 records \(2 registrations, 0 cancellations\)/);
  } finally {
    await svc.stop();
    rmSync(work, { recursive: true, force: true });
  }
});

test('VeriFactu: customer tax ids the AEAT would reject are refused (ES and no NIF, no country prefix); a foreign VAT number is IDOtro', async () => {
  const svc = await startTestService();
  try {
    await post(`${svc.url}/cfg`, CFG);
    for (const ctm of [{ TaxId: 'ES123' }, { TaxId: '12345678', Ctry: 'DE' }, { TaxId: 'X' }]) {
      const r = await post(`${svc.url}/register`, tra({ Ctm: { Nam: 'Cliente', ...ctm } }, [['A', '10.00']]));
      assert.equal(r.status, 400, `${ctm.TaxId}: ${r.text}`);
      assert.match(r.text, /ESR\.Ctm\.TaxId/);
    }
    const de = await post(`${svc.url}/register`, tra({ Ctm: { Nam: 'Kunde GmbH', TaxId: 'DE 123 456 789' } }, [['A', '10.00']]));
    assert.equal(de.json.TraC.Fis.FN, 'F1-1/1', 'nothing was registered before');
    assert.match(de.json.TraC.Fis.Payload as string, /<sum1:IDOtro><sum1:CodigoPais>DE<\/sum1:CodigoPais><sum1:IDType>02<\/sum1:IDType><sum1:ID>DE123456789<\/sum1:ID><\/sum1:IDOtro>/);
    const gr = await post(`${svc.url}/register`, tra({ Ctm: { Nam: 'Pelatis', TaxId: 'EL123456789' } }, [['A', '10.00']]));
    assert.match(gr.json.TraC.Fis.Payload as string, /<sum1:CodigoPais>GR<\/sum1:CodigoPais><sum1:IDType>02<\/sum1:IDType><sum1:ID>EL123456789</);
    const es = await post(`${svc.url}/register`, tra({ Ctm: { Nam: 'Hostal', TaxId: 'b-12345674' } }, [['A', '10.00']]));
    assert.match(es.json.TraC.Fis.Payload as string, /<sum1:NIF>B12345674<\/sum1:NIF>/);
  } finally {
    await svc.stop();
  }
});

test('VeriFactu: a TL or TT that cannot be in NumSerieFactura, and more than 12 breakdown lines, are refused with 400', async () => {
  const svc = await startTestService();
  try {
    await post(`${svc.url}/cfg`, CFG);
    const refused: Array<[Esr, RegExp]> = [
      [{ TL: 'A"B' }, /ESR\.TL/],
      [{ TL: "O'Neill" }, /ESR\.TL/],
      [{ TL: 'a<b' }, /ESR\.TL/],
      [{ TL: 'MAD 1' }, /ESR\.TL/],
      [{ TL: 'Cañada' }, /ESR\.TL/],
      [{ TL: 'X'.repeat(47) }, /ESR\.TL/],
      [{ TL: 'X'.repeat(40), TT: 'Y'.repeat(10) }, /ESR\.TT/],
      [{ TT: 'a=b' }, /ESR\.TT/],
      // "1-2" + "3" and "1" + "2-3" would be one series
      [{ TT: '2-3' }, /ESR\.TT/],
    ];
    for (const [esr, field] of refused) {
      const r = await post(`${svc.url}/register`, tra(esr, [['A', '1.00']]));
      assert.equal(r.status, 400, `${JSON.stringify(esr)}: ${r.text}`);
      assert.match(r.text, field);
    }
    const ok = await post(`${svc.url}/register`, tra({ TL: 'MAD-01', TT: '2' }, [['A', '1.00']]));
    assert.equal(ok.json.TraC.Fis.FN, 'TMAD-01-2/1', ok.text);
    const longest = await post(`${svc.url}/register`, tra({ TL: 'X'.repeat(46) }, [['A', '1.00']]));
    assert.equal(longest.json.TraC.Fis.FN, `T${'X'.repeat(46)}-1/1`, longest.text);
    // 12 lines (6 rates x 2 regimes) are the most a Desglose holds; a 13th (a third regime) is refused
    const pos = (letters: string[], regime: string): Array<Record<string, string>> => letters.map((g) => ({ _: 'Pos', Dsc: `${g} ${regime}`, TaxG: g, Amt: '1.00', VatRegime: regime }));
    const twelve = [...pos(['A', 'B', 'C', 'D', 'E', 'F'], 'GENERAL'), ...pos(['A', 'B', 'C', 'D', 'E', 'F'], 'SIMPLE')];
    const withPositions = (p: Array<Record<string, string>>): object => tra({ PosA: p.map((x, i) => ({ ...x, PN: String(i + 1) })), PayA: [{ _: 'Pay', Dsc: 'Efectivo', PayG: 'cash', Amt: `${p.length}.00` }] }, []);
    const r12 = await post(`${svc.url}/register`, withPositions(twelve));
    assert.equal(r12.json?.TraC?.Result?.RC, 'OK', r12.text);
    assert.equal([...(r12.json.TraC.Fis.Payload as string).matchAll(/<sum1:DetalleDesglose>/g)].length, 12);
    const r13 = await post(`${svc.url}/register`, withPositions([...twelve, ...pos(['A'], 'REDE')]));
    assert.equal(r13.status, 400, r13.text);
    assert.match(r13.text, /ESR\.TaxA/);
    assert.match(r13.text, /13 VAT lines/);
  } finally {
    await svc.stop();
  }
});
