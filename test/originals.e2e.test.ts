/** Rule 10 across the ways an original can be named, registers, years and business cases. */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ManualClock } from '../src/shared/clock.js';
import { get, http, post, startTestService } from './helpers.js';

const item = (dsc: string, qty: string, pri: string, amt: string, extra: Record<string, unknown> = {}): Record<string, unknown> => ({ _: 'Pos', Dsc: dsc, TaxG: 'B', Qty: qty, Pri: pri, Amt: amt, ...extra });
const tra = (esr: Record<string, unknown>, t: string): object => ({ Tra: { ESR: { T: t, PayA: [{ _: 'Pay', Dsc: 'Cash', PayG: 'cash', Amt: t }], ...esr } } });

describe('one register', () => {
  test('voids, returns and exchanges of one original cannot refund it twice', async () => {
    const svc = await startTestService();
    try {
      const s1 = await post(`${svc.url}/register`, tra({ PosA: [item('Mug', '2', '5.00', '10.00')] }, '10.00'));
      const fn1 = s1.json.TraC.ESR.FN;
      // a return written with a positive quantity and a negative amount still counts
      const r1 = await post(`${svc.url}/register`, tra({ RFN: fn1, PosA: [item('Mug', '1', '-5.00', '-5.00')] }, '-5.00'));
      assert.equal(r1.json.TraC.Result.RC, 'OK', r1.text);
      // an exchange (positive total) that takes back more than is left is refused
      const ex = await post(`${svc.url}/register`, tra({ RFN: fn1, PosA: [item('Mug', '-2', '5.00', '-10.00'), item('Vase', '1', '30.00', '30.00')] }, '20.00'));
      assert.equal(ex.json.TraC.Result.ErrorCode, '#RETURN_EXCEEDS', ex.text);
      const void1 = await post(`${svc.url}/register`, tra({ Void: '1', RFN: fn1, PosA: [item('Mug', '-2', '5.00', '-10.00')] }, '-10.00'));
      assert.equal(void1.json.TraC.Result.ErrorCode, '#ALREADY_RETURNED', void1.text);

      const s2 = await post(`${svc.url}/register`, tra({ PosA: [item('Mug', '1', '5.00', '5.00')] }, '5.00'));
      const v2 = await post(`${svc.url}/register/void`, { Tra: { ESR: (await get(`${svc.url}/find?fn=${s2.json.TraC.ESR.FN}`)).json.Find.Records[0].ESR } });
      assert.equal(v2.json.TraC.Result.RC, 'OK', v2.text);
      const r2 = await post(`${svc.url}/register`, tra({ RFN: s2.json.TraC.ESR.FN, PosA: [item('Mug', '-1', '5.00', '-5.00')] }, '-5.00'));
      assert.equal(r2.json.TraC.Result.ErrorCode, '#ALREADY_VOIDED', r2.text);
    } finally {
      await svc.stop();
    }
  });

  test('a foreign receipt with the same FN as a local one is voided as itself, under this register\'s TL/TT', async () => {
    const svc = await startTestService();
    try {
      const local = await post(`${svc.url}/register`, tra({ PosA: [item('Bread', '1', '2.00', '2.00')] }, '2.00'));
      assert.equal(local.json.TraC.ESR.FN, '1');
      const foreign = { ESR: { TL: 'other', TT: '9', TN: '1', D: '2026-11-20T10:00:00', T: '50.00', PosA: [item('TV', '1', '50.00', '50.00')], PayA: [{ _: 'Pay', Dsc: 'Cash', Amt: '50.00' }] }, Fis: { FN: '1' } };
      const v = await post(`${svc.url}/register/void`, { Tra: foreign });
      assert.equal(v.json.TraC.Result.RC, 'OK', v.text);
      const rec = (await get(`${svc.url}/find?fn=${v.json.TraC.ESR.FN}`)).json.Find.Records[0];
      assert.equal(rec.ESR.T, '-50.00');
      assert.deepEqual([rec.ESR.RTL, rec.ESR.RTT, rec.ESR.RTN], ['other', '9', '1']);
      assert.deepEqual([rec.ESR.TL ?? '', rec.ESR.TT], ['', '1'], 'own TL/TT, not the original\'s');
    } finally {
      await svc.stop();
    }
  });

  test('non-fiscal documents are not voided; /void/last passes over reprints and closings; SESR alone sets the TN', async () => {
    const svc = await startTestService();
    try {
      const sale = await post(`${svc.url}/register`, tra({ PosA: [item('Bread', '1', '2.00', '2.00')] }, '2.00'));
      const payout = await post(`${svc.url}/register`, { Tra: { ESR: { NFS: 'PAYOUT', T: '-10.00', PayA: [{ _: 'Pay', Dsc: 'Cash', Amt: '-10.00' }] } } });
      const v = await post(`${svc.url}/register/void`, { Tra: (await get(`${svc.url}/find?fn=${payout.json.TraC.ESR.FN}`)).json.Find.Records[0] });
      assert.equal(v.status, 400);
      assert.match(v.json.TraC.Result.UserMessage, /only fiscal transactions are voided/);
      await post(`${svc.url}/register`, { Tra: { ESR: { NFS: 'DUP', RFN: sale.json.TraC.ESR.FN } } });
      await post(`${svc.url}/register`, { Tra: { ESR: { NFS: 'Z' } } });
      const last = await post(`${svc.url}/register/void/last`, { SESR: { TN: '900' } });
      assert.equal(last.json.TraC.Result.RC, 'OK', last.text);
      assert.equal(last.json.TraC.ESR.TN, '900');
      const rec = (await get(`${svc.url}/find?fn=${last.json.TraC.ESR.FN}`)).json.Find.Records[0];
      assert.equal(rec.ESR.RTN, sale.json.TraC.ESR.TN);
      const unknown = await post(`${svc.url}/jou/reprintcnt?TL=nope&TN=999`);
      assert.equal(unknown.status, 404);
    } finally {
      await svc.stop();
    }
  });

  test('line voids take back no more than was sold, and only with a negative amount', async () => {
    const svc = await startTestService();
    try {
      const positive = await post(`${svc.url}/register`, tra({ PosA: [item('Apples', '1', '0.50', '0.50'), item('Apples', '1', '0.50', '0.50', { Void: '1' })] }, '1.00'));
      assert.equal(positive.json.TraC.Result.ErrorCode, '#LINE_VOID');
      const tooMuch = await post(`${svc.url}/register`, tra({ PosA: [item('Apples', '1', '0.50', '0.50'), item('Apples', '-1', '50.00', '-50.00', { Void: '1' })] }, '-49.50'));
      assert.equal(tooMuch.json.TraC.Result.ErrorCode, '#LINE_VOID');
    } finally {
      await svc.stop();
    }
  });
});

test('TN restarts each year: voiding TN 1 of last year does not block TN 1 of this year', async () => {
  const clock = new ManualClock(new Date(2026, 11, 31, 20, 0, 0));
  const svc = await startTestService({ clock });
  try {
    const old = await post(`${svc.url}/register`, tra({ TN: '1', PosA: [item('Bread', '1', '2.00', '2.00')] }, '2.00'));
    const v1 = await post(`${svc.url}/register`, tra({ Void: '1', RTL: '', RTT: '1', RTN: '1', PosA: [item('Bread', '-1', '2.00', '-2.00')] }, '-2.00'));
    assert.equal(v1.json.TraC.Result.RC, 'OK', v1.text);
    clock.set(new Date(2027, 0, 1, 9, 0, 0));
    const fresh = await post(`${svc.url}/register`, tra({ TN: '1', PosA: [item('Bread', '1', '2.00', '2.00')] }, '2.00'));
    assert.equal(fresh.json.TraC.Result.RC, 'OK', fresh.text);
    assert.notEqual(fresh.json.TraC.SQ, old.json.TraC.SQ);
    const v2 = await post(`${svc.url}/register`, tra({ Void: '1', RTL: '', RTT: '1', RTN: '1', PosA: [item('Bread', '-1', '2.00', '-2.00')] }, '-2.00'));
    assert.equal(v2.json.TraC.Result.RC, 'OK', v2.text);
  } finally {
    await svc.stop();
  }
});

test('Multi POS: an original voided at one register cannot be voided at another', async () => {
  const svc = await startTestService();
  try {
    await post(`${svc.url}/profile`, { Badge: 'B', TaxId: 'ATU1', RN_TT: true });
    const s = await post(`${svc.url}/register`, tra({ TL: 'A', TT: '1', PosA: [item('Bread', '1', '2.00', '2.00')] }, '2.00'));
    const original = (await get(`${svc.url}/tra?TL=A&TT=1&TN=${s.json.TraC.ESR.TN}`)).json.Tra;
    const first = await post(`${svc.url}/register/void?TL=B&TT=1`, { Tra: original });
    assert.equal(first.json.TraC.Result.RC, 'OK', first.text);
    const second = await post(`${svc.url}/register/void?TL=C&TT=1`, { Tra: original });
    assert.equal(second.json.TraC.Result.ErrorCode, '#ALREADY_VOIDED', second.text);
  } finally {
    await svc.stop();
  }
});

test('Fiscal_ZLaunch: the automatic Z does not take the POS\'s TN, and a refused return closes nothing', async () => {
  const clock = new ManualClock(new Date(2026, 10, 21, 18, 0, 0));
  const svc = await startTestService({ clock });
  try {
    await post(`${svc.url}/profile`, { Badge: 'B', Attributes: 'Fiscal_ZLaunch' });
    const s = await post(`${svc.url}/register`, tra({ TN: '1', PosA: [item('Mug', '1', '5.00', '5.00')] }, '5.00'));
    clock.advance(10 * 3600_000);
    const bad = await post(`${svc.url}/register`, tra({ TN: '2', RFN: s.json.TraC.ESR.FN, PosA: [item('Mug', '-3', '5.00', '-15.00')] }, '-15.00'));
    assert.equal(bad.json.TraC.Result.ErrorCode, '#RETURN_EXCEEDS');
    assert.equal((await get(`${svc.url}/find?nfs=Z`)).json.Find.Records.length, 0);
    const next = await post(`${svc.url}/register`, tra({ TN: '2', PosA: [item('Mug', '1', '5.00', '5.00')] }, '5.00'));
    assert.equal(next.json.TraC.ESR.TN, '2');
    const z = (await get(`${svc.url}/find?nfs=Z`)).json.Find.Records[0];
    assert.equal(z.ESR.TN, 'Z1');
    assert.equal((await get(`${svc.url}/tra?TT=1&TN=2`)).json.Tra.SQ, next.json.TraC.SQ);
  } finally {
    await svc.stop();
  }
});

test('audit trail: a large rewrite is bounded, browsers get the text, concurrent versions chain', async () => {
  const svc = await startTestService();
  try {
    const big = Array.from({ length: 20000 }, (_, i) => `line ${i}`).join('\n');
    // every other line changed: 20,000 edits, far past the diff's bound of 2,000
    const other = Array.from({ length: 20000 }, (_, i) => (i % 2 ? `other ${i}` : `line ${i}`)).join('\n');
    await http('PUT', `${svc.url}/repo?file=big.txt`, big, { 'content-type': 'text/plain' });
    const r = await http('PUT', `${svc.url}/repo?file=big.txt`, other, { 'content-type': 'text/plain' });
    assert.equal(r.status, 200);
    // the minimal diff would list the 10,000 changed lines twice (20,000 entries); past the bound the whole
    // old text is listed as removed and the new one as added, so the work stays bounded
    assert.equal(r.json.AuditC.Diff.length, 40000);
    assert.equal(r.json.AuditC.Diff[0], '-1 line 0');
    assert.equal(r.json.AuditC.Diff[20000], '+1 line 0');
    const browser = await get(`${svc.url}/repo?file=big.txt`, { accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8' });
    assert.match(browser.contentType, /text\/plain/);
    const puts = await Promise.all(['a', 'a\nb', 'a\nb\nc', 'a\nb\nc\nd'].map((t) => http('PUT', `${svc.url}/repo?file=chain.txt`, t, { 'content-type': 'text/plain' })));
    const diffs = puts.map((p) => p.json.AuditC.Diff as string[]);
    assert.equal(diffs.flat().filter((d) => d.startsWith('+')).length - diffs.flat().filter((d) => d.startsWith('-')).length, 4, 'each diff applies to the version before it');
  } finally {
    await svc.stop();
  }
});

test('/find till the last day of the year 9999 finds everything', async () => {
  const svc = await startTestService();
  try {
    await post(`${svc.url}/register`, tra({ PosA: [item('Mug', '1', '5.00', '5.00')] }, '5.00'));
    assert.equal((await get(`${svc.url}/find?till=9999-12-31`)).json.Find.Records.length, 1);
  } finally {
    await svc.stop();
  }
});
