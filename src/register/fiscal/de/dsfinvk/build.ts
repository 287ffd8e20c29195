/**
 * The DSFinV-K export of a German register, read from its journal: every closing (Z) is one
 * Kassenabschluss; the receipts since the Z before it are its Vorgänge. With `open` the receipts after
 * the last Z form a closing too, numbered as the next Z and dated at the export. Each receipt gives
 * its Bonkopf with VAT, payments, references and TSE transaction, its positions with VAT and price
 * finding; each closing its master data (company, location, register, terminals, agencies, VAT rates,
 * TSE) and its sums per business case, payment type and currency. Decisions: docs/countries/de.md.
 *
 * Z_KASSE_ID is the ID of the closing cash register (DSFinV-K 2.3: "ID der (Abschluss-) Kasse", the
 * unique ID of a register that assigns every Vorgang to it); the register's identity in its master data
 * is its serial number, KASSE_SERIENNR of Stamm_Kassen, so both carry the configured `Trm.Serial` of the
 * closing, in every table of it and in references to it.
 */
import { countriesModule } from '../../../../shared/lazy-modules.js';
import { type Dec, ZERO, add, allocate, dec, div, eq, fmt, parseDec, sign, sub, taxOfGross, taxOfNet } from '../../../../shared/money.js';
import { type Obj, isObj, lines, obj, str } from '../../../codec/index.js';
import { type BusinessCase, type BusinessKind, classify, journaledFlags } from '../../../esr/business-case.js';
import { type PositionInfo, analyzePositions, qtyOf, resolveWithTaxA } from '../../../esr/tax.js';
import type { JournalRecord, JournalStore } from '../../../journal/types.js';
import { CsvTable, type Row } from '../gdpdu/csv.js';
import { DE_LETTERS } from '../letters.js';
import { type ParsedLog, logTimeIso, parseLog } from '../log-message.js';
import { foreignCurrency, gvTypOf, processOf, zahlartOf } from '../process.js';
import { CERTIFICATE_PART, TABLES, TAXONOMY_VERSION, tableOf, tseTable } from './tables.js';

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
  /** only closings with a higher Z_NR (a backup since the last one) */
  afterZ?: number;
  /** local date-time of the export */
  now: string;
  software: { brand: string; version: string };
}

export interface DsfinvkTables {
  tables: CsvTable[];
  closings: number;
  receipts: number;
  /** the highest Z_NR exported */
  lastZ: number;
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

const alpha3 = (alpha2: string | undefined): string => (alpha2 ? (countriesModule().alpha2ToAlpha3(alpha2.toUpperCase()) ?? alpha2) : '');
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
  const t = new Map(TABLES.map((x) => [x.file, new CsvTable(x.file === 'tse.csv' ? tseTable(src.tse.certificateB64.length) : x)]));
  const table = (file: string): CsvTable => t.get(file) ?? new CsvTable(tableOf(file));
  const certificateParts = table('tse.csv').table.columns.filter((c) => c.name.startsWith('TSE_ZERTIFIKAT_')).map((c) => c.name);
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
  /** TID -> D of its TraS (the start of the transaction) and the time of its StartTransaction log */
  const starts = new Map<string, string>();
  const startLogs = new Map<string, bigint>();
  /** BON_ID (FN) -> its closing, for references */
  const closingOf = new Map<string, { kasseId: string; zNr: number; zDate: string }>();
  // the configuration of a closing is the one at its time (before the first Cfg record: the current one)
  let cfg: Obj = src.cfg;
  let day: Bon[] = [];
  let lastZ = 0;
  const out: DsfinvkTables = { tables: [], closings: 0, receipts: 0, lastZ: 0 };

  const emit = (zNr: number, zDate: string): void => {
    const kasseId = kasseIdOf(cfg, src);
    for (const b of day) closingOf.set(b.id, { kasseId, zNr, zDate });
    const date = zDate.slice(0, 10);
    if ((src.from !== undefined && date < src.from) || (src.till !== undefined && date > src.till)) return;
    if (src.afterZ !== undefined && zNr <= src.afterZ) return;
    out.closings += 1;
    out.lastZ = Math.max(out.lastZ, zNr);
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
      const tid = str(fis, 'TID');
      const ctm = obj(esr, 'Ctm');
      const movement = bc.kind === 'payin' || bc.kind === 'payout' || bc.kind === 'payment';
      // training and test receipts are shown, but enter no sum of the closing
      const counts = (bc.fiscal || movement) && proc.bonTyp !== 'AVTraining' && b.record.type !== 'TraV';
      const payA = lines(esr, 'PayA');
      const total = str(esr, 'T') ?? fmt(payA.reduce((s, p) => add(s, d0(str(p, 'Amt'))), ZERO), 2);
      table('transactions.csv').add({
        ...B,
        BON_NR: digits(str(esr, 'TN')) ?? digits(b.record.type === 'TraV' ? tid : b.id) ?? String(b.record.sq),
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
      const finish = logOf(fis, 'LogFinish');
      if (finish) {
        const tanr = finish.transactionNumber ?? 0n;
        const start = logOf(fis, 'LogStart')?.signatureCreationTime ?? startLogs.get(tanr.toString()) ?? finish.signatureCreationTime;
        table('transactions_tse.csv').add({
          ...B, TSE_ID: '1', TSE_TANR: tanr.toString(), TSE_TA_START: logTimeIso(start), TSE_TA_ENDE: logTimeIso(finish.signatureCreationTime),
          TSE_TA_VORGANGSART: finish.processType ?? '', TSE_TA_SIGZ: finish.signatureCounter.toString(), TSE_TA_SIG: finish.signatureValue.toString('base64'),
          TSE_VORGANGSDATEN: finish.processData?.toString('utf8') ?? '',
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
            ? { ...B, REF_TYP: 'Transaktion', REF_DATUM: known.zDate, REF_Z_KASSE_ID: known.kasseId, REF_Z_NR: String(known.zNr), REF_BON_ID: ref.fn }
            : { ...B, REF_TYP: 'ExterneSonstige', REF_NAME: ref.name },
        );
      }
      if (!counts) continue;
      const bonPay = new Sums();
      for (const p of payA) {
        const zahlart = zahlartOf(str(p, 'PayG'));
        const amt = d0(str(p, 'Amt'));
        const foreign = foreignCurrency(p);
        bonPay.add([zahlart, str(p, 'Dsc') ?? '', foreign ?? ''], [amt, foreign ? d0(str(p, 'FAmt')) : ZERO]);
        if (zahlart === 'Keine') continue;
        pay.add([zahlart, str(p, 'Dsc') ?? ''], [amt]);
        payments = add(payments, amt);
        if (zahlart === 'Bar') {
          cash = add(cash, amt);
          cur.add([foreign ?? 'EUR'], [foreign ? d0(str(p, 'FAmt')) : amt]);
        }
      }
      for (const { key, amounts } of bonPay.m.values()) {
        const [amt, famt] = amounts as [Dec, Dec];
        table('datapayment.csv').add({
          ...B, ZAHLART_TYP: key[0], ZAHLART_NAME: key[1], BASISWAEH_BETRAG: fmt(amt, 2),
          ...(key[2] ? { ZAHLWAEH_CODE: key[2], ZAHLWAEH_BETRAG: fmt(famt, 2) } : {}),
        });
      }
      // VAT of the receipt, as printed (one row per VAT key)
      const taxA = lines(esr, 'TaxA');
      const bonVat = new Sums();
      for (const x of taxA) {
        if (str(x, 'TTY')) continue;
        const gross = d0(str(x, 'Amt'));
        const tamt = str(x, 'TAmt') !== undefined ? d0(str(x, 'TAmt')) : taxOfGross(gross, d0(str(x, 'Prc')), 2);
        bonVat.add([String(vatKey(d0(str(x, 'Prc'))))], [gross, sub(gross, tamt), tamt]);
      }
      const posA = lines(esr, 'PosA');
      const infos = analyzePositions(posA);
      if (infos.length === 0 && movement) {
        // money moved without positions: one line, not taxable
        const amt = d0(total);
        const key = String(vatKey(ZERO));
        table('lines.csv').add({ ...B, POS_ZEILE: '1', ARTIKELTEXT: str(esr, 'NFS') ?? '', POS_TERMINAL_ID: str(esr, 'TT') ?? '', GV_TYP: gvTypOf(bc, undefined), INHAUS: '0', P_STORNO: '0', MENGE: '1', EINHEIT: 'Stück', STK_BR: fmt(amt, 2) });
        table('lines_vat.csv').add({ ...B, POS_ZEILE: '1', UST_SCHLUESSEL: key, POS_BRUTTO: fmt(amt, 2), POS_NETTO: fmt(amt, 2), POS_UST: '0' });
        if (taxA.length === 0) bonVat.add([key], [amt, amt, ZERO]);
        gv.add([gvTypOf(bc, undefined), '', '', key], [amt, amt, ZERO]);
      }
      for (const { key, amounts } of bonVat.m.values()) {
        const [gross, net, tax] = amounts.map((a) => fmt(a, 2));
        table('transactions_vat.csv').add({ ...B, UST_SCHLUESSEL: key[0], BON_BRUTTO: gross, BON_NETTO: net, BON_UST: tax });
      }
      // positions: each tax element's gross and VAT split over its positions exactly (largest remainder),
      // so the positions and the closing's sums add up to the receipt's VAT as printed
      const taxN = str(esr, 'TaxN') === '1';
      const shares = positionShares(infos, taxA);
      infos.forEach((info, i) => {
        const p = posA[info.index] as Obj;
        const pn = info.pn;
        const share = shares[i] as Share;
        const key = String(vatKey(share.rate));
        const gvTyp = gvTypOf(bc, p);
        const qty = qtyOf(p);
        const agency = digits(str(p, 'DE_AGENTUR_ID'));
        table('lines.csv').add({
          ...B, POS_ZEILE: pn, GUTSCHEIN_NR: str(p, 'VouN') ?? '', ARTIKELTEXT: str(p, 'Dsc') ?? '', POS_TERMINAL_ID: str(p, 'Dev') ?? str(esr, 'TT') ?? '',
          GV_TYP: gvTyp, INHAUS: str(p, 'InH') === '0' ? '0' : '1', P_STORNO: str(p, 'Void') === '1' ? '1' : '0', AGENTUR_ID: agency,
          ART_NR: str(p, 'SKU') ?? '', GTIN: str(p, 'IN') ?? '', WARENGR_ID: str(p, 'Cat') ?? '', WARENGR: str(p, 'CatN') ?? '',
          MENGE: fmt(qty, Math.max(qty.s, 0)), EINHEIT: str(p, 'QtyU') ?? 'Stück',
          STK_BR: sign(qty) === 0 ? undefined : fmt(div(grossOf(info.amt, share.rate, taxN), qty, 5), 5),
        });
        table('lines_vat.csv').add({ ...B, POS_ZEILE: pn, UST_SCHLUESSEL: key, POS_BRUTTO: fmt(share.gross, 5), POS_NETTO: fmt(sub(share.gross, share.tax), 5), POS_UST: fmt(share.tax, 5) });
        const base = grossOf(info.amt, share.rate, taxN);
        const baseTax = taxOfGross(base, share.rate, 5);
        table('itemamounts.csv').add({ ...B, POS_ZEILE: pn, TYP: 'base_amount', UST_SCHLUESSEL: key, PF_BRUTTO: fmt(base, 5), PF_NETTO: fmt(sub(base, baseTax), 5), PF_UST: fmt(baseTax, 5) });
        const change = sub(share.gross, base);
        if (!eq(change, ZERO)) {
          const changeTax = sub(share.tax, baseTax);
          table('itemamounts.csv').add({ ...B, POS_ZEILE: pn, TYP: sign(change) < 0 ? 'discount' : 'extra_amount', UST_SCHLUESSEL: key, PF_BRUTTO: fmt(change, 5), PF_NETTO: fmt(sub(change, changeTax), 5), PF_UST: fmt(changeTax, 5) });
        }
        gv.add([gvTyp, '', agency ?? '', key], [share.gross, sub(share.gross, share.tax), share.tax]);
      });
    }
    closingTables(Z, payments, cash);
    for (const { key, amounts } of gv.m.values()) {
      const [gross, net, tax] = amounts.map((a) => fmt(a, 2));
      table('businesscases.csv').add({ ...Z, GV_TYP: key[0], GV_NAME: key[1], AGENTUR_ID: key[2] || undefined, UST_SCHLUESSEL: key[3], Z_UMS_BRUTTO: gross, Z_UMS_NETTO: net, Z_UST: tax });
    }
    for (const { key, amounts } of pay.m.values()) table('payment.csv').add({ ...Z, ZAHLART_TYP: key[0], ZAHLART_NAME: key[1], Z_ZAHLART_BETRAG: fmt(amounts[0] ?? ZERO, 2) });
    for (const { key, amounts } of cur.m.values()) table('cash_per_currency.csv').add({ ...Z, ZAHLART_WAEH: key[0], ZAHLART_BETRAG_WAEH: fmt(amounts[0] ?? ZERO, 2) });
  };

  /** The master data of a closing, as configured when it was made. */
  const closingTables = (Z: Row, payments: Dec, cash: Dec): void => {
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
      ...Z, KASSE_BRAND: trm ? (str(trm, 'HW') ?? '') : '', KASSE_MODELL: trm ? (str(trm, 'HWModel') ?? '') : '', KASSE_SERIENNR: serialOf(cfg) ?? serialOf(src.cfg) ?? Z.Z_KASSE_ID,
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
    table('tse.csv').add({
      ...Z, TSE_ID: '1', TSE_SERIAL: src.tse.serialHex, TSE_SIG_ALGO: 'ecdsa-plain-SHA256', TSE_ZEITFORMAT: 'unixTime', TSE_PD_ENCODING: 'UTF-8',
      TSE_PUBLIC_KEY: src.tse.publicKeyB64,
      ...Object.fromEntries(certificateParts.map((name, i) => [name, cert.slice(i * CERTIFICATE_PART, (i + 1) * CERTIFICATE_PART)])),
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
      const log = logOf(fis, 'LogStart');
      if (tid !== undefined && log) startLogs.set(tid, log.signatureCreationTime);
      continue;
    }
    const bc: BusinessCase = { kind: (str(data, 'BC') as BusinessKind | undefined) ?? classify(esr).kind, flags: journaledFlags(data), fiscal: false };
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

/** The register's serial number in a configuration (Trm.Serial), when there is one. */
function serialOf(cfg: Obj): string | undefined {
  const trm = obj(cfg, 'Trm');
  const serial = trm ? str(trm, 'Serial')?.trim() : undefined;
  return serial ? serial : undefined;
}

/**
 * Z_KASSE_ID of a closing: the serial number of the configuration in force at it, else the current one's
 * (a register configured later is still the same register), else the register number when no serial was
 * ever configured. Z_KASSE_ID holds 50 characters (KASSE_SERIENNR 70): a longer serial is cut there.
 */
function kasseIdOf(cfg: Obj, src: DsfinvkSource): string {
  const serial = serialOf(cfg) ?? serialOf(src.cfg);
  return serial !== undefined ? [...serial].slice(0, 50).join('') : src.rn.replace(/[^A-Za-z0-9.$-]/g, '-').slice(0, 50);
}

/** A log message kept in the record's Fis, decoded; undefined when absent or unreadable. */
function logOf(fis: Obj, key: string): ParsedLog | undefined {
  const b64 = str(fis, key);
  if (!b64) return undefined;
  try {
    return parseLog(Buffer.from(b64, 'base64'));
  } catch {
    return undefined;
  }
}

/** A position's amount as gross (with TaxN the positions are net). */
function grossOf(amt: Dec, rate: Dec, taxN: boolean): Dec {
  return taxN ? add(amt, taxOfNet(amt, rate, Math.max(2, amt.s))) : amt;
}

interface Share {
  rate: Dec;
  gross: Dec;
  tax: Dec;
}

/**
 * Each position's gross amount and VAT: the tax element its (first) group resolves to is split over
 * its positions by their amounts after Mods, exactly; a position whose group resolves to nothing is
 * counted at 0 %.
 */
function positionShares(infos: readonly PositionInfo[], taxA: Obj[]): Share[] {
  const out: Share[] = infos.map((info) => ({ rate: ZERO, gross: info.modified, tax: ZERO }));
  const byTax = new Map<number, number[]>();
  infos.forEach((info, i) => {
    let t = -1;
    try {
      t = resolveWithTaxA(info.groups[0] ?? '', taxA, DE_LETTERS, 'TaxG');
    } catch {
      t = -1;
    }
    if (t >= 0 && !str(taxA[t] as Obj, 'TTY')) byTax.set(t, [...(byTax.get(t) ?? []), i]);
  });
  for (const [t, members] of byTax) {
    const x = taxA[t] as Obj;
    const rate = d0(str(x, 'Prc'));
    const gross = d0(str(x, 'Amt'));
    const tamt = str(x, 'TAmt') !== undefined ? d0(str(x, 'TAmt')) : taxOfGross(gross, rate, 2);
    const weights = members.map((i) => (infos[i] as PositionInfo).modified);
    const grossParts = allocate(gross, weights);
    const taxParts = allocate(tamt, weights);
    members.forEach((i, k) => {
      out[i] = { rate, gross: grossParts[k] ?? ZERO, tax: taxParts[k] ?? ZERO };
    });
  }
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
