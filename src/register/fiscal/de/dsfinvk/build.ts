/**
 * The DSFinV-K export of a German register, read from its journal: every closing (Z) is one
 * Kassenabschluss; the receipts since the Z before it are its Vorgänge. With `open` the receipts after
 * the last Z form a closing too, numbered as the next Z and dated at the export. Each receipt gives
 * its Bonkopf with VAT, payments, references and TSE transaction, its positions with VAT and price
 * finding; each closing its master data (company, location, register, terminals, agencies, VAT rates,
 * TSE) and its sums per business case, payment type and currency. Decisions: docs/countries/de.md.
 */
import i18nCountries from 'i18n-iso-countries';
import { type Dec, ZERO, add, dec, div, eq, fmt, parseDec, sign, sub, taxOfGross } from '../../../../shared/money.js';
import { type Obj, isObj, lines, obj, str } from '../../../codec/index.js';
import { type BusinessCase, type BusinessKind, classify } from '../../../esr/business-case.js';
import { analyzePositions, qtyOf } from '../../../esr/tax.js';
import type { JournalRecord, JournalStore } from '../../../journal/types.js';
import { CsvTable, type Row } from '../gdpdu/csv.js';
import { gvTypOf, processOf, zahlartOf } from '../process.js';
import { TABLES, TAXONOMY_VERSION, tableOf } from './tables.js';

export interface DsfinvkSource {
  store: JournalStore;
  rid: number;
  rn: string;
  /** the register's configuration now (master data before the first Cfg record) */
  cfg: Obj;
  tse: { serialHex: string; publicKeyB64: string; certificateB64: string };
  /** dates YYYY-MM-DD of the closings (Z_ERSTELLUNG) to export, inclusive */
  from?: string;
  till?: string;
  /** include the receipts after the last Z as a closing numbered as the next one */
  open: boolean;
  /** local date-time of the export */
  now: string;
  software: { brand: string; version: string };
}

export interface DsfinvkTables {
  tables: CsvTable[];
  closings: number;
  receipts: number;
  /** the first and last date of the exported closings */
  first?: string;
  last?: string;
}

/** DSFinV-K's keys of the German VAT rates; other rates get keys from 1000 on. */
const VAT_KEYS: ReadonlyArray<[string, number, string]> = [
  ['19', 1, 'Regelsteuersatz'],
  ['7', 2, 'Ermäßigter Steuersatz'],
  ['10.7', 3, 'Durchschnittsatz (§ 24 Abs. 1 Nr. 3 UStG)'],
  ['5.5', 4, 'Durchschnittsatz (§ 24 Abs. 1 Nr. 1 UStG)'],
  ['0', 5, 'Nicht Steuerbar'],
  ['16', 11, 'Historischer Regelsteuersatz'],
  ['5', 12, 'Historischer ermäßigter Steuersatz'],
  ['9.5', 13, 'Historischer Durchschnittsatz (§ 24 Abs. 1 Nr. 3 UStG)'],
];

interface Bon {
  record: JournalRecord;
  data: Obj;
  esr: Obj;
  fis: Obj;
  bc: BusinessCase;
  id: string;
}

const alpha3 = (alpha2: string | undefined): string => (alpha2 ? (i18nCountries.alpha2ToAlpha3(alpha2.toUpperCase()) ?? alpha2) : '');
const d0 = (text: string | undefined): Dec => parseDec(text ?? '0') ?? ZERO;
const street = (o: Obj | undefined): string => (o ? [str(o, 'Adr'), str(o, 'AdrNr')].filter(Boolean).join(' ') : '');
const digits = (text: string | undefined): string | undefined => (text !== undefined && /^\d{1,18}$/.test(text) ? text : undefined);

class Sums {
  readonly m = new Map<string, { key: string[]; amounts: Dec[] }>();
  add(key: string[], amounts: Dec[]): void {
    const k = JSON.stringify(key);
    const e = this.m.get(k);
    if (!e) this.m.set(k, { key, amounts: [...amounts] });
    else e.amounts = e.amounts.map((a, i) => add(a, amounts[i] ?? ZERO));
  }
}

export async function buildDsfinvk(src: DsfinvkSource): Promise<DsfinvkTables> {
  const t = new Map(TABLES.map((x) => [x.file, new CsvTable(x)]));
  const table = (file: string): CsvTable => t.get(file) ?? new CsvTable(tableOf(file));
  const kasseId = src.rn.replace(/[^A-Za-z0-9.$-]/g, '-').slice(0, 50);
  const vatKeys = new Map<string, number>(VAT_KEYS.map(([r, k]) => [fmt(dec(r), 2), k]));
  const vatKey = (rate: Dec): number => {
    const k = fmt(rate, 2);
    let key = vatKeys.get(k);
    if (key === undefined) {
      key = 1000 + vatKeys.size - VAT_KEYS.length;
      vatKeys.set(k, key);
    }
    return key;
  };
  /** TID -> D of its TraS (the start of the transaction) */
  const starts = new Map<string, string>();
  /** BON_ID (FN) -> its closing, for references */
  const closingOf = new Map<string, { zNr: number; zDate: string }>();
  // the configuration of a closing is the one at its time (before the first Cfg record: the current one)
  let cfg: Obj = src.cfg;
  let day: Bon[] = [];
  let lastZ = 0;
  const out: DsfinvkTables = { tables: [], closings: 0, receipts: 0 };

  const emit = (zNr: number, zDate: string): void => {
    for (const b of day) closingOf.set(b.id, { zNr, zDate });
    const date = zDate.slice(0, 10);
    if ((src.from !== undefined && date < src.from) || (src.till !== undefined && date > src.till)) return;
    out.closings += 1;
    out.receipts += day.length;
    out.first ??= date;
    out.last = date;
    const Z: Row = { Z_KASSE_ID: kasseId, Z_ERSTELLUNG: zDate, Z_NR: String(zNr) };
    const gv = new Sums();
    const pay = new Sums();
    const cur = new Sums();
    let payments = ZERO;
    let cash = ZERO;
    for (const b of day) {
      const { esr, fis, bc } = b;
      const B: Row = { ...Z, BON_ID: b.id };
      const proc = b.record.type === 'TraV' ? { processType: 'Kassenbeleg-V1', bonTyp: 'AVBelegabbruch' } : processOf(bc, esr);
      const code = (str(fis, 'Code') ?? '').split(';');
      const tid = str(fis, 'TID');
      const ctm = obj(esr, 'Ctm');
      const movement = bc.kind === 'payin' || bc.kind === 'payout' || bc.kind === 'payment';
      // training and test receipts are shown, but enter no sum of the closing
      const counts = (bc.fiscal || movement) && proc.bonTyp !== 'AVTraining' && b.record.type !== 'TraV';
      const payA = lines(esr, 'PayA');
      const total = str(esr, 'T') ?? fmt(payA.reduce((s, p) => add(s, d0(str(p, 'Amt'))), ZERO), 2);
      table('transactions.csv').add({
        ...B,
        BON_NR: digits(str(esr, 'TN')) ?? digits(b.id) ?? String(b.record.sq),
        BON_TYP: proc.bonTyp || 'AVSonstige',
        BON_NAME: str(esr, 'NFS') ?? str(esr, 'NF') ?? str(esr, 'DT') ?? '',
        TERMINAL_ID: str(esr, 'TT') ?? '',
        BON_STORNO: bc.kind === 'void' ? '1' : '0',
        BON_START: (tid !== undefined ? starts.get(tid) : undefined) ?? str(esr, 'D0') ?? str(esr, 'D') ?? b.record.d,
        BON_ENDE: str(esr, 'D') ?? b.record.d,
        BEDIENER_ID: str(esr, 'Opr') ?? '',
        BEDIENER_NAME: str(esr, 'OprN') ?? '',
        UMS_BRUTTO: total,
        ...(ctm
          ? {
              KUNDE_NAME: str(ctm, 'Nam') ?? '', KUNDE_ID: str(ctm, 'CN') ?? '', KUNDE_TYP: str(ctm, 'Cat') ?? '', KUNDE_STRASSE: street(ctm),
              KUNDE_PLZ: str(ctm, 'Zip') ?? '', KUNDE_ORT: str(ctm, 'City') ?? '', KUNDE_LAND: alpha3(str(ctm, 'Ctry')), KUNDE_USTID: str(ctm, 'TaxId') ?? '',
            }
          : {}),
      });
      // the TSE transaction, or the TSE's failure
      const failed = Array.isArray(fis.Tag) && fis.Tag.some((g) => isObj(g) && str(g, 'Name') === 'TSEFailed');
      if (code.length >= 12) {
        table('transactions_tse.csv').add({
          ...B, TSE_ID: '1', TSE_TANR: code[4], TSE_TA_START: code[6], TSE_TA_ENDE: code[7], TSE_TA_VORGANGSART: code[2],
          TSE_TA_SIGZ: code[5], TSE_TA_SIG: code[10], TSE_TA_VORGANGSDATEN: code[3],
        });
      } else if (failed) {
        table('transactions_tse.csv').add({ ...B, TSE_ID: '1', TSE_TANR: digits(tid), TSE_TA_VORGANGSART: proc.processType, TSE_TA_FEHLER: 'TSE ausgefallen' });
      }
      const tp = str(esr, 'TP');
      if (tp) table('allocation_groups.csv').add({ ...B, ABRECHNUNGSKREIS: tp });
      for (const ref of references(esr)) {
        const known = ref.fn !== undefined ? closingOf.get(ref.fn) : undefined;
        table('references.csv').add(
          known && ref.fn !== undefined
            ? { ...B, REF_TYP: 'Transaktion', REF_DATUM: known.zDate, REF_Z_KASSE_ID: kasseId, REF_Z_NR: String(known.zNr), REF_BON_ID: ref.fn }
            : { ...B, REF_TYP: 'ExterneSonstige', REF_NAME: ref.name },
        );
      }
      if (!counts) continue;
      for (const p of payA) {
        const zahlart = zahlartOf(str(p, 'PayG'));
        const amt = d0(str(p, 'Amt'));
        const cc = str(p, 'CC');
        const foreign = cc !== undefined && cc !== 'EUR' && str(p, 'FAmt') !== undefined;
        table('datapayment.csv').add({
          ...B, ZAHLART_TYP: zahlart, ZAHLART_NAME: str(p, 'Dsc') ?? '', BASISWAEH_BETRAG: fmt(amt, 2),
          ...(foreign ? { ZAHLWAEH_CODE: cc, ZAHLWAEH_BETRAG: str(p, 'FAmt') } : {}),
        });
        if (zahlart === 'Keine') continue;
        pay.add([zahlart, str(p, 'Dsc') ?? ''], [amt]);
        payments = add(payments, amt);
        if (zahlart === 'Bar') {
          cash = add(cash, amt);
          cur.add([foreign ? (cc as string) : 'EUR'], [foreign ? d0(str(p, 'FAmt')) : amt]);
        }
      }
      // VAT of the receipt, as printed
      const taxA = lines(esr, 'TaxA');
      const rateOf = new Map(taxA.map((x) => [str(x, 'TaxG') ?? '', d0(str(x, 'Prc'))]));
      for (const x of taxA) {
        if (str(x, 'TTY')) continue;
        const gross = d0(str(x, 'Amt'));
        const tamt = str(x, 'TAmt') !== undefined ? d0(str(x, 'TAmt')) : taxOfGross(gross, d0(str(x, 'Prc')), 2);
        table('transactions_vat.csv').add({ ...B, UST_SCHLUESSEL: String(vatKey(d0(str(x, 'Prc')))), BON_BRUTTO: fmt(gross, 2), BON_NETTO: fmt(sub(gross, tamt), 2), BON_UST: fmt(tamt, 2) });
      }
      // positions, their VAT and how their price came about
      const posA = lines(esr, 'PosA');
      const infos = analyzePositions(posA);
      if (infos.length === 0 && movement) {
        const amt = d0(total);
        const key = vatKey(ZERO);
        table('lines.csv').add({ ...B, POS_ZEILE: '1', ARTIKELTEXT: str(esr, 'NFS') ?? '', POS_TERMINAL_ID: str(esr, 'TT') ?? '', GV_TYP: gvTypOf(bc, undefined), INHAUS: '0', P_STORNO: '0', MENGE: '1', EINHEIT: 'Stück', STK_BR: fmt(amt, 2) });
        table('lines_vat.csv').add({ ...B, POS_ZEILE: '1', UST_SCHLUESSEL: String(key), POS_BRUTTO: fmt(amt, 2), POS_NETTO: fmt(amt, 2), POS_UST: '0' });
        gv.add([gvTypOf(bc, undefined), '', '', String(key)], [amt, amt, ZERO]);
      }
      for (const info of infos) {
        const p = posA[info.index] as Obj;
        const pn = info.pn;
        const rate = rateOf.get(info.groups[0] ?? '') ?? ZERO;
        const key = String(vatKey(rate));
        const gvTyp = gvTypOf(bc, p);
        const qty = qtyOf(p);
        const agency = digits(str(p, 'DE_AGENTUR_ID'));
        table('lines.csv').add({
          ...B, POS_ZEILE: pn, GUTSCHEIN_NR: str(p, 'VouN') ?? '', ARTIKELTEXT: str(p, 'Dsc') ?? '', POS_TERMINAL_ID: str(p, 'Dev') ?? str(esr, 'TT') ?? '',
          GV_TYP: gvTyp, INHAUS: str(p, 'InH') === '0' ? '0' : '1', P_STORNO: str(p, 'Void') === '1' ? '1' : '0', AGENTUR_ID: agency,
          ART_NR: str(p, 'SKU') ?? '', GTIN: str(p, 'IN') ?? '', WARENGR_ID: str(p, 'Cat') ?? '', WARENGR: str(p, 'CatN') ?? '',
          MENGE: fmt(qty, Math.max(qty.s, 0)), EINHEIT: str(p, 'QtyU') ?? 'Stück', STK_BR: str(p, 'Pri') ?? (sign(qty) === 0 ? undefined : fmt(div(info.amt, qty, 5), 5)),
        });
        const tax = taxOfGross(info.modified, rate, 5);
        table('lines_vat.csv').add({ ...B, POS_ZEILE: pn, UST_SCHLUESSEL: key, POS_BRUTTO: fmt(info.modified, 5), POS_NETTO: fmt(sub(info.modified, tax), 5), POS_UST: fmt(tax, 5) });
        const baseTax = taxOfGross(info.amt, rate, 5);
        table('itemamounts.csv').add({ ...B, POS_ZEILE: pn, TYP: 'base_amount', UST_SCHLUESSEL: key, PF_BRUTTO: fmt(info.amt, 5), PF_NETTO: fmt(sub(info.amt, baseTax), 5), PF_UST: fmt(baseTax, 5) });
        const change = sub(info.modified, info.amt);
        if (!eq(change, ZERO)) {
          const changeTax = sub(tax, baseTax);
          table('itemamounts.csv').add({ ...B, POS_ZEILE: pn, TYP: sign(change) < 0 ? 'discount' : 'extra_amount', UST_SCHLUESSEL: key, PF_BRUTTO: fmt(change, 5), PF_NETTO: fmt(sub(change, changeTax), 5), PF_UST: fmt(changeTax, 5) });
        }
        gv.add([gvTyp, '', agency ?? '', key], [info.modified, sub(info.modified, tax), tax]);
      }
    }
    closingTables(Z, zDate, payments, cash);
    for (const { key, amounts } of gv.m.values()) {
      const [gross, net, tax] = amounts.map((a) => fmt(a, 2));
      table('businesscases.csv').add({ ...Z, GV_TYP: key[0], GV_NAME: key[1], AGENTUR_ID: key[2] || undefined, UST_SCHLUESSEL: key[3], Z_UMS_BRUTTO: gross, Z_UMS_NETTO: net, Z_UST: tax });
    }
    for (const { key, amounts } of pay.m.values()) table('payment.csv').add({ ...Z, ZAHLART_TYP: key[0], ZAHLART_NAME: key[1], Z_ZAHLART_BETRAG: fmt(amounts[0] ?? ZERO, 2) });
    for (const { key, amounts } of cur.m.values()) table('cash_per_currency.csv').add({ ...Z, ZAHLART_WAEH: key[0], ZAHLART_BETRAG_WAEH: fmt(amounts[0] ?? ZERO, 2) });
  };

  /** The master data of a closing, as configured when it was made. */
  const closingTables = (Z: Row, zDate: string, payments: Dec, cash: Dec): void => {
    const cmp = obj(cfg, 'Cmp');
    const loc = obj(cfg, 'Loc');
    const trm = obj(cfg, 'Trm');
    table('cashpointclosing.csv').add({
      ...Z, TAXONOMIE_VERSION: TAXONOMY_VERSION, Z_START_ID: day[0]?.id ?? '', Z_ENDE_ID: day[day.length - 1]?.id ?? '',
      NAME: cmp ? (str(cmp, 'Nam') ?? '') : '', STRASSE: street(cmp), PLZ: cmp ? (str(cmp, 'Zip') ?? '') : '', ORT: cmp ? (str(cmp, 'City') ?? '') : '',
      LAND: alpha3(cmp ? str(cmp, 'Ctry') : undefined), STNR: cmp ? (str(cmp, 'TIN') ?? '') : '', USTID: cmp ? (str(cmp, 'TaxId') ?? '') : '',
      Z_SE_ZAHLUNGEN: fmt(payments, 2), Z_SE_BARZAHLUNGEN: fmt(cash, 2),
    });
    table('location.csv').add({
      ...Z, LOC_NAME: loc ? (str(loc, 'Nam') ?? '') : '', LOC_STRASSE: street(loc), LOC_PLZ: loc ? (str(loc, 'Zip') ?? '') : '',
      LOC_ORT: loc ? (str(loc, 'City') ?? '') : '', LOC_LAND: alpha3(loc ? str(loc, 'Ctry') : cmp ? str(cmp, 'Ctry') : undefined), LOC_USTID: loc ? (str(loc, 'TaxId') ?? '') : '',
    });
    table('cashregister.csv').add({
      ...Z, KASSE_BRAND: trm ? (str(trm, 'HW') ?? '') : '', KASSE_MODELL: trm ? (str(trm, 'HWModel') ?? '') : '', KASSE_SERIENNR: (trm ? str(trm, 'Serial') : undefined) ?? kasseId,
      KASSE_SW_BRAND: (trm ? str(trm, 'SW') : undefined) ?? src.software.brand, KASSE_SW_VERSION: (trm ? str(trm, 'SWVersion') : undefined) ?? src.software.version,
      KASSE_BASISWAEH_CODE: 'EUR', KEINE_UST_ZUORDNUNG: '0',
    });
    for (const dev of lines(cfg, 'Dev')) {
      table('slaves.csv').add({
        ...Z, TERMINAL_ID: str(dev, 'Id') ?? '', TERMINAL_BRAND: str(dev, 'HW') ?? '', TERMINAL_MODELL: str(dev, 'HWModel') ?? '', TERMINAL_SERIENNR: str(dev, 'Serial') ?? '',
        TERMINAL_SW_BRAND: str(dev, 'SW') ?? '', TERMINAL_SW_VERSION: str(dev, 'SWVersion') ?? '',
      });
    }
    for (const a of lines(cfg, 'DE_Agentur')) {
      const id = digits(str(a, 'Id'));
      if (id === undefined) continue;
      table('pa.csv').add({
        ...Z, AGENTUR_ID: id, AGENTUR_NAME: str(a, 'Nam') ?? '', AGENTUR_STRASSE: street(a), AGENTUR_PLZ: str(a, 'Zip') ?? '', AGENTUR_ORT: str(a, 'City') ?? '',
        AGENTUR_LAND: alpha3(str(a, 'Ctry')), AGENTUR_STNR: str(a, 'TIN') ?? '', AGENTUR_USTID: str(a, 'TaxId') ?? '',
      });
    }
    for (const [rate, key] of vatKeys) {
      const known = VAT_KEYS.find(([, k]) => k === key);
      table('vat.csv').add({ ...Z, UST_SCHLUESSEL: String(key), UST_SATZ: rate, UST_BESCHR: known ? known[2] : `Steuersatz ${rate} %` });
    }
    const cert = src.tse.certificateB64;
    const parts = ['I', 'II', 'III', 'IV', 'V', 'VI', 'VII'];
    table('tse.csv').add({
      ...Z, TSE_ID: '1', TSE_SERIAL: src.tse.serialHex, TSE_SIG_ALGO: 'ecdsa-plain-SHA256', TSE_ZEITFORMAT: 'unixTime', TSE_PD_ENCODING: 'UTF-8',
      TSE_PUBLIC_KEY: src.tse.publicKeyB64,
      ...Object.fromEntries(parts.map((n, i) => [`TSE_ZERTIFIKAT_${n}`, cert.slice(i * 1000, (i + 1) * 1000)])),
    });
  };

  for await (const r of src.store.find(src.rid, { sort: 'asc' }, 500)) {
    if (r.type === 'Cfg') {
      const data = JSON.parse(r.data) as Obj;
      const c = obj(data, 'Cfg');
      if (c) cfg = c;
      continue;
    }
    if (r.type !== 'Tra' && r.type !== 'TraS' && r.type !== 'TraV') continue;
    const data = JSON.parse(r.data) as Obj;
    const esr = obj(data, 'ESR') ?? {};
    const fis = obj(data, 'Fis') ?? {};
    if (r.type === 'TraS') {
      const tid = str(fis, 'TID');
      if (tid !== undefined) starts.set(tid, str(esr, 'D') ?? r.d);
      continue;
    }
    const bc: BusinessCase = { kind: (str(data, 'BC') as BusinessKind | undefined) ?? classify(esr).kind, flags: (str(data, 'BCF') ?? '').split(' ').filter(Boolean), fiscal: false };
    bc.fiscal = !str(esr, 'NFS') && !str(esr, 'NF') && bc.kind !== 'training';
    if (r.type === 'Tra' && bc.kind === 'closing' && !bc.flags.includes('test')) {
      const fz = obj(fis, 'Z');
      lastZ = Number(fz ? (str(fz, 'ZI') ?? lastZ + 1) : lastZ + 1);
      emit(lastZ, str(esr, 'D') ?? r.d);
      day = [];
      continue;
    }
    const fn = str(fis, 'FN');
    day.push({ record: r, data, esr, fis, bc, id: r.type === 'TraV' ? `V${str(fis, 'TID') ?? r.sq}` : (fn ?? `SQ${r.sq}`) });
  }
  if (src.open && day.length > 0) emit(lastZ + 1, src.now);
  out.tables = [...t.values()];
  return out;
}

/** What a receipt refers to: the original of a void or return, the parked receipt it resumes. */
function references(esr: Obj): Array<{ fn?: string; name: string }> {
  const out: Array<{ fn?: string; name: string }> = [];
  const rfn = str(esr, 'RFN');
  if (rfn) out.push({ fn: rfn, name: `FN ${rfn}` });
  else if (str(esr, 'RTN')) out.push({ name: `TN ${str(esr, 'RTL') ?? ''}/${str(esr, 'RTT') ?? ''}/${str(esr, 'RTN') ?? ''}`.slice(0, 40) });
  const resume = str(esr, 'ResumeFN');
  if (resume) out.push({ fn: resume, name: `FN ${resume}` });
  return out;
}
