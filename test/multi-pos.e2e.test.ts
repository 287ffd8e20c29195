/** Multi POS (RN_TT) and Multi Company: the register follows from TaxId, TL and TT. */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { type TestService, get, post, sale, startTestService } from './helpers.js';

let svc: TestService;
before(async () => {
  svc = await startTestService();
});
after(async () => {
  await svc.stop();
});

test('with RN_TT each TL/TT is its own register TaxId$TL_TT with its own SQ, TN and FN', async () => {
  const p = await post(`${svc.url}/profile`, { Badge: 'COMPANY-BADGE', TaxId: 'ATU1', RN_TT: true });
  assert.equal(p.status, 200, p.text);
  const a1 = await post(`${svc.url}/register`, sale({ TL: 'L1', TT: 'T1' }));
  const b1 = await post(`${svc.url}/register`, sale({ TL: 'L1', TT: 'T2' }));
  const a2 = await post(`${svc.url}/register`, sale({ TL: 'L1', TT: 'T1' }));
  for (const r of [a1, b1, a2]) assert.equal(r.json.TraC.Result.RC, 'OK', r.text);
  assert.equal(a1.json.TraC.SQ, 1);
  assert.equal(b1.json.TraC.SQ, 1);
  assert.equal(a2.json.TraC.SQ, 2);
  assert.equal(a2.json.TraC.ESR.FN, '2');
  assert.match(a1.json.TraC.Fis.Payload, /^EFR1;ATU1\$L1_T1;1;/);
  const state = await get(`${svc.url}/state`);
  assert.deepEqual(state.json.RN.split(' ').sort(), ['ATU1$L1_T1', 'ATU1$L1_T2']);
  const last = await get(`${svc.url}/last?TL=L1&TT=T2`);
  assert.equal(last.json.TraC.SQ, 1);
  const byRn = await get(`${svc.url}/last?rn=${encodeURIComponent('ATU1$L1_T1')}`);
  assert.equal(byRn.json.TraC.SQ, 2);
});

test('with RN_TT a request without TL or TT is refused; other routes need rn or TL/TT', async () => {
  const noTl = await post(`${svc.url}/register`, sale({ TL: undefined, TT: 'T1' }));
  assert.equal(noTl.status, 400);
  assert.equal(noTl.json.TraC.Result.ErrorCode, '#REGISTER_REQUIRED');
  assert.match(noTl.json.TraC.Result.UserMessage, /ESR\.TL is required/);
  const noRn = await get(`${svc.url}/last`);
  assert.equal(noRn.status, 400);
  assert.match(noRn.text, /rn \(or TaxId, TL and TT\)/);
});

test('Multi Company: without a TaxId in the profile, every request must carry its TaxId', async () => {
  const p = await post(`${svc.url}/profile`, { Badge: 'ORG-BADGE', TaxId: '', RN_TT: true });
  assert.equal(p.status, 200, p.text);
  const none = await post(`${svc.url}/register`, sale({ TL: 'L1', TT: 'T1' }));
  assert.equal(none.json.TraC.Result.ErrorCode, '#REGISTER_REQUIRED');
  assert.match(none.json.TraC.Result.UserMessage, /ESR\.TaxId/);
  const c1 = await post(`${svc.url}/register`, sale({ TaxId: 'DE999', TL: 'L1', TT: 'T1' }));
  assert.equal(c1.json.TraC.SQ, 1);
  assert.match(c1.json.TraC.Fis.Payload, /^EFR1;DE999\$L1_T1;/);
  const cfg = await post(`${svc.url}/cfg`, { Cfg: { Cmp: { Nam: 'Two', TaxId: 'DE999' }, Loc: { TL: 'L1' }, Trm: { TT: 'T1' } } });
  assert.equal(cfg.json.CfgC.Result.RC, 'OK', cfg.text);
  const got = await get(`${svc.url}/cfg?TaxId=DE999&TL=L1&TT=T1`);
  assert.equal(got.json.Cfg.Cmp.Nam, 'Two');
});

test('an instance serves at most EFR_MAX_POS POS installations (a cloud instance 100): the next new register is refused, known ones go on', async () => {
  const limited = await startTestService({ env: { EFR_MAX_POS: '3' } });
  try {
    assert.equal((await post(`${limited.url}/profile`, { Badge: 'COMPANY-BADGE', TaxId: 'ATU1', RN_TT: true })).status, 200);
    for (const tt of ['T1', 'T2', 'T3']) assert.equal((await post(`${limited.url}/register`, sale({ TL: 'L1', TT: tt }))).json.TraC.Result.RC, 'OK');
    const fourth = await post(`${limited.url}/register`, sale({ TL: 'L1', TT: 'T4' }));
    assert.equal(fourth.status, 400, fourth.text);
    assert.equal(fourth.json.TraC.Result.ErrorCode, '#REGISTER_LIMIT');
    assert.match(fourth.json.TraC.Result.UserMessage, /ATU1\$L1_T4 .*at most 3 POS/);
    assert.deepEqual((await get(`${limited.url}/state`)).json.RN.split(' ').sort(), ['ATU1$L1_T1', 'ATU1$L1_T2', 'ATU1$L1_T3'], 'nothing of T4 was made');
    assert.equal((await post(`${limited.url}/register`, sale({ TL: 'L1', TT: 'T2' }))).json.TraC.Result.RC, 'OK', 'a known register goes on');
    // every other way a register would be made is refused too: base data for a new terminal (Multi POS)
    const cfg = await post(`${limited.url}/cfg`, { Cfg: { Cmp: { TaxId: 'ATU1' }, Loc: { TL: 'L1' }, Trm: { TT: 'T9' } } });
    assert.equal(cfg.status, 400, cfg.text);
    assert.match(cfg.text, /#REGISTER_LIMIT/);
    assert.equal((await get(`${limited.url}/state`)).json.RN.split(' ').length, 3);
  } finally {
    await limited.stop();
  }
});
