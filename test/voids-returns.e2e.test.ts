/** Voids, returns, line voids, parking and reprints over real HTTP. */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { type TestService, get, post, startTestService } from './helpers.js';

let svc: TestService;
before(async () => {
  svc = await startTestService();
  await post(`${svc.url}/cfg`, { Cfg: { Loc: { TL: 'shop' }, Trm: { TT: '5' } } });
});
after(async () => {
  await svc.stop();
});

const apples = (qty: string, amt: string, extra: Record<string, unknown> = {}): Record<string, unknown> => ({ _: 'Pos', Dsc: 'Apples', IN: '4001', TaxG: 'B', Qty: qty, Pri: '0.50', Amt: amt, ...extra });
const bread = (qty: string, amt: string): Record<string, unknown> => ({ _: 'Pos', Dsc: 'Bread', TaxG: 'B', Qty: qty, Pri: '2.00', Amt: amt });
function tra(esr: Record<string, unknown>, total: string): { Tra: { ESR: Record<string, unknown> } } {
  return { Tra: { ESR: { TL: 'shop', TT: '5', T: total, PayA: [{ _: 'Pay', Dsc: 'Cash', PayG: 'cash', Amt: total }], ...esr } } };
}

describe('POST /register/void', () => {
  test('voids the original sent back: amounts and quantities inverted, references set, own TL/TT, new TN', async () => {
    const sale = await post(`${svc.url}/register`, tra({ PosA: [apples('3', '1.50'), bread('1', '2.00')] }, '3.50'));
    assert.equal(sale.json.TraC.Result.RC, 'OK', sale.text);
    const original = (await get(`${svc.url}/tra?TL=shop&TT=5&TN=${sale.json.TraC.ESR.TN}`)).json.Tra;
    const v = await post(`${svc.url}/register/void`, { Tra: original });
    assert.equal(v.json.TraC.Result.RC, 'OK', v.text);
    const voided = (await get(`${svc.url}/find?fn=${v.json.TraC.ESR.FN}`)).json.Find.Records[0];
    assert.equal(voided.BC, 'void');
    assert.equal(voided.ESR.Void, '1');
    assert.equal(voided.ESR.T, '-3.50');
    assert.deepEqual(voided.ESR.PosA.map((p: { Qty: string; Amt: string; Pri: string }) => [p.Qty, p.Pri, p.Amt]), [['-3', '0.50', '-1.50'], ['-1', '2.00', '-2.00']]);
    assert.equal(voided.ESR.PayA[0].Amt, '-3.50');
    assert.deepEqual([voided.ESR.RTL, voided.ESR.RTT, voided.ESR.RTN, voided.ESR.RFN, voided.ESR.RD], ['shop', '5', sale.json.TraC.ESR.TN, sale.json.TraC.ESR.FN, sale.json.TraC.ESR.D]);
    assert.deepEqual([voided.ESR.TL, voided.ESR.TT], ['shop', '5']);
    assert.equal(Number(voided.ESR.TN), Number(sale.json.TraC.ESR.TN) + 1);
    const again = await post(`${svc.url}/register/void`, { Tra: original });
    assert.equal(again.status, 400);
    assert.equal(again.json.TraC.Result.ErrorCode, '#ALREADY_VOIDED');
    const history = (await get(`${svc.url}/find?fn=${sale.json.TraC.ESR.FN}`)).json.Find.Records;
    assert.equal(history.length, 1, 'the original is not deleted');
  });

  test('a transaction of another instance can be voided; SESR sets the TN', async () => {
    const foreign = { TL: 'other', TT: '9', TN: '77', D: '2026-11-20T10:00:00', T: '2.00', PosA: [bread('1', '2.00')], PayA: [{ _: 'Pay', Dsc: 'Cash', Amt: '2.00' }] };
    const v = await post(`${svc.url}/register/void`, { Tra: { ESR: foreign, SESR: { TN: '9001' } } });
    assert.equal(v.json.TraC.Result.RC, 'OK', v.text);
    assert.equal(v.json.TraC.ESR.TN, '9001');
    const rec = (await get(`${svc.url}/find?fn=${v.json.TraC.ESR.FN}`)).json.Find.Records[0];
    assert.deepEqual([rec.ESR.RTL, rec.ESR.RTT, rec.ESR.RTN, rec.ESR.TL, rec.ESR.TT], ['other', '9', '77', 'shop', '5']);
    const twice = await post(`${svc.url}/register/void`, { Tra: { ESR: foreign } });
    assert.equal(twice.json.TraC.Result.ErrorCode, '#ALREADY_VOIDED');
  });

  test('/register/void/last voids the last transaction with the reason; a void is not voided again', async () => {
    const sale = await post(`${svc.url}/register`, tra({ PosA: [bread('2', '4.00')] }, '4.00'));
    const v = await post(`${svc.url}/register/void/last?rsn=wrong%20article`);
    assert.equal(v.json.TraC.Result.RC, 'OK', v.text);
    const rec = (await get(`${svc.url}/find?fn=${v.json.TraC.ESR.FN}`)).json.Find.Records[0];
    assert.equal(rec.ESR.Rsn, 'wrong article');
    assert.equal(rec.ESR.RTN, sale.json.TraC.ESR.TN);
    const again = await post(`${svc.url}/register/void/last`);
    assert.equal(again.status, 400);
    assert.match(again.json.TraC.Result.UserMessage, /itself a void/);
  });
});

describe('returns', () => {
  test('returns of one original cannot give back more than it sold', async () => {
    const sale = await post(`${svc.url}/register`, tra({ PosA: [apples('3', '1.50'), bread('1', '2.00')] }, '3.50'));
    const fn = sale.json.TraC.ESR.FN;
    const ret = (qty: string, amt: string): Promise<Awaited<ReturnType<typeof post>>> => post(`${svc.url}/register`, tra({ RFN: fn, PosA: [apples(qty, amt)] }, amt));
    const r1 = await ret('-2', '-1.00');
    assert.equal(r1.json.TraC.Result.RC, 'OK', r1.text);
    const r2 = await ret('-2', '-1.00');
    assert.equal(r2.status, 400);
    assert.equal(r2.json.TraC.Result.ErrorCode, '#RETURN_EXCEEDS');
    assert.match(r2.json.TraC.Result.UserMessage, /returns 2 of "4001", but only 1 of the original remain/);
    const r3 = await ret('-1', '-0.50');
    assert.equal(r3.json.TraC.Result.RC, 'OK', r3.text);
    const other = await post(`${svc.url}/register`, tra({ RTL: 'shop', RTT: '5', RTN: sale.json.TraC.ESR.TN, PosA: [{ _: 'Pos', Dsc: 'Milk', TaxG: 'B', Amt: '-1.00' }] }, '-1.00'));
    assert.equal(other.json.TraC.Result.ErrorCode, '#RETURN_EXCEEDS', 'an article the original did not sell');
    const breadBack = await post(`${svc.url}/register`, tra({ RTN: sale.json.TraC.ESR.TN, PosA: [bread('-1', '-2.00')] }, '-2.00'));
    assert.equal(breadBack.json.TraC.Result.RC, 'OK', breadBack.text);
  });
});

describe('line voids', () => {
  test('a voided line takes back an earlier position of the same receipt, no more', async () => {
    const ok = await post(`${svc.url}/register`, tra({ PosA: [apples('3', '1.50'), apples('-1', '-0.50', { Void: '1' })] }, '1.00'));
    assert.equal(ok.json.TraC.Result.RC, 'OK', ok.text);
    const bad = await post(`${svc.url}/register`, tra({ PosA: [apples('1', '0.50'), apples('-2', '-1.00', { Void: '1' })] }, '-0.50'));
    assert.equal(bad.status, 400);
    assert.equal(bad.json.TraC.Result.ErrorCode, '#LINE_VOID');
  });
});

describe('parking', () => {
  test('a parked receipt is resumed once; re-parking gives a new FN', async () => {
    const park1 = await post(`${svc.url}/register`, tra({ NF: 'PARK', PosA: [bread('1', '2.00')], PayA: undefined }, '2.00'));
    assert.equal(park1.json.TraC.Result.RC, 'OK', park1.text);
    const fn1 = park1.json.TraC.ESR.FN;
    const park2 = await post(`${svc.url}/register`, tra({ NF: 'PARK', ResumeFN: fn1, PosA: [bread('1', '2.00', ), apples('1', '0.50')].map((p, i) => (i === 0 ? { ...p, Resume: '1' } : p)), PayA: undefined }, '2.50'));
    assert.equal(park2.json.TraC.Result.RC, 'OK', park2.text);
    const fn2 = park2.json.TraC.ESR.FN;
    assert.notEqual(fn2, fn1);
    const stale = await post(`${svc.url}/register`, tra({ ResumeFN: fn1, PosA: [{ ...bread('1', '2.00'), Resume: '1' }] }, '2.00'));
    assert.equal(stale.json.TraC.Result.ErrorCode, '#ALREADY_RESUMED');
    const sale = await post(`${svc.url}/register`, tra({ ResumeFN: fn2, PosA: [{ ...bread('1', '2.00'), Resume: '1' }, { ...apples('1', '0.50'), Resume: '1' }] }, '2.50'));
    assert.equal(sale.json.TraC.Result.RC, 'OK', sale.text);
    const notParked = await post(`${svc.url}/register`, tra({ ResumeFN: sale.json.TraC.ESR.FN, PosA: [bread('1', '2.00')] }, '2.00'));
    assert.match(notParked.json.TraC.Result.UserMessage, /not the FN of a parked receipt/);
    const resumeWithout = await post(`${svc.url}/register`, tra({ PosA: [{ ...bread('1', '2.00'), Resume: '1' }] }, '2.00'));
    assert.match(resumeWithout.json.TraC.Result.UserMessage, /needs ESR\.ResumeFN/);
  });
});

describe('reprints', () => {
  test('NFS=DUP registers a reprint; /jou/reprintcnt reads and counts them', async () => {
    const sale = await post(`${svc.url}/register`, tra({ PosA: [bread('1', '2.00')] }, '2.00'));
    const tn = sale.json.TraC.ESR.TN;
    const q = `TL=shop&TT=5&TN=${tn}`;
    assert.equal((await get(`${svc.url}/jou/reprintcnt?${q}`)).text, '0');
    const dup = await post(`${svc.url}/register`, { Tra: { ESR: { TL: 'shop', TT: '5', NFS: 'DUP', RFN: sale.json.TraC.ESR.FN } } });
    assert.equal(dup.json.TraC.Result.RC, 'OK', dup.text);
    assert.equal((await get(`${svc.url}/jou/reprintcnt?${q}`)).text, '1');
    const counted = await post(`${svc.url}/jou/reprintcnt?${q}`);
    assert.equal(counted.status, 200, counted.text);
    assert.equal(counted.text, '2');
    const rec = (await get(`${svc.url}/find?nfs=DUP&limit=1rows`)).json.Find.Records[0];
    assert.equal(rec.BC, 'reprint');
    assert.equal(rec.ESR.RTN, tn);
  });
});
