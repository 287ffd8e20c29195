/**
 * The GoBD export (Datenträgerüberlassung, Z3) of a register: the whole journal as GDPdU tables. The
 * journal table holds every record (receipts, starts, configuration, logs, audit entries) with its
 * chain hash, its signature and its data exactly as signed, so an auditor can check the chain with the
 * journal's public key (in the zip); positions, payments and taxes of the receipts are tables of
 * their own for analysis (amounts with 2 decimals, quantities with 3; the journal table keeps them as
 * sent). Dates `from`/`till` select records by D.
 */
import { type Obj, lines, obj, str } from '../../codec/index.js';
import { isPos } from '../../esr/tax.js';
import type { JournalStore } from '../../journal/types.js';
import { CsvTable } from './gdpdu/csv.js';
import { type Table, date, num, text } from './gdpdu/table.js';

const SQ = num('SQ', 'Laufende Nummer des Journalsatzes', 0);
const FN = text('FN', 'Fiskalnummer des Belegs', 40);

export const GOBD_TABLES: readonly Table[] = [
  {
    file: 'journal.csv', name: 'Journal', desc: 'Alle Journalsätze der Kasse mit Prüfsumme und Signatur', key: 1,
    columns: [SQ, text('TYP', 'Satzart (Tra, TraS, TraU, TraV, Cfg, log, Audit)', 8), date('D', 'Zeitpunkt'), text('TL', 'Standort', 50), text('TT', 'Kasse', 50),
      text('TN', 'Belegnummer der Kasse', 50), FN, num('T', 'Gesamtbetrag', 2), text('NFS', 'Art des nicht fiskalischen Belegs', 20), text('BC', 'Geschäftsvorfall', 20),
      text('HASH', 'SHA-256 des Satzes (Kette), hexadezimal', 64), text('SIGNATUR', 'ECDSA-Signatur des Satzes, base64', 200), text('DATEN', 'Der Satz, wie signiert (JSON)')],
  },
  {
    file: 'positions.csv', name: 'Positionen', desc: 'Positionen der Belege', key: 0, references: [{ columns: ['SQ'], table: 'Journal' }],
    columns: [SQ, text('PN', 'Positionsnummer', 20), FN, text('BEZEICHNUNG', 'Artikeltext', 255), text('ARTIKEL', 'Artikelnummer', 50), num('MENGE', 'Menge', 3),
      text('EINHEIT', 'Einheit', 20), num('BETRAG', 'Betrag brutto', 2), text('STEUERGRUPPE', 'Steuergruppe', 20), text('STORNO', 'Positionsstorno (1)', 1)],
  },
  {
    file: 'payments.csv', name: 'Zahlungen', desc: 'Zahlungen der Belege', key: 0, references: [{ columns: ['SQ'], table: 'Journal' }],
    columns: [SQ, FN, text('BEZEICHNUNG', 'Zahlart', 60), text('ART', 'Zahlartengruppe (PayG)', 20), num('BETRAG', 'Betrag', 2), text('WAEHRUNG', 'Fremdwährung', 3), num('FREMDBETRAG', 'Betrag in Fremdwährung', 2)],
  },
  {
    file: 'taxes.csv', name: 'Steuern', desc: 'Umsatzsteuer der Belege', key: 0, references: [{ columns: ['SQ'], table: 'Journal' }],
    columns: [SQ, FN, text('STEUERGRUPPE', 'Steuergruppe', 20), num('SATZ', 'Steuersatz in Prozent', 2), num('NETTO', 'Nettobetrag', 2), num('STEUER', 'Steuerbetrag', 2), num('BRUTTO', 'Bruttobetrag', 2)],
  },
];

export interface GobdPeriod {
  /** D on or after (YYYY-MM-DD) */
  from?: string;
  /** D before (exclusive, the day after till) */
  before?: string;
}

export async function buildGobd(store: JournalStore, rid: number, period: GobdPeriod): Promise<{ tables: CsvTable[]; records: number }> {
  const [journal, positions, payments, taxes] = GOBD_TABLES.map((t) => new CsvTable(t)) as [CsvTable, CsvTable, CsvTable, CsvTable];
  for await (const r of store.find(rid, { sort: 'asc', ...(period.from ? { from: period.from } : {}), ...(period.before ? { before: period.before } : {}) }, 500)) {
    const data = JSON.parse(r.data) as Obj;
    const fis = obj(data, 'Fis');
    const fn = r.fn ?? (fis ? str(fis, 'FN') : undefined);
    const sq = String(r.sq);
    journal.add({
      SQ: sq, TYP: r.type, D: r.d.slice(0, 19), TL: r.tl, TT: r.tt, TN: r.tn, FN: fn, T: r.t, NFS: r.nfs, BC: r.bc,
      HASH: r.hash.toString('hex'), SIGNATUR: r.sig.toString('base64'), DATEN: r.data,
    });
    const esr = obj(data, 'ESR');
    if (!esr || r.type !== 'Tra') continue;
    lines(esr, 'PosA').filter(isPos).forEach((p, i) => {
      positions.add({
        SQ: sq, PN: str(p, 'PN') ?? String(i + 1), FN: fn, BEZEICHNUNG: str(p, 'Dsc'), ARTIKEL: str(p, 'SKU') ?? str(p, 'IN'), MENGE: str(p, 'Qty') ?? '1',
        EINHEIT: str(p, 'QtyU'), BETRAG: str(p, 'Amt'), STEUERGRUPPE: str(p, 'TaxG'), STORNO: str(p, 'Void') === '1' ? '1' : '',
      });
    });
    for (const p of lines(esr, 'PayA')) {
      payments.add({ SQ: sq, FN: fn, BEZEICHNUNG: str(p, 'Dsc'), ART: str(p, 'PayG'), BETRAG: str(p, 'Amt'), WAEHRUNG: str(p, 'CC'), FREMDBETRAG: str(p, 'FAmt') });
    }
    for (const x of lines(esr, 'TaxA')) {
      taxes.add({ SQ: sq, FN: fn, STEUERGRUPPE: str(x, 'TaxG'), SATZ: str(x, 'Prc'), NETTO: str(x, 'Net'), STEUER: str(x, 'TAmt'), BRUTTO: str(x, 'Amt') });
    }
  }
  return { tables: [journal, positions, payments, taxes], records: journal.rows };
}
