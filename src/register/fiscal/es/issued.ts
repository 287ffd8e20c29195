/**
 * The invoice a void or return refers to: a cancellation record names the original's NIF, number and
 * date, a rectifying invoice names the invoice it rectifies. The pipeline hands the module the journaled
 * data of the original (found by RFN, or RTL/RTT/RTN); ESR.RD with RFN names an original this register
 * cannot find (docs/countries/es.md).
 */
import { type Obj, obj, str } from '../../codec/index.js';
import { aeatDate } from './huella.js';

export interface Issued {
  nif: string;
  numSerie: string;
  /** dd-mm-yyyy */
  fecha: string;
  /** F1, F2, R1, R5 (VeriFactu) or the TicketBAI kind */
  tipo: string;
}

/** The invoice a journal record issued (a Spanish record made by this module), from its data. */
export function issuedOf(data: Obj): Issued | undefined {
  const fis = obj(data, 'Fis');
  const esr = obj(data, 'ESR');
  const payload = fis ? str(fis, 'Payload') : undefined;
  const fn = fis ? str(fis, 'FN') : undefined;
  const tipo = fis ? str(fis, 'Type') : undefined;
  const d = esr ? str(esr, 'D') : undefined;
  if (!payload || !fn || !tipo || !d || tipo === 'Anulacion') return undefined;
  const nif = /<sum1:IDEmisorFactura>([^<]*)</.exec(payload)?.[1] ?? /^TBAI\|([^|]*)\|/.exec(payload)?.[1];
  return nif ? { nif, numSerie: fn, fecha: aeatDate(d), tipo } : undefined;
}
