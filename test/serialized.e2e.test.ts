/**
 * Transactions that must see each other are serialized from their journal lookups to their commit:
 * the same TL/TT/TN, and voids, returns and reprints of one original. The races are made likely the way
 * they happen in a shop: a country module whose signature device answers with a varying delay (France's
 * key store, wrapped with a delay), and a busy day whose journal read for the Z takes a while.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ManualClock } from '../src/shared/clock.js';
import { moduleFor } from '../src/register/fiscal/registry.js';
import type { FiscalModule, PrepareInput } from '../src/register/fiscal/module.js';
import type { JournalStore } from '../src/register/journal/types.js';
import { type HttpAnswer, get, post, startTestService } from './helpers.js';

const item = (amt: string): Record<string, string> => ({ _: 'Pos', Dsc: 'Mug', TaxG: 'B', Qty: amt.startsWith('-') ? '-1' : '1', Pri: amt.replace('-', ''), Amt: amt });
const tra = (esr: Record<string, unknown>, t: string): object => ({ Tra: { ESR: { TL: '1', TT: '1', T: t, PayA: [{ _: 'Pay', Dsc: 'Cash', PayG: 'cash', Amt: t }], ...esr } } });
const codes = (rs: HttpAnswer[]): string[] => rs.map((r) => (r.status === 200 ? 'OK' : String(r.json?.TraC?.Result?.ErrorCode))).sort();
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** The module's prepare answers after `delays[i]` ms for the i-th call (then as fast as it can). */
function slowPrepare(m: FiscalModule, delays: number[]): void {
  const prepare = m.prepare?.bind(m);
  let n = 0;
  m.prepare = async (input: PrepareInput): Promise<void> => {
    await sleep(delays[n++] ?? 0);
    await prepare?.(input);
  };
}

describe('transactions naming the same TN or original are serialized', () => {
  test('France, with a key store answering slowly: duplicates numbered 1..n, one void, one sale per TN', async () => {
    const svc = await startTestService({ clock: new ManualClock(new Date(2026, 10, 21, 18, 0, 0)) });
    try {
      assert.equal((await post(`${svc.url}/cfg`, { Cfg: { Cmp: { Nam: 'Café', Ctry: 'FR', TaxId: 'FR12345678901' } } })).status, 200);
      const sale = await post(`${svc.url}/register`, tra({ PosA: [item('5.00')] }, '5.00'));
      assert.equal(sale.status, 200, sale.text);
      const fn = sale.json.TraC.ESR.FN as string;
      const m = moduleFor(svc.ctx.registers.get('def')?.state.cfg ?? {});
      const delays: number[] = [];
      slowPrepare(m, delays);
      // the first request is the slow one: without the lock the second overtakes its lookups
      delays.push(80, 5);
      const dups = await Promise.all([1, 2].map(() => post(`${svc.url}/register`, { Tra: { ESR: { TL: '1', TT: '1', NFS: 'DUP', RFN: fn } } })));
      const numbers = dups.map((r) => (r.json.TraC.Fis.Tag as Array<{ Name: string; Value: string }>).find((t) => t.Name === 'Dup')?.Value).sort();
      assert.deepEqual(numbers, ['DUPLICATA n° 1', 'DUPLICATA n° 2']);
      delays.push(80, 5);
      const voids = await Promise.all([1, 2].map(() => post(`${svc.url}/register`, tra({ Void: '1', RFN: fn, PosA: [item('-5.00')] }, '-5.00'))));
      assert.deepEqual(codes(voids), ['#ALREADY_VOIDED', 'OK']);
      delays.push(80, 5);
      const sameTn = await Promise.all(['5.00', '6.00'].map((a) => post(`${svc.url}/register`, tra({ TN: '77', PosA: [item(a)] }, a))));
      assert.deepEqual(codes(sameTn), ['#TN_USED', 'OK']);
      // many at once: every reprint gets its own number, no request fails
      const many = await Promise.all([...Array(12)].map(() => post(`${svc.url}/register`, { Tra: { ESR: { TL: '1', TT: '1', NFS: 'DUP', RFN: fn } } })));
      assert.deepEqual(codes(many), Array(12).fill('OK'));
      const all = many.map((r) => Number(/n° (\d+)/.exec(JSON.stringify(r.json.TraC.Fis.Tag))?.[1])).sort((a, b) => a - b);
      assert.deepEqual(all, [...Array(12)].map((_, i) => i + 3));
    } finally {
      await svc.stop();
    }
  });

  test('Fiscal_ZLaunch on a busy day: two first transactions of a day make one Z of the day before, and one void of one original', async () => {
    const clock = new ManualClock(new Date(2026, 10, 21, 18, 0, 0));
    const svc = await startTestService({ clock });
    try {
      await post(`${svc.url}/profile`, { Badge: 'B', Attributes: 'Fiscal_ZLaunch' });
      const first = await post(`${svc.url}/register`, tra({ PosA: [item('5.00')] }, '5.00'));
      assert.equal(first.status, 200, first.text);
      // the Z reads the day from the journal: slowly, as on a busy day
      const store = svc.ctx.store as JournalStore;
      const range = store.range.bind(store);
      store.range = async function* (...a: Parameters<JournalStore['range']>) {
        await sleep(60);
        yield* range(...a);
      };
      clock.advance(8 * 3600_000);
      const sales = await Promise.all([1, 2].map(() => post(`${svc.url}/register`, tra({ PosA: [item('7.00')] }, '7.00'))));
      assert.deepEqual(codes(sales), ['OK', 'OK']);
      clock.advance(24 * 3600_000);
      const fn = sales[0]?.json.TraC.ESR.FN as string;
      const voids = await Promise.all([1, 2].map(() => post(`${svc.url}/register`, tra({ Void: '1', RFN: fn, PosA: [item('-7.00')] }, '-7.00'))));
      assert.deepEqual(codes(voids), ['#ALREADY_VOIDED', 'OK']);
      const found = await get(`${svc.url}/find?sort=asc&_=Tra&nfs=Z&limit=1000rows`);
      const zs = (found.json.Find.Records as Array<{ Fis: { Z: { ZPeriod: string } }; Z: { T: string } }>).map((r) => `${r.Fis.Z.ZPeriod} ${r.Z.T}`);
      assert.deepEqual(zs, ['2026-11-21 5.00', '2026-11-22 14.00'], 'one Z per day, each closing the day before');
    } finally {
      await svc.stop();
    }
  });
});
