/**
 * buildDsfinvk over a journal in memory: Z_KASSE_ID is the closing register's serial number (Trm.Serial
 * of the configuration in force at the closing), the same in every table of the closing, equal to
 * KASSE_SERIENNR, and carried into references to the closing; a register without a serial falls back
 * to its number. A certificate longer than the two defined columns is split over further ones.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parse } from 'csv-parse/sync';
import type { Obj } from '../../../codec/index.js';
import type { JournalRecord, JournalStore, RecordType } from '../../../journal/types.js';
import { buildDsfinvk } from './build.js';

function store(records: JournalRecord[]): JournalStore {
  const s: Pick<JournalStore, 'find'> = {
    find: async function* () {
      yield* records;
    },
  };
  return s as JournalStore;
}

function journal(entries: Array<{ type: RecordType; d: string; data: Obj }>): JournalRecord[] {
  return entries.map((e, i) => ({ rid: 1, sq: i + 1, type: e.type, d: e.d, data: JSON.stringify(e.data), hash: Buffer.alloc(32), sig: Buffer.alloc(64) }));
}

const cfg = (serial?: string): Obj => ({
  Cmp: { Nam: 'Muster GmbH', Ctry: 'DE' },
  ...(serial !== undefined ? { Trm: { TT: '1', SW: 'Kasse', HW: 'PC', Serial: serial } } : {}),
});
const sale = (d: string, fn: string, extra: Obj = {}): { type: RecordType; d: string; data: Obj } => ({
  type: 'Tra', d,
  data: { BC: 'sale', ESR: { D: d, TN: fn, TT: '1', PosA: [{ _: 'Pos', PN: '1', Dsc: 'Brot', TaxG: 'A', Amt: '1.19' }], PayA: [{ _: 'Pay', Dsc: 'Bar', PayG: 'cash', Amt: '1.19' }], TaxA: [{ _: 'Tax', TaxG: 'A', Prc: '19', Amt: '1.19', TAmt: '0.19' }], ...extra }, Fis: { FN: fn } },
});
const closing = (d: string, zi: string): { type: RecordType; d: string; data: Obj } => ({ type: 'Tra', d, data: { BC: 'closing', ESR: { D: d, NFS: 'Z' }, Fis: { Z: { ZI: zi } } } });

async function tables(records: JournalRecord[], current: Obj, certificateB64 = 'QUJD'): Promise<Map<string, Array<Record<string, string>>>> {
  const out = await buildDsfinvk({
    store: store(records), rid: 1, rn: 'def', cfg: current, tse: { serialHex: 'ab'.repeat(32), publicKeyB64: 'UEs=', certificateB64 },
    open: false, now: '2026-11-25T12:00:00', software: { brand: 'efr', version: 'test' },
  });
  return new Map(out.tables.map((t) => [t.table.file, parse(t.text(), { columns: true, delimiter: ';', record_delimiter: '\r\n' }) as Array<Record<string, string>>]));
}

test('Z_KASSE_ID is the serial of the register at each closing, in every table and in references', async () => {
  const rows = await tables(
    journal([
      { type: 'Cfg', d: '2026-11-01T08:00:00', data: { Cfg: cfg('K-100') } },
      sale('2026-11-01T09:00:00', 'F1'),
      closing('2026-11-01T20:00:00', '1'),
      { type: 'Cfg', d: '2026-11-02T08:00:00', data: { Cfg: cfg('K-200') } },
      { ...sale('2026-11-02T09:00:00', 'F2', { RFN: 'F1' }), data: { BC: 'sale', ESR: { D: '2026-11-02T09:00:00', TN: 'F2', RFN: 'F1', PosA: [], PayA: [] }, Fis: { FN: 'F2' } } },
      closing('2026-11-02T20:00:00', '2'),
    ]),
    cfg('K-200'),
  );
  const byZ = new Map<string, Set<string>>();
  for (const [file, list] of rows) {
    for (const r of list) {
      assert.ok(r.Z_KASSE_ID !== undefined, `${file} carries Z_KASSE_ID`);
      byZ.set(r.Z_NR ?? '', (byZ.get(r.Z_NR ?? '') ?? new Set()).add(r.Z_KASSE_ID));
    }
  }
  assert.deepEqual([...(byZ.get('1') ?? [])], ['K-100'], 'closing 1: one Z_KASSE_ID in all tables');
  assert.deepEqual([...(byZ.get('2') ?? [])], ['K-200'], 'closing 2: the serial configured before it');
  assert.deepEqual((rows.get('cashregister.csv') ?? []).map((r) => [r.Z_NR, r.Z_KASSE_ID, r.KASSE_SERIENNR]), [['1', 'K-100', 'K-100'], ['2', 'K-200', 'K-200']]);
  assert.deepEqual((rows.get('references.csv') ?? []).map((r) => [r.BON_ID, r.REF_TYP, r.REF_Z_KASSE_ID, r.REF_Z_NR, r.REF_BON_ID]), [['F2', 'Transaktion', 'K-100', '1', 'F1']]);
});

test('a register never given a serial is identified by its number', async () => {
  const rows = await tables(journal([sale('2026-11-01T09:00:00', 'F1'), closing('2026-11-01T20:00:00', '1')]), cfg());
  for (const [file, list] of rows) for (const r of list) assert.equal(r.Z_KASSE_ID, 'def', file);
  assert.equal(rows.get('cashregister.csv')?.[0]?.KASSE_SERIENNR, 'def');
});

test('a serial configured later identifies the closings before it too', async () => {
  const rows = await tables(journal([sale('2026-11-01T09:00:00', 'F1'), closing('2026-11-01T20:00:00', '1')]), cfg('K-9'));
  assert.deepEqual([...new Set([...rows.values()].flat().map((r) => r.Z_KASSE_ID))], ['K-9']);
  assert.equal(rows.get('cashregister.csv')?.[0]?.KASSE_SERIENNR, 'K-9');
});

test('tse.csv: the certificate in TSE_ZERTIFIKAT_I and _II, further parts only for a longer one', async () => {
  const records = journal([sale('2026-11-01T09:00:00', 'F1'), closing('2026-11-01T20:00:00', '1')]);
  const short = (await tables(records, cfg('K-1'), 'A'.repeat(1200))).get('tse.csv')?.[0] ?? {};
  assert.deepEqual(Object.keys(short).filter((k) => k.startsWith('TSE_ZERTIFIKAT_')), ['TSE_ZERTIFIKAT_I', 'TSE_ZERTIFIKAT_II']);
  assert.deepEqual([short.TSE_ZERTIFIKAT_I?.length, short.TSE_ZERTIFIKAT_II?.length], [1000, 200]);
  const cert = 'B'.repeat(1000) + 'C'.repeat(1000) + 'D'.repeat(500);
  const long = (await tables(records, cfg('K-1'), cert)).get('tse.csv')?.[0] ?? {};
  assert.deepEqual(Object.keys(long).filter((k) => k.startsWith('TSE_ZERTIFIKAT_')), ['TSE_ZERTIFIKAT_I', 'TSE_ZERTIFIKAT_II', 'TSE_ZERTIFIKAT_III']);
  assert.equal(`${long.TSE_ZERTIFIKAT_I}${long.TSE_ZERTIFIKAT_II}${long.TSE_ZERTIFIKAT_III}`, cert, 'nothing cut');
});

test('a long serial configured after the closing: Z_KASSE_ID holds its first 50 characters, KASSE_SERIENNR all of it', async () => {
  const serial = `S${'0123456789'.repeat(6)}`; // 61 characters: more than Z_KASSE_ID's 50, within KASSE_SERIENNR's 70
  const rows = await tables(
    journal([{ type: 'Cfg', d: '2026-11-01T08:00:00', data: { Cfg: cfg() } }, sale('2026-11-01T09:00:00', 'F1'), closing('2026-11-01T20:00:00', '1')]),
    cfg(serial),
  );
  const register = rows.get('cashregister.csv')?.[0] ?? {};
  assert.equal(register.Z_KASSE_ID, serial.slice(0, 50));
  assert.equal(register.KASSE_SERIENNR, serial);
});
