/** Day closing (NFS=Z), Fiscal_ZLaunch and Fis_Tot over real HTTP, checked against the journal. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ManualClock } from '../src/shared/clock.js';
import { zFromJournal } from '../src/register/closing/z-report.js';
import { decodeXml } from '../src/register/codec/xml.js';
import type { Obj } from '../src/register/codec/index.js';
import { get, post, sale, startTestService } from './helpers.js';

const Z_ELEMENTS = ['ZI', 'T', 'DrawerOpenCnt', 'CreditAmt', 'CreditCnt', 'DiscountCnt', 'DiscountAmt', 'SurchargeCnt', 'SurchargeAmt', 'ZPeriod', 'TSDayOpen', 'TSDayClose', 'ZFisUnitA', 'ZFisTraA', 'ZCatA', 'ZPayA', 'ZCreditRsnA', 'ZTaxA', 'ZOprA'];

test('NFS=Z closes the day: Z and Fis.Z with every element, equal to what the journal since the last Z gives', async () => {
  const clock = new ManualClock(new Date(2026, 10, 21, 8, 0, 0));
  const svc = await startTestService({ clock });
  try {
    const day = [
      { Tra: { ESR: { NFS: 'LOGIN', Opr: 'anna', OprSSN: '111' } } },
      sale({ Opr: 'anna', PosA: [{ _: 'Pos', Dsc: 'Coffee', TaxG: 'A', Amt: '3.50', Cat: 'drinks' }, { _: 'Pos', Dsc: 'Cake', TaxG: 'B', Amt: '4.00', Cat: 'food' }, { _: 'Mod', Dsc: '-10%', Amt: '-0.40', PN: '2' }], PayA: [{ _: 'Pay', Dsc: 'Cash', PayG: 'cash', Amt: '10.00' }, { _: 'Pay', Dsc: 'Change', PayG: 'change', Amt: '-2.90' }] }),
      sale({ Opr: 'anna', PosA: [{ _: 'Pos', Dsc: 'Coffee', TaxG: 'A', Amt: '3.50', Cat: 'drinks' }], PayA: [{ _: 'Pay', Dsc: 'Card', PayG: 'creditcard', Amt: '3.50' }] }),
      sale({ Opr: 'anna', RFN: '2', Rsn: 'damaged', PosA: [{ _: 'Pos', Dsc: 'Coffee', TaxG: 'A', Amt: '-3.50', Cat: 'drinks' }], PayA: [{ _: 'Pay', Dsc: 'Cash', PayG: 'cash', Amt: '-3.50' }] }),
      { Tra: { ESR: { NF: 'ORDER', Opr: 'anna', PosA: [{ _: 'Pos', Dsc: 'Table 4', TaxG: 'A', Amt: '9.00' }] } } },
      { Tra: { ESR: { NFS: 'PAYIN', Opr: 'anna', T: '50.00', PayA: [{ _: 'Pay', Dsc: 'Float', PayG: 'cash', Amt: '50.00' }] } } },
      { Tra: { ESR: { NFS: 'LOGOUT', Opr: 'anna', OprSSN: '111' } } },
    ];
    for (const body of day) {
      clock.advance(60_000);
      const r = await post(`${svc.url}/register`, body);
      assert.equal(r.json.TraC.Result.RC, 'OK', r.text);
    }
    clock.advance(60_000);
    const z = await post(`${svc.url}/register`, { Tra: { ESR: { NFS: 'Z', Opr: 'anna' } } });
    assert.equal(z.status, 200, z.text);
    const c = z.json.TraC;
    assert.deepEqual(Object.keys(c.Z).sort(), ['CAmt', 'LastD', 'LastSQ', 'T', 'ZTax']);
    assert.equal(c.Z.T, '7.10');
    assert.equal(c.Z.LastSQ, '7');
    const fz = c.Fis.Z;
    for (const k of Z_ELEMENTS) assert.ok(k in fz, `Fis.Z.${k}`);
    assert.equal(fz.ZI, '1');
    assert.equal(fz.T, '7.10');
    assert.equal(fz.ZPeriod, '2026-11-21');
    assert.equal(fz.DiscountCnt, '1');
    assert.equal(fz.DiscountAmt, '-0.40');
    assert.deepEqual(fz.ZTaxA.map((t: Obj) => [t.TaxG, t.Amt]), [['A', '3.50'], ['B', '3.60']]);
    assert.ok(fz.ZOprA[0].ZAuditA.some((a: Obj) => a.Code === 'CLOCKIN'));
    assert.ok(fz.ZOprA[0].ZAuditA.some((a: Obj) => a.Code === 'CLOCKOUT'));

    // the same from the journal: the records since the last Z, folded
    const records = (await get(`${svc.url}/find?sort=asc&_=Tra&till=2026-11-21`)).json.Find.Records as Obj[];
    const before = records.filter((r) => Number(r.SQ) < c.SQ);
    const fromJournal = zFromJournal(before, { zi: 1, now: c.Fis.D, lastSq: c.SQ - 1, lastD: undefined, fisUnitId: fz.ZFisUnitA[0].ID });
    assert.deepEqual(fromJournal.z, c.Z);
    assert.deepEqual(fromJournal.fisZ, fz);

    // the next Z covers only what came after
    clock.advance(60_000);
    await post(`${svc.url}/register`, sale({ PosA: [{ _: 'Pos', Dsc: 'Tea', TaxG: 'A', Amt: '2.00' }], PayA: [{ _: 'Pay', Dsc: 'Cash', Amt: '2.00' }] }));
    const z2 = await post(`${svc.url}/register`, { Tra: { ESR: { NFS: 'Z' } } }, { accept: 'text/xml' });
    const x = decodeXml(z2.text).body as Record<string, Obj>;
    assert.equal((x.Z as Obj).T, '2.00');
    assert.equal(((x.Fis as Obj).Z as Obj).ZI, '2');
    assert.ok(Array.isArray((x.Z as Obj).ZTax));
  } finally {
    await svc.stop();
  }
});

test('Fiscal_ZLaunch inserts a Z before the first transaction of a new date; Fis_Tot adds grand totals', async () => {
  const clock = new ManualClock(new Date(2026, 10, 21, 18, 0, 0));
  const svc = await startTestService({ clock });
  try {
    await post(`${svc.url}/profile`, { Badge: 'B', Attributes: 'Fiscal_ZLaunch Fis_Tot' });
    const a = await post(`${svc.url}/register`, sale());
    assert.equal(a.json.TraC.Result.RC, 'OK', a.text);
    const gt1 = a.json.TraC.Fis.Tag.find((t: Obj) => t.Name === 'GT');
    assert.equal(gt1.Value, '4.70');
    const b = await post(`${svc.url}/register`, sale());
    assert.equal(b.json.TraC.Fis.Tag.find((t: Obj) => t.Name === 'GT').Value, '9.40');
    assert.equal(b.json.TraC.SQ, 2);
    clock.advance(8 * 3600_000); // 2026-11-22 02:00
    const bad = await post(`${svc.url}/register`, sale({ T: '1.00' }));
    assert.equal(bad.status, 400, 'a refused transaction does not close the day');
    const c = await post(`${svc.url}/register`, sale());
    assert.equal(c.json.TraC.Result.RC, 'OK', c.text);
    assert.equal(c.json.TraC.SQ, 4, 'the automatic Z took SQ 3');
    const z = (await get(`${svc.url}/find?sq=3`)).json.Find.Records[0];
    assert.equal(z.BC, 'closing');
    assert.equal(z.ESR.NFS, 'Z');
    assert.equal(z.Z.T, '9.40');
    assert.equal(z.Fis.Z.ZPeriod, '2026-11-21');
    assert.equal(c.json.TraC.Fis.Tag.find((t: Obj) => t.Name === 'GT').Value, '14.10', 'a Z does not reset grand totals');
    const d = await post(`${svc.url}/register`, sale());
    assert.equal(d.json.TraC.SQ, 5, 'no second automatic Z the same day');
  } finally {
    await svc.stop();
  }
});
