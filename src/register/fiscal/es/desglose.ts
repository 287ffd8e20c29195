/**
 * The VAT breakdown of a Spanish invoice (VeriFactu Desglose): per regime and rate the base, the VAT and
 * the equivalence surcharge (recargo de equivalencia), with CuotaTotal and ImporteTotal. The regime of a
 * position is Pos.VatRegime, else ESR.VatRegime, else Cfg.Cmp.VatRegime, else GENERAL. Exact decimals only.
 */
import { FiscalError } from '../../../shared/errors.js';
import { type Dec, ZERO, add, allocate, eq, fmt, parseDec, round, sign, sub } from '../../../shared/money.js';
import { type Obj, lines, obj, str } from '../../codec/index.js';
import { analyzePositions, resolveWithTaxA } from '../../esr/tax.js';
import { ES_LETTERS } from './letters.js';

export type VatRegime = 'GENERAL' | 'SIMPLE' | 'REDE';

/**
 * VeriFactu ClaveRegimen (list L8A): 01 régimen general, 20 régimen simplificado, 18 recargo de
 * equivalencia (the issuer is a retailer under that regime).
 */
export const CLAVE_REGIMEN: Readonly<Record<VatRegime, string>> = { GENERAL: '01', SIMPLE: '20', REDE: '18' };

/** Surcharge rate paired with each VAT rate (Ley 37/1992, art. 161), to find the VAT line of a surcharge. */
const RECARGO_OF_VAT: ReadonlyArray<[string, string]> = [['21', '5.2'], ['21', '1.75'], ['10', '1.4'], ['5', '0.62'], ['4', '0.5'], ['2', '0.26']];

export interface Detalle {
  regime: VatRegime;
  clave: string;
  /** VAT rate; 0 is an exempt operation (E1) */
  prc: Dec;
  base: Dec;
  cuota: Dec;
  recargoPrc?: Dec;
  recargo?: Dec;
}

export interface Breakdown {
  detalles: Detalle[];
  cuotaTotal: Dec;
  importeTotal: Dec;
}

function regimeOf(value: string | undefined, field: string): VatRegime | undefined {
  if (value === undefined || value === '') return undefined;
  const v = value.toUpperCase();
  if (v === 'GENERAL' || v === 'SIMPLE' || v === 'REDE') return v;
  throw new FiscalError('#INVALID_VALUE', { field, detail: `GENERAL, SIMPLE or REDE, got "${value}"` });
}

/** The regime of the transaction (ESR, else company, else GENERAL). */
export function transactionRegime(esr: Obj, cfg: Obj): VatRegime {
  return regimeOf(str(esr, 'VatRegime'), 'ESR.VatRegime') ?? regimeOf(str(obj(cfg, 'Cmp') ?? {}, 'VatRegime'), 'Cfg.Cmp.VatRegime') ?? 'GENERAL';
}

const dec2 = (text: string | undefined): Dec => parseDec(text ?? '0') ?? ZERO;

export function breakdownOf(esr: Obj, cfg: Obj): Breakdown {
  const fallback = transactionRegime(esr, cfg);
  const posA = lines(esr, 'PosA');
  const taxA = lines(esr, 'TaxA');
  // per VAT element: the gross position amounts of each regime (a tax group may mix regimes)
  const weights = taxA.map(() => new Map<VatRegime, Dec>());
  for (const p of analyzePositions(posA)) {
    const pos = posA[p.index] as Obj;
    const regime = regimeOf(str(pos, 'VatRegime'), `ESR.PosA[${p.index}].VatRegime`) ?? fallback;
    for (const g of p.groups) {
      const i = resolveWithTaxA(g, taxA, ES_LETTERS, `ESR.PosA[${p.index}].TaxG`);
      if (str(taxA[i] as Obj, 'TTY')) continue;
      const m = weights[i] as Map<VatRegime, Dec>;
      m.set(regime, add(m.get(regime) ?? ZERO, p.modified));
    }
  }
  const detalles: Detalle[] = [];
  const ofTax = new Map<number, Detalle[]>();
  taxA.forEach((tax, i) => {
    if (str(tax, 'TTY')) return;
    const prc = dec2(str(tax, 'Prc'));
    const net = dec2(str(tax, 'Net'));
    const tamt = dec2(str(tax, 'TAmt'));
    const m = weights[i] as Map<VatRegime, Dec>;
    const regimes = m.size ? [...m.keys()] : [fallback];
    // split base and VAT in proportion to the regimes' gross amounts; the parts add up exactly
    const w = regimes.map((r) => m.get(r) ?? ZERO);
    const single = regimes.length === 1 || w.every((x) => sign(x) === 0);
    const bases = single ? [net] : allocate(net, w);
    const cuotas = single ? [tamt] : allocate(tamt, w);
    const made = (single ? [regimes[0] as VatRegime] : regimes).map((regime, k): Detalle => ({ regime, clave: CLAVE_REGIMEN[regime], prc, base: bases[k] as Dec, cuota: cuotas[k] as Dec }));
    ofTax.set(i, made);
    detalles.push(...made);
  });
  taxA.forEach((tax, i) => {
    const tty = str(tax, 'TTY');
    if (!tty) return;
    if (tty.toUpperCase() !== 'SVAT') throw new FiscalError('#INVALID_VALUE', { field: `ESR.TaxA[${i}].TTY`, detail: `"${tty}" is not a Spanish tax; SVAT (recargo de equivalencia) is` });
    const base = dec2(str(tax, 'Base'));
    const prc = dec2(str(tax, 'Prc'));
    const target = findVatLine(detalles, base, prc);
    if (!target) throw new FiscalError('#INVALID_VALUE', { field: `ESR.TaxA[${i}]`, detail: `no VAT element with the base ${fmt(base, 2)} (or the VAT rate of a ${fmt(prc)} % surcharge) for this recargo de equivalencia` });
    if (target.recargoPrc && !eq(target.recargoPrc, prc)) throw new FiscalError('#INVALID_VALUE', { field: `ESR.TaxA[${i}]`, detail: 'two surcharge rates for one VAT element' });
    target.recargoPrc = prc;
    target.recargo = add(target.recargo ?? ZERO, dec2(str(tax, 'Amt')));
  });
  const merged = merge(detalles).map(inCents);
  if (merged.length > MAX_LINES) {
    throw new FiscalError('#INVALID_VALUE', { field: 'ESR.TaxA', detail: `${merged.length} VAT lines (regime x rate x surcharge); a VeriFactu Desglose holds at most ${MAX_LINES}: split the sale into two invoices` });
  }
  // the totals are sums of the lines as written, so the record adds up whatever the input's decimals
  const cuotaTotal = merged.reduce((a, d) => add(add(a, d.cuota), d.recargo ?? ZERO), ZERO);
  const importeTotal = merged.reduce((a, d) => add(a, d.base), cuotaTotal);
  return { detalles: merged, cuotaTotal, importeTotal };
}

/** DetalleDesglose occurs at most 12 times in AEAT's schema (SuministroInformacion.xsd, DesgloseType). */
export const MAX_LINES = 12;

/**
 * A line in euro cents, as VeriFactu writes it. Amounts with more decimals (a POS sending 0.029) are
 * rounded per line, half away from zero: the VAT and the surcharge each, the line's total (base + VAT +
 * surcharge) as a whole, and the base is what remains, so each line's total is its exact total rounded.
 * Amounts in cents stay as they are.
 */
function inCents(d: Detalle): Detalle {
  const cuota = round(d.cuota, 2);
  const recargo = d.recargo ? round(d.recargo, 2) : undefined;
  const gross = round(add(add(d.base, d.cuota), d.recargo ?? ZERO), 2);
  const base = sub(sub(gross, cuota), recargo ?? ZERO);
  return { ...d, base, cuota, ...(recargo ? { recargo } : {}) };
}

function findVatLine(detalles: Detalle[], base: Dec, recargoPrc: Dec): Detalle | undefined {
  const byBase = detalles.find((d) => eq(d.base, base));
  if (byBase) return byBase;
  const vatRates = RECARGO_OF_VAT.filter(([, r]) => eq(parseDec(r) as Dec, recargoPrc)).map(([v]) => parseDec(v) as Dec);
  return detalles.find((d) => vatRates.some((v) => eq(v, d.prc)));
}

/** Lines of the same regime, rate and surcharge rate become one (two tax groups of 21 % are one rate). */
function merge(detalles: Detalle[]): Detalle[] {
  const out: Detalle[] = [];
  for (const d of detalles) {
    const same = out.find((o) => o.regime === d.regime && eq(o.prc, d.prc) && ((!o.recargoPrc && !d.recargoPrc) || (o.recargoPrc !== undefined && d.recargoPrc !== undefined && eq(o.recargoPrc, d.recargoPrc))));
    if (!same) {
      out.push({ ...d });
      continue;
    }
    same.base = add(same.base, d.base);
    same.cuota = add(same.cuota, d.cuota);
    if (d.recargo) same.recargo = add(same.recargo ?? ZERO, d.recargo);
  }
  return out;
}

/** Money as VeriFactu writes it: two decimals. */
export function money(d: Dec): string {
  return fmt(d, 2);
}

