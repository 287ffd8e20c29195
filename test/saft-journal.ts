/**
 * A Norwegian/Danish register's journal for the SAF-T export tests and the export bench: `bigJournal` makes
 * days of realistic records with the figures a Z report must show, `journalStore` writes them to a real
 * SQLite journal (placeholder hashes and signatures: the SAF-T writers write what the records hold).
 */
import { join } from 'node:path';
import { createHash } from 'node:crypto';
import type { Obj } from '../src/register/codec/index.js';
import { GENESIS } from '../src/register/journal/chain.js';
import { SqliteJournalStore } from '../src/register/journal/sqlite/sqlite-store.js';
import type { JournalRecord, RecordType } from '../src/register/journal/types.js';
import { initialState } from '../src/register/registers.js';

/** The register's configuration (organisation number 999888777, terminal 1). */
export const CFG: Obj = {
  Cfg: {
    Cmp: { Nam: 'Bakeri AS', TaxId: 'NO 999 888 777 MVA', Adr: 'Storgata 1', AdrNr: '1', Zip: '0155', City: 'Oslo' },
    Loc: { TL: '1', Nam: 'Butikk', Adr: 'Storgata 1', Zip: '0155', City: 'Oslo' },
    Trm: { TT: '1' },
  },
};

/** Integer øre as a money text: 12345 → "123.45". */
export const money = (c: number): string => `${c < 0 ? '-' : ''}${Math.floor(Math.abs(c) / 100)}.${String(Math.abs(c) % 100).padStart(2, '0')}`;
const vatOf = (gross: number, rate: number): number => Math.sign(gross) * Math.round((Math.abs(gross) * rate) / (100 + rate));

export interface Sums {
  grandSales: number;
  grandReturn: number;
  /** the last day's window */
  dayReturnNum: number;
  dayReturnAmnt: number;
  dayCashSale: number;
  dayVat25: number;
}

/**
 * `days` days of `perDay` records: POS start, login, sales (two VAT rates, a discount now and then, a Pos.Cat
 * 'SAL', a returned item on some sales receipts, a consumption tax on some), returns, voids, training
 * receipts, a drawer opening, a copy, an X and a Z report, a logout. Every cash transaction carries the
 * Norwegian and the Danish Fis fields. Sums: test-side figures in integer øre.
 */
export function bigJournal(days: number, perDay: number): { records: Obj[]; sums: Sums } {
  const out: Obj[] = [];
  let sq = 0;
  let fn = 0;
  const sums: Sums = { grandSales: 0, grandReturn: 0, dayReturnNum: 0, dayReturnAmnt: 0, dayCashSale: 0, dayVat25: 0 };
  const base = (type: string, ts: string): Obj => ({ _: type, SQ: String(++sq), RN: 'R1', TS: ts });
  for (let d = 0; d < days; d += 1) {
    const day = new Date(Date.UTC(2024, 0, 1 + d)).toISOString().slice(0, 10);
    const at = (n: number): string => `${day}T${String(6 + Math.floor(n / 3600)).padStart(2, '0')}:${String(Math.floor(n / 60) % 60).padStart(2, '0')}:${String(n % 60).padStart(2, '0')}`;
    sums.dayReturnNum = 0;
    sums.dayReturnAmnt = 0;
    sums.dayCashSale = 0;
    sums.dayVat25 = 0;
    out.push({ ...base('log', at(0)), Event: 'start' });
    out.push({ ...base('Tra', at(1)), BC: 'login', ESR: { D: at(1), NFS: 'LOGIN', Opr: '7', OprN: 'Kari Nordmann' }, Fis: { D: at(1) } });
    for (let i = 0; i < perDay - 7; i += 1) {
      const ts = at(10 + i * 50);
      const kind = i % 97 === 5 ? 'training' : i % 61 === 7 ? 'void' : i % 50 === 3 ? 'return' : 'sale';
      const sgn = kind === 'return' || kind === 'void' ? -1 : 1;
      const a = sgn * (2590 + (i % 13) * 100);
      let b = sgn * 3990 * (1 + (i % 3));
      const posA: Obj[] = [
        { _: 'Pos', PN: '1', Dsc: `Brød ${i % 20}`, SKU: `57${i % 20}`, TaxG: 'A', Amt: money(a), Qty: String(sgn), Pri: money(Math.abs(a)), Cat: '04006', CatN: 'Food' },
        { _: 'Pos', PN: '2', Dsc: 'Øl 0,5 l', TaxG: 'B', Amt: money(b), Qty: String(sgn * (1 + (i % 3))), Pri: '39.90', Cat: i % 11 === 0 ? 'SAL' : '04007', CatN: 'Beer' },
      ];
      if (kind === 'sale' && i % 5 === 0) {
        posA.push({ _: 'Mod', PN: '2', Dsc: 'Rabatt', TaxG: 'B', Amt: '-5.00' });
        b -= 500;
      }
      const returned = kind === 'sale' && i % 7 === 2 ? 3990 : 0;
      if (returned) {
        posA.push({ _: 'Pos', PN: '3', Dsc: 'Øl retur', TaxG: 'B', Amt: money(-returned), Qty: '-1', Pri: '39.90', Cat: '04007', CatN: 'Beer' });
        b -= returned;
      }
      const taxA: Obj[] = [
        { _: 'Tax', TaxG: 'A', Prc: '15', Net: money(a - vatOf(a, 15)), TAmt: money(vatOf(a, 15)), Amt: money(a) },
        { _: 'Tax', TaxG: 'B', Prc: '25', Net: money(b - vatOf(b, 25)), TAmt: money(vatOf(b, 25)), Amt: money(b) },
      ];
      // a consumption tax entry (not VAT: never in a vat block or the VAT figures)
      if (i % 9 === 1) taxA.push({ _: 'Tax', TaxG: 'C', TTY: 'CT', Prc: '25', Base: money(b), Amt: money(vatOf(b, 25)) });
      const total = a + b;
      const vat = vatOf(a, 15) + vatOf(b, 25);
      const pay = i % 4 === 0 ? 'debitcard' : 'cash';
      fn += 1;
      const fis: Obj = {
        D: ts, FN: String(fn), TransID: String(sq + 1), TransType: total < 0 ? 'RETURNSAL' : 'CASHSAL', EmpID: '7', RegisterID: '1', CompanyIdent: '12345678',
        TransDate: day, TransTime: ts.slice(11), AmntIn: money(total), AmntEx: money(total - vat),
        Signature: createHash('sha256').update(`sig ${fn}`).digest('base64'), KeyVersion: '1', CertSerial: '0A',
        ...(kind === 'training' ? { Training: '1' } : {}),
      };
      out.push({
        ...base('Tra', ts), BC: kind === 'training' ? 'sale' : kind, ...(kind === 'training' ? { BCF: 'test' } : {}), Fis: fis,
        ESR: {
          D: ts, TL: '1', TT: '1', TN: String(fn), T: money(total), Opr: '7', OprN: 'Kari Nordmann', PosA: posA,
          PayA: [{ _: 'Pay', Dsc: pay, Amt: money(total), PayG: pay }], TaxA: taxA,
          ...(kind === 'training' ? { Test: '1' } : {}), ...(kind === 'void' ? { Void: '1' } : {}),
        },
      });
      if (kind === 'training') continue;
      sums.dayCashSale += total;
      sums.dayVat25 += vatOf(b, 25);
      if (total >= 0) {
        sums.grandSales += total + returned;
        sums.grandReturn += returned;
      } else sums.grandReturn -= total;
      if (kind === 'return' || returned) {
        sums.dayReturnNum += 1;
        sums.dayReturnAmnt += kind === 'return' ? -total : returned;
      }
    }
    out.push({ ...base('Audit', at(25000)), Audit: { Type: 'DrawerOpen', Opr: '7' } });
    out.push({ ...base('Tra', at(25001)), BC: 'reprint', ESR: { D: at(25001), NFS: 'DUP', Opr: '7' }, Fis: { D: at(25001), RFN: String(fn - 1) } });
    out.push({ ...base('Tra', at(25002)), BC: 'xreport', ESR: { D: at(25002), NFS: 'X', Opr: '7' }, Fis: { D: at(25002), X: {} } });
    out.push({ ...base('Tra', at(25003)), BC: 'closing', ESR: { D: at(25003), NFS: 'Z', Opr: '7' }, Fis: { D: at(25003), Z: { ZI: String(d + 1) } } });
    out.push({ ...base('Tra', at(25004)), BC: 'logout', ESR: { D: at(25004), NFS: 'LOGOUT', Opr: '7' }, Fis: { D: at(25004) } });
  }
  return { records: out, sums };
}

/** A SQLite journal (in `dir`) of register R1 holding `records`, written in batches of 2,000. */
export async function journalStore(dir: string, records: Obj[]): Promise<{ store: SqliteJournalStore; rid: number }> {
  const store = new SqliteJournalStore(join(dir, 'journal.db'), { nosync: true });
  const rid = await store.createRegister('R1', initialState('R1'));
  const hash = Buffer.from(GENESIS.padEnd(64, '0').slice(0, 64), 'hex');
  for (let k = 0; k < records.length; k += 2000) {
    const batch: JournalRecord[] = records.slice(k, k + 2000).map((r) => ({
      rid, sq: Number(r.SQ), type: r._ as RecordType, d: r.TS as string, data: JSON.stringify(r), hash, sig: Buffer.alloc(64),
    }));
    await store.append(batch, new Map([[rid, JSON.stringify({ ...initialState('R1'), rid, sq: k + batch.length })]]));
  }
  return { store, rid };
}
