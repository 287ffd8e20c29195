/**
 * The invoice series and their numbers. NumSerieFactura is `<kind><TL>-<TT>/<n>`: T (simplified), F (full),
 * R (rectifying), the shop (ESR.TL, else Cfg.Loc.TL) and the terminal (ESR.TT); each series is numbered from
 * 1 without gaps in the register's country state. An issuer's invoice numbers must be unique across all its
 * shops and installations, so the shop is required, and what the AEAT does not accept in a number is refused,
 * not replaced (a replacement could make two terminals' series equal). docs/countries/es.md.
 */
import { FiscalError } from '../../../shared/errors.js';
import { type Obj, obj, str } from '../../codec/index.js';

/** AEAT: NumSerieFactura has at most 60 characters; `/` and up to 10 digits of the number follow the series. */
export const MAX_SERIES = 60 - 11;

/** Printable ASCII without the characters AEAT forbids in NumSerieFactura (" ' < > =). */
const ALLOWED = /^[\x21-\x7e]+$/;
const FORBIDDEN = /["'<>=]/;

function checkPart(value: string, field: string, extra?: { char: string; why: string }): void {
  if (!ALLOWED.test(value) || FORBIDDEN.test(value)) {
    throw new FiscalError('#INVALID_VALUE', { field, detail: `"${value}" goes into the invoice number (NumSerieFactura): printable ASCII without spaces and without " ' < > =` });
  }
  if (extra && value.includes(extra.char)) throw new FiscalError('#INVALID_VALUE', { field, detail: `"${value}": ${extra.why}` });
}

/** The series of an invoice kind (F1, F2, R1, R5) at the transaction's shop and terminal; throws when it cannot be one. */
export function seriesOf(esr: Obj, cfg: Obj, tipo: string): string {
  const kind = tipo === 'F1' ? 'F' : tipo.startsWith('R') ? 'R' : 'T';
  const tl = str(esr, 'TL') || str(obj(cfg, 'Loc') ?? {}, 'TL');
  if (!tl) throw new FiscalError('#MISSING_FIELD', { field: 'ESR.TL', detail: 'a Spanish invoice series names its shop: send ESR.TL or configure Cfg.Loc.TL' });
  const tt = str(esr, 'TT') || '1';
  checkPart(tl, 'ESR.TL');
  // TL may hold "-", TT may not: so TL-TT splits only one way and two terminals never share a series
  checkPart(tt, 'ESR.TT', { char: '-', why: 'a terminal name without "-" (the series is <TL>-<TT>)' });
  const series = `${kind}${tl}-${tt}`;
  if (series.length > MAX_SERIES) {
    throw new FiscalError('#INVALID_VALUE', { field: tl.length + 3 > MAX_SERIES ? 'ESR.TL' : 'ESR.TT', detail: `the series "${series}" is longer than ${MAX_SERIES} characters (NumSerieFactura allows 60 with the number)` });
  }
  return series;
}

/** The next number of a series (advances the counter `n|<series>` in the country state). */
export function nextNumber(state: Record<string, string>, series: string): string {
  const key = `n|${series}`;
  const n = Number(state[key] ?? '0') + 1;
  state[key] = String(n);
  return String(n);
}
