/**
 * What a German transaction is for the TSE and DSFinV-K: the TSE process type (Kassenbeleg-V1 or
 * SonstigerVorgang), the Vorgangstyp that opens its processData and is its BON_TYP, and the
 * Geschäftsvorfall (GV_TYP) of each line. One table, so the receipt's QR code and the export agree.
 */
import { parseDec, sign } from '../../../shared/money.js';
import { type Obj, lines, str } from '../../codec/index.js';
import type { BusinessCase } from '../../esr/business-case.js';

export type ProcessType = 'Kassenbeleg-V1' | 'SonstigerVorgang';

export interface DeProcess {
  processType: ProcessType;
  /** Beleg, AVTransfer, AVTraining, AVBelegstorno, AVRechnung, AVBelegabbruch; '' for SonstigerVorgang */
  bonTyp: string;
}

export function processOf(bc: BusinessCase, esr: Obj): DeProcess {
  if (bc.kind === 'training' || bc.flags.includes('test')) return { processType: 'Kassenbeleg-V1', bonTyp: 'AVTraining' };
  // a parked receipt is handed over to be finished elsewhere (another terminal, another table)
  if ((str(esr, 'NF') ?? '').toUpperCase() === 'PARK') return { processType: 'Kassenbeleg-V1', bonTyp: 'AVTransfer' };
  if (bc.kind === 'void') return { processType: 'Kassenbeleg-V1', bonTyp: 'AVBelegstorno' };
  if (bc.fiscal) {
    // an invoice not paid at the register (PayG open) is an AVRechnung, else a Beleg
    const open = lines(esr, 'PayA').some((p) => str(p, 'PayG') === 'open');
    return { processType: 'Kassenbeleg-V1', bonTyp: bc.kind === 'invoice' && open ? 'AVRechnung' : 'Beleg' };
  }
  // money into or out of the drawer and payments of invoices are receipts of the register too
  if (bc.kind === 'payin' || bc.kind === 'payout' || bc.kind === 'payment') return { processType: 'Kassenbeleg-V1', bonTyp: 'Beleg' };
  return { processType: 'SonstigerVorgang', bonTyp: '' };
}

/** GV_TYP of a position (Anhang C of DSFinV-K). */
export function gvTypOf(bc: BusinessCase, pos: Obj | undefined): string {
  if (bc.kind === 'payin') return 'Einzahlung';
  if (bc.kind === 'payout') return 'Auszahlung';
  if (bc.kind === 'payment') return 'Forderungsaufloesung';
  if (!pos) return 'Umsatz';
  const negative = sign(parseDec(str(pos, 'Amt') ?? '0') ?? { v: 0n, s: 0 }) < 0;
  switch (str(pos, 'PTY')) {
    case 'Vou': return negative ? 'MehrzweckgutscheinEinloesung' : 'MehrzweckgutscheinKauf';
    case 'Dep': return negative ? 'PfandRueckzahlung' : 'Pfand';
    case 'Tip': return 'TrinkgeldAN';
    case 'Adv': return negative ? 'Anzahlungsaufloesung' : 'Anzahlungseinstellung';
    default: return 'Umsatz';
  }
}

/** The foreign currency of a payment: its CC when it is not EUR and the foreign amount FAmt is given. */
export function foreignCurrency(pay: Obj): string | undefined {
  const cc = str(pay, 'CC');
  return cc !== undefined && cc !== 'EUR' && str(pay, 'FAmt') !== undefined ? cc : undefined;
}

/** ZAHLART_TYP of a payment (Anhang D). */
export function zahlartOf(payG: string | undefined): string {
  switch (payG ?? 'cash') {
    case 'cash': case 'change': case 'foreign': case 'rounding': return 'Bar';
    case 'debitcard': case 'atm': return 'ECKarte';
    case 'creditcard': return 'Kreditkarte';
    case 'mobile': return 'ElZahlungsdienstleister';
    case 'loyalty': case 'title': return 'GuthabenKarte';
    case 'open': return 'Keine';
    default: return 'Unbar';
  }
}
