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
import { type Obj, isObj, obj, str } from '../../codec/index.js';
import type { ServiceContext } from '../../context.js';
import { formatLocalDateTime } from '../../esr/datetime.js';
import { appendRecord } from '../../record-writer.js';
import type { Register } from '../../registers.js';
import { GenericModule } from '../generic/index.js';
import type { FiscalInput, FiscalModule, ServiceEvent } from '../module.js';
import type { BusinessCase } from '../../esr/business-case.js';
import { exportSaft } from './export.js';
import { signedAmounts } from '../saft-cash-register/cash-transaction.js';
import { NO_LETTERS } from './letters.js';
import { orgNumber } from './saft-xml.js';
import { KEY_VERSION, noSigningKey } from './signing-key.js';
import { NO_FILES } from './files.js';
import { NO_VERIFIER } from './verifier.js';

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

/** The string Skatteetaten's validator rebuilds: previous signature;date;time;nr;amount incl.;amount excl. VAT. */
export function signedString(prev: string, f: { transDate: string; transTime: string; nr: string; amntIn: string; amntEx: string }): string {
  return [prev, f.transDate, f.transTime, f.nr, f.amntIn, f.amntEx].join(';');
}

function headingOf(kind: string, training: boolean): string {
  if (training) return 'Treningskvittering – IKKJE KVITTERING FOR KJØP';
  return HEADING[kind] ?? 'Salgskvittering';
}

/** The cash point's id: the export's registerID (Cfg.Trm.TT, else the RN). */
export function cashPointOf(state: { cfg: Obj; rn: string }): string {
  return str(obj(state.cfg, 'Trm') ?? {}, 'TT') ?? state.rn;
}

/** The lines the regulation wants printed: heading, org.nr with MVA, receipt number, cash point. */
function tagsOf(state: { cfg: Obj; rn: string }, _esr: Obj, heading: string, nr: string | undefined): Obj[] {
  const tags: Obj[] = [{ Name: 'Heading', Label: '', Value: heading }];
  const org = orgNumber(str(obj(state.cfg, 'Cmp') ?? {}, 'TaxId'));
  if (org) tags.push({ Name: 'OrgNr', Label: 'Org.nr.', Value: `${org} MVA` });
  if (nr) tags.push({ Name: 'ReceiptNo', Label: 'Kvitteringsnr.', Value: nr });
  tags.push({ Name: 'CashPoint', Label: 'Kassepunkt', Value: cashPointOf(state) });
  return tags;
}

export class NoModule implements FiscalModule {
  readonly country: string = 'NO';
  readonly letters = NO_LETTERS;
  readonly exports = { saft: exportSaft };
  readonly files = NO_FILES;
  readonly verifier = NO_VERIFIER;
  private readonly generic = new GenericModule('NO', NO_LETTERS);

  validate(esr: Obj, bc: BusinessCase): void {
    // net prices (TaxN) are not what the SAF-T lines and the signed amounts are made of
    if (str(esr, 'TaxN') === '1') throw new FiscalError('#INVALID_VALUE', { field: 'ESR.TaxN', detail: 'Norwegian receipts carry gross amounts (incl. VAT); TaxN=1 is not supported' });
    // a copy names its receipt: one copy per receipt is counted by it
    if (bc.kind === 'reprint' && !str(esr, 'RFN') && !str(esr, 'RTN')) throw new FiscalError('#MISSING_FIELD', { field: 'ESR.RFN' });
  }

  fiscalize(input: FiscalInput): Obj {
    const { esr, bc, state } = input;
    if (input.type !== 'Tra') return this.generic.fiscalize(input);
    const fisD = formatLocalDateTime(input.now);
    const training = bc.flags.includes('test') || bc.kind === 'training';
    // login, logout, copies and reports are events, in training mode too: never a signed cash transaction
    if (EVENT_KINDS.has(bc.kind)) {
      const fis: Obj = { D: fisD };
      if (bc.kind === 'reprint') {
        const original = input.original && isObj(input.original.Fis) ? str(input.original.Fis, 'FN') : undefined;
        if (!original) throw new FiscalError('#INVALID_VALUE', { field: 'ESR.RFN', detail: `no receipt ${str(esr, 'RFN') ?? str(esr, 'RTN') ?? ''} of this register to copy` });
        // at most one copy of a receipt (kassasystemforskriften § 2-6)
        if ((input.reprints ?? 0) >= 1) throw new FiscalError('#INVALID_VALUE', { field: 'ESR.RFN', detail: 'Norway allows one copy of a receipt, and this receipt was copied already' });
        fis.RFN = original;
      }
      if (training) fis.Training = '1';
      fis.Tag = tagsOf(state, esr, headingOf(bc.kind, training), undefined);
      return fis;
    }
    // a cash transaction: the next number, signed onto the register's chain
    // the key of the chain: made at the first signature only, never replaced under the same key version
    const key = noSigningKey(input.dataDir, state.country['no|sig'] === undefined);
    const d = str(esr, 'D') ?? fisD;
    const { amntIn, amntEx } = signedAmounts(esr);
    // the register's own series of cash transactions (not the FN counter a register may have used before)
    const nr = String(Number(state.country['no|nr'] ?? '0') + 1);
    const fields = { transDate: d.slice(0, 10), transTime: d.slice(11, 19), nr, amntIn, amntEx };
    const prev = state.country['no|sig'] ?? '0';
    const signature = sign('sha1', Buffer.from(signedString(prev, fields), 'utf8'), key.privateKey).toString('base64');
    state.country['no|nr'] = nr;
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
    fis.Tag = tagsOf(state, esr, headingOf(bc.kind, training), nr);
    return fis;
  }

  /** The key is made at the first start; the start and stop of the service are journaled (POS application start/stop events). */
  async serviceEvent(ctx: ServiceContext, reg: Register, event: ServiceEvent): Promise<void> {
    try {
      noSigningKey(ctx.dataDir, reg.state.country['no|sig'] === undefined);
    } catch {
      // a missing key of a signed chain: every cash transaction answers #DEVICE_FAILED until it is restored
    }
    const d = formatLocalDateTime(ctx.clock.now());
    await appendRecord(ctx, reg, { type: 'log', data: { TS: d, Event: event }, index: { d } }, undefined, true);
  }
}
