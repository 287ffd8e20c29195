/**
 * France (NF525). Every ticket, invoice, training ticket, duplicate, closing and technical event is
 * signed with the register's ECDSA P-256 key into a chain of its kind (the previous signature is part
 * of the signed text). Tickets and invoices add up into the grand totals of the day, month, fiscal
 * year and the perpetual grand total; a POS's Z closes the day, month and year closings are made
 * automatically before the first transaction of a new period. The technical events journal (JET) is
 * signed into its own chain. See docs/countries/fr.md.
 */
import { FiscalError } from '../../../shared/errors.js';
import { type Dec, ZERO, add, parseDec, sign, significantScale } from '../../../shared/money.js';
import { type Obj, lines, obj, str } from '../../codec/index.js';
import type { ServiceContext } from '../../context.js';
import type { BusinessCase } from '../../esr/business-case.js';
import { formatLocalDateTime } from '../../esr/datetime.js';
import type { Register } from '../../registers.js';
import { GenericModule } from '../generic/index.js';
import type { ExportFile, ExportRequest, FiscalInput, FiscalModule, PrepareInput, ServiceEvent } from '../module.js';
import { FR_LETTERS } from './letters.js';
import { dropPending, fingerprintOf, journalEvents, noteSignatureError, peekPending, signEvents } from './events.js';
import { type JetEvent } from './jet.js';
import { type FrKey, loadKey, openedKey } from './keys.js';
import { Ledger, type Period } from './ledger.js';
import { fiscalYearOf, monthOf, yearEndOf } from './periods.js';
import { type ChainKind, type TaxTotals, amount, formatTaxes, rate, signatureExtract } from './signed-string.js';
import { exportJet, exportJou, exportSignatures, exportTotals } from './exports.js';
import { FR_FILES } from './files.js';
import { FR_VERIFIER } from './verifier.js';

/** NFS of the month and year closings the service makes (FR_Closing M or A). */
export const CLOSE = 'CLOSE';
export const VENTE = 'Vente';
export const REMBOURSEMENT = 'Remboursement';

/** The certification number printed in the Code tag: Fis_Sec wins over Fis_Certification; `none` omits it. */
export function certificationOf(attributes: ReadonlyMap<string, string>): string | undefined {
  const given = (name: string): string | undefined => {
    const v = attributes.get(name)?.trim();
    return v ? v : undefined;
  };
  const v = given('fis_sec') ?? given('fis_certification') ?? (attributes.get('fiscal_rules')?.toUpperCase() === 'LNE' ? '00000-0' : 'B0000');
  return v.toLowerCase() === 'none' ? undefined : v;
}

/** Gross amounts per VAT rate of a transaction (taxes of other kinds, TTY, are not VAT). */
export function taxesOf(esr: Obj): TaxTotals {
  const out: TaxTotals = new Map();
  for (const tax of lines(esr, 'TaxA')) {
    if (str(tax, 'TTY')) continue;
    const prc = parseDec(str(tax, 'Prc') ?? '');
    const amt = parseDec(str(tax, 'Amt') ?? '');
    if (!prc || !amt) continue;
    const r = rate(prc);
    out.set(r, add(out.get(r) ?? ZERO, amt));
  }
  return out;
}

function totalOf(esr: Obj, taxes: TaxTotals): Dec {
  return parseDec(str(esr, 'T') ?? '') ?? [...taxes.values()].reduce(add, ZERO);
}

export function operationOf(t: Dec): string {
  return sign(t) < 0 ? REMBOURSEMENT : VENTE;
}

/** The ticket a duplicate repeats, from its journal record (named by RFN or RTL/RTT/RTN): TL/TT/TN and FN. */
function originalOf(input: FiscalInput): string {
  const esr = input.original ? obj(input.original, 'ESR') : undefined;
  const fis = input.original ? obj(input.original, 'Fis') : undefined;
  const fn = fis ? str(fis, 'FN') : undefined;
  if (!esr || !fn) {
    const field = str(input.esr, 'RFN')?.trim() ? 'ESR.RFN' : 'ESR.RTN';
    throw new FiscalError('#INVALID_VALUE', { field, detail: 'names no ticket of this journal: a duplicate repeats a registered ticket' });
  }
  return `${str(esr, 'TL') ?? ''}/${str(esr, 'TT') ?? ''}/${str(esr, 'TN') ?? ''} FN ${fn}`;
}

const TICKET_LABEL: Readonly<Record<string, string>> = { T: 'Ticket n° :', F: 'Facture n° :', M: 'Ticket formation n° :' };
const PERIOD_NAME: Readonly<Record<Period, string>> = { J: 'Clôture journalière', M: 'Clôture mensuelle', A: 'Clôture annuelle' };
const PERIOD_EVENT: Readonly<Record<Period, JetEvent['kind']>> = { J: 'CLOSE_DAY', M: 'CLOSE_MONTH', A: 'CLOSE_YEAR' };

function keyFor(dataDir: string, rn: string, ledger: Ledger, id: string): FrKey {
  const key = openedKey(dataDir, rn);
  // another key than the one the chains were started with would break every chain
  if (!key || (ledger.keyId !== '' && ledger.keyId !== key.keyId)) {
    const e = new FiscalError('#DEVICE_FAILED', { value: key?.file ?? `fr key of ${rn}` });
    noteSignatureError(dataDir, rn, key ? `transaction ${id}, clé ${key.keyId} au lieu de ${ledger.keyId}` : `transaction ${id}, clé absente`, e);
    throw e;
  }
  return key;
}

/** The money fields NF525 signs and adds up: exact to the cent, or refused (never rounded silently). */
function checkCents(esr: Obj): void {
  const check = (field: string, v: string | undefined): void => {
    const d = v === undefined ? undefined : parseDec(v);
    if (d && significantScale(d) > 2) throw new FiscalError('#INVALID_VALUE', { field, detail: `"${v ?? ''}": NF525 amounts are exact to the cent (at most 2 decimals)` });
  };
  check('ESR.T', str(esr, 'T'));
  for (const arr of ['PosA', 'TaxA', 'PayA']) lines(esr, arr).forEach((line, i) => check(`ESR.${arr}[${i}].Amt`, str(line, 'Amt')));
}

export class FrModule implements FiscalModule {
  readonly country = 'FR';
  readonly files = FR_FILES;
  readonly verifier = FR_VERIFIER;
  readonly letters = FR_LETTERS;
  private readonly generic = new GenericModule('FR', FR_LETTERS);

  readonly exports: Readonly<Record<string, (req: ExportRequest) => Promise<ExportFile>>> = {
    'nf525-export': (req) => exportSignatures(req),
    'nf525-total': (req) => exportTotals(req),
    'nf525-jet': (req) => exportJet(req),
    'nf525-jou': (req) => exportJou(req),
  };

  /** FR_Trainer=1: a training ticket, outside the NF525 totals and the core's Z and grand totals */
  isTraining(esr: Obj): boolean {
    return str(esr, 'FR_Trainer') === '1';
  }

  validate(esr: Obj, bc: BusinessCase): void {
    checkCents(esr);
    const op = str(esr, 'FR_OperationType');
    if (op !== undefined && bc.fiscal) {
      const expected = operationOf(totalOf(esr, taxesOf(esr)));
      if (op.toLowerCase() !== expected.toLowerCase()) {
        throw new FiscalError('#INVALID_VALUE', { field: 'ESR.FR_OperationType', detail: `"${op}" does not agree with T ${str(esr, 'T') ?? ''}: ${expected} (Vente when T >= 0, Remboursement when T < 0)` });
      }
    }
    const trainer = str(esr, 'FR_Trainer');
    if (trainer !== undefined && trainer !== '0' && trainer !== '1') throw new FiscalError('#INVALID_VALUE', { field: 'ESR.FR_Trainer', detail: `0 or 1, got "${trainer}"` });
    const nfs = str(esr, 'NFS')?.toUpperCase();
    if (nfs === 'DUP' && !str(esr, 'RFN')?.trim() && !str(esr, 'RTN')?.trim()) throw new FiscalError('#MISSING_FIELD', { field: 'ESR.RFN (or ESR.RTN) of the ticket duplicated' });
    if (nfs === CLOSE) {
      const p = str(esr, 'FR_Closing');
      if (p !== 'M' && p !== 'A') throw new FiscalError('#INVALID_VALUE', { field: 'ESR.FR_Closing', detail: `M (month) or A (fiscal year) with NFS=${CLOSE}, got "${p ?? ''}"` });
      // a test or training closing would close the real period: its totals are the real ones
      if (bc.flags.includes('test')) {
        const field = str(esr, 'Test') === '1' ? 'ESR.Test' : 'ESR.FR_Trainer';
        throw new FiscalError('#INVALID_VALUE', { field, detail: `NFS=${CLOSE} closes the real month or fiscal year: it cannot be a test or training transaction` });
      }
    }
  }

  async prepare(input: PrepareInput): Promise<void> {
    yearEndOf(input.attributes);
    const rn = input.state.rn;
    try {
      await loadKey(input.dataDir, rn, new Ledger(input.state.country, rn).keyId === '');
    } catch (e) {
      noteSignatureError(input.dataDir, rn, 'transaction', e);
      throw e;
    }
  }

  /** The month and fiscal-year closings due before a transaction dated `d` (docs: "Closings"). */
  before(input: PrepareInput & { d: string }): Obj[] {
    if (str(input.esr, 'NFS')?.toUpperCase() === CLOSE) return [];
    const ledger = new Ledger(input.state.country, input.state.rn);
    const out: Obj[] = [];
    const month = ledger.periodId('M');
    if (month && monthOf(input.d) > month) out.push({ NFS: CLOSE, FR_Closing: 'M' });
    const year = ledger.periodId('A');
    if (year && fiscalYearOf(input.d, yearEndOf(input.attributes)) > year) out.push({ NFS: CLOSE, FR_Closing: 'A' });
    return out;
  }

  fiscalize(input: FiscalInput): Obj {
    const fis = this.generic.fiscalize(input);
    if (input.type !== 'Tra') return fis;
    const { esr, bc, state, attributes } = input;
    const rn = state.rn;
    const ledger = new Ledger(state.country, rn);
    const id = `${str(esr, 'TL') ?? ''}/${str(esr, 'TT') ?? ''}/${str(esr, 'TN') ?? ''}`;
    const key = keyFor(input.dataDir, rn, ledger, id);
    const d = str(esr, 'D') ?? formatLocalDateTime(input.now);
    const fn = str(fis, 'FN') ?? '';
    const yearEnd = yearEndOf(attributes);
    const nfs = str(esr, 'NFS')?.toUpperCase();
    // the events waiting to be journaled stay noted until this record has signed them (it may still fail)
    const pending = peekPending(input.dataDir, rn);
    const events: JetEvent[] = [...pending];
    const tags: Obj[] = Array.isArray(fis.Tag) ? [...(fis.Tag as Obj[])] : [];
    let kind: ChainKind | undefined;
    let fields: string[] = [];
    let type = '';
    const after: Array<(n: number) => void> = [];

    const closing = (p: Period): void => {
      const tot = ledger.totals(p);
      const { gt, gtAbs } = ledger.perpetual();
      // the day closed is the day of its last transaction (a Fiscal_ZLaunch Z is made the next day)
      const periodId = p === 'J' ? (state.zLastD || d).slice(0, 10) : p === 'M' ? ledger.periodId('M') || monthOf(d) : ledger.periodId('A') || fiscalYearOf(d, yearEnd);
      kind = 'G';
      type = PERIOD_NAME[p];
      fields = [rn, p, periodId, fn, d, String(tot.count), amount(tot.t), formatTaxes(tot.taxes), amount(gt), amount(gtAbs)];
      ledger.reset(p);
      if (p !== 'J') ledger.setPeriodId(p, '');
      tags.push(
        { Name: 'Period', Label: 'Période :', Value: periodId },
        { Name: 'Count', Label: 'Tickets :', Value: String(tot.count) },
        { Name: 'Total', Label: 'Total TTC :', Value: amount(tot.t) },
        ...[...tot.taxes.entries()].map(([r, a]) => ({ Name: `Total${r}`, Label: `TTC ${r} % :`, Value: amount(a) })),
        { Name: 'GTP', Label: 'GT perpétuel :', Value: amount(gt) },
        { Name: 'GTA', Label: 'GT perpétuel absolu :', Value: amount(gtAbs) },
      );
      after.push((n) => events.push({ kind: PERIOD_EVENT[p], detail: `${periodId} (grand total n° ${n})` }));
    };

    if (nfs === CLOSE) {
      closing(str(esr, 'FR_Closing') === 'A' ? 'A' : 'M');
    } else if (bc.kind === 'closing') {
      if (!bc.flags.includes('test')) closing('J');
    } else if (bc.kind === 'reprint') {
      const original = originalOf(input);
      const k = (input.reprints ?? 0) + 1;
      kind = 'D';
      type = 'Duplicata';
      fields = [rn, id, fn, d, original, String(k)];
      tags.push({ Name: 'Dup', Label: '', Value: `DUPLICATA n° ${k}` }, { Name: 'Ref', Label: "Ticket d'origine :", Value: original });
    } else if (bc.fiscal || bc.kind === 'training') {
      const training = bc.kind === 'training' || bc.flags.includes('test');
      const taxes = taxesOf(esr);
      const t = totalOf(esr, taxes);
      const op = operationOf(t);
      kind = training ? 'M' : bc.flags.includes('invoice') ? 'F' : 'T';
      type = training ? 'Formation' : kind === 'F' ? 'Facture' : 'Ticket';
      fields = [rn, id, fn, d, op, amount(t), formatTaxes(taxes)];
      if (!training) ledger.addTicket(t, taxes);
      tags.push({ Name: 'Type', Label: 'Opération :', Value: op });
      if (training) tags.push({ Name: 'Trainer', Label: '', Value: 'MODE FORMATION - ticket sans valeur fiscale' });
    }
    if (nfs !== CLOSE) {
      if (!ledger.periodId('M')) ledger.setPeriodId('M', monthOf(d));
      if (!ledger.periodId('A')) ledger.setPeriodId('A', fiscalYearOf(d, yearEnd));
    }

    const out: Obj = { ...fis };
    if (kind) {
      const s = ledger.seal(kind, fields, key);
      for (const f of after) f(s.n);
      const label = TICKET_LABEL[kind] ?? (kind === 'D' ? 'Duplicata n° :' : 'Clôture n° :');
      tags.unshift({ Name: 'Nr', Label: label, Value: String(s.n) });
      tags.push({ Name: 'Sig', Label: 'Signature :', Value: signatureExtract(s.signature) });
      const cert = certificationOf(attributes);
      if (cert) tags.push({ Name: 'Code', Label: 'Certificat :', Value: cert });
      Object.assign(out, { Type: type, ID: key.keyId, Payload: s.payload, Signature: s.signature });
    }
    const jet = signEvents(ledger, key, events, d, state.cfg, attributes);
    if (jet.length) out.FR_JET = jet;
    dropPending(input.dataDir, rn, pending.length);
    if (tags.length) out.Tag = tags;
    return out;
  }

  /** A changed Cfg or French attribute is a JET event (70) at once; the first record of a register initializes instead. */
  async configChanged(ctx: ServiceContext, reg: Register): Promise<void> {
    const ledger = new Ledger(reg.state.country, reg.state.rn);
    if (!ledger.keyId || ledger.fingerprint === fingerprintOf(reg.state.cfg, ctx.profiles.settings(reg.state.rn).raw)) return;
    await journalEvents(ctx, reg, []);
  }

  async serviceEvent(ctx: ServiceContext, reg: Register, event: ServiceEvent): Promise<void> {
    await journalEvents(ctx, reg, [{ kind: event === 'start' ? 'START' : 'STOP', detail: `efr ${ctx.version}` }]);
  }
}
