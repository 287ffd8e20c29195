/**
 * Norway (kassasystemforskriften, Skatteetaten's SAF-T Cash Register): every cash transaction of a register
 * (sales, returns, voids, training, pay-ins and pay-outs) is numbered gaplessly and signed with RSA-SHA1 by the
 * instance's 1024-bit key over `previous signature;transaction date;transaction time;number;amount incl. VAT;
 * amount excl. VAT` ('0' before the first), chained per register. Login, logout, copies, X and Z reports,
 * drawer openings (Audit records) and the service's start and stop are journaled as events. The export is the
 * SAF-T Cash Register XML with the public key (export.ts); `efr verify --country no` checks it (verify.ts).
 * See docs/countries/no.md.
 */
import { sign } from 'node:crypto';
import { FiscalError } from '../../../shared/errors.js';
import { type Dec, add, dec, fmt, neg, parseDec, round } from '../../../shared/money.js';
import { type Obj, isObj, lines, obj, str } from '../../codec/index.js';
import type { ServiceContext } from '../../context.js';
import { formatLocalDateTime } from '../../esr/datetime.js';
import { appendRecord } from '../../pipeline.js';
import type { Register } from '../../registers.js';
import { GenericModule } from '../generic/index.js';
import type { FiscalInput, FiscalModule, ServiceEvent } from '../module.js';
import { exportSaft } from './export.js';
import { NO_LETTERS } from './letters.js';
import { orgNumber } from './saft-xml.js';
import { KEY_VERSION, noSigningKey } from './signing-key.js';

/** Business cases that are events, not cash transactions: journaled, never signed. */
const EVENT_KINDS = new Set(['login', 'logout', 'reprint', 'xreport', 'closing', 'nonfiscal']);

const HEADING: Readonly<Record<string, string>> = {
  sale: 'Salgskvittering',
  return: 'Returkvittering',
  void: 'Annulleringskvittering',
  reprint: 'KOPI',
  xreport: 'X-rapport',
  closing: 'Z-rapport',
  payin: 'Innbetaling',
  payout: 'Utbetaling',
};

function money2(d: Dec): string {
  return fmt(round(d, 2), 2);
}

/** The amount of a text, 0 when absent. */
function amountOf(text: string | undefined): Dec {
  return (text !== undefined ? parseDec(text) : undefined) ?? dec('0');
}

/** The string Skatteetaten's validator rebuilds: previous signature;date;time;nr;amount incl.;amount excl. VAT. */
export function signedString(prev: string, f: { transDate: string; transTime: string; nr: string; amntIn: string; amntEx: string }): string {
  return [prev, f.transDate, f.transTime, f.nr, f.amntIn, f.amntEx].join(';');
}

function headingOf(kind: string, training: boolean): string {
  if (training) return 'Treningskvittering – IKKJE KVITTERING FOR KJØP';
  return HEADING[kind] ?? 'Salgskvittering';
}

/** The lines the regulation wants printed: heading, org.nr with MVA, receipt number, cash point. */
function tagsOf(cfg: Obj, esr: Obj, heading: string, nr: string | undefined): Obj[] {
  const tags: Obj[] = [{ Name: 'Heading', Label: '', Value: heading }];
  const org = orgNumber(str(obj(cfg, 'Cmp') ?? {}, 'TaxId'));
  if (org) tags.push({ Name: 'OrgNr', Label: 'Org.nr.', Value: `${org} MVA` });
  if (nr) tags.push({ Name: 'ReceiptNo', Label: 'Kvitteringsnr.', Value: nr });
  tags.push({ Name: 'CashPoint', Label: 'Kassepunkt', Value: str(esr, 'TT') ?? '1' });
  return tags;
}

export class NoModule implements FiscalModule {
  readonly country: string = 'NO';
  readonly letters = NO_LETTERS;
  readonly exports = { saft: exportSaft };
  private readonly generic = new GenericModule('NO', NO_LETTERS);

  validate(): void {
    // the generic rules; what Norway adds is checked when the record is signed (one copy per receipt)
  }

  fiscalize(input: FiscalInput): Obj {
    const { esr, bc, state } = input;
    if (input.type !== 'Tra') return this.generic.fiscalize(input);
    const fisD = formatLocalDateTime(input.now);
    const training = bc.flags.includes('test') || bc.kind === 'training';
    if (EVENT_KINDS.has(bc.kind) && !training) {
      const fis: Obj = { D: fisD };
      if (bc.kind === 'reprint') {
        // at most one copy of a receipt (kassasystemforskriften § 2-6)
        if ((input.reprints ?? 0) >= 1) throw new FiscalError('#INVALID_VALUE', { field: 'ESR.RFN', detail: 'Norway allows one copy of a receipt, and this receipt was copied already' });
        const original = input.original && isObj(input.original.Fis) ? str(input.original.Fis, 'FN') : undefined;
        if (original) fis.RFN = original;
      }
      fis.Tag = tagsOf(state.cfg, esr, headingOf(bc.kind, false), undefined);
      return fis;
    }
    // a cash transaction: the next number, signed onto the register's chain
    const key = noSigningKey(input.dataDir);
    const d = str(esr, 'D') ?? fisD;
    const total = amountOf(str(esr, 'T'));
    let vat = dec('0');
    for (const tax of lines(esr, 'TaxA')) if (!str(tax, 'TTY')) vat = add(vat, amountOf(str(tax, 'TAmt')));
    const nr = String(state.fn + 1);
    const fields = { transDate: d.slice(0, 10), transTime: d.slice(11, 19), nr, amntIn: money2(total), amntEx: money2(add(total, neg(vat))) };
    const prev = state.country['no|sig'] ?? '0';
    const signature = sign('sha1', Buffer.from(signedString(prev, fields), 'utf8'), key.privateKey).toString('base64');
    state.fn += 1;
    state.country['no|sig'] = signature;
    const fis: Obj = {
      D: fisD,
      FN: nr,
      TransDate: fields.transDate,
      TransTime: fields.transTime,
      AmntIn: fields.amntIn,
      AmntEx: fields.amntEx,
      Signature: signature,
      KeyVersion: KEY_VERSION,
    };
    if (training) fis.Training = '1';
    fis.Tag = tagsOf(state.cfg, esr, headingOf(bc.kind, training), nr);
    return fis;
  }

  /** The key is made at the first start; the start and stop of the service are journaled (POS application start/stop events). */
  async serviceEvent(ctx: ServiceContext, reg: Register, event: ServiceEvent): Promise<void> {
    noSigningKey(ctx.dataDir);
    const d = formatLocalDateTime(ctx.clock.now());
    await appendRecord(ctx, reg, { type: 'log', data: { TS: d, Event: event }, index: { d } }, undefined, true);
  }
}
