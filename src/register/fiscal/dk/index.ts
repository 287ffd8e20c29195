/**
 * Denmark (momsbekendtgørelsen's digital sales registration, Skattestyrelsen's SAF-T Cash Register): every
 * cash transaction of a register is numbered gaplessly and signed RSA PKCS#1 v1.5 with SHA-512 by the
 * register's certificate (an OCES3 certificate, installed like Croatia's with POST /cer/fiscal) over
 * `previous signature;nr;transID;transType;transDate;transTime;empID;amount incl. VAT;amount excl. VAT;
 * registerID;companyIdent` ('0' before the first), chained per register; every value signed is kept in Fis so
 * the export writes exactly what was signed. Events as in Norway. See docs/countries/dk.md.
 */
import { sign } from 'node:crypto';
import { type Obj, isObj, obj, str } from '../../codec/index.js';
import type { ServiceContext } from '../../context.js';
import { formatLocalDateTime } from '../../esr/datetime.js';
import { appendRecord } from '../../record-writer.js';
import type { Register } from '../../registers.js';
import { requireFiscalCertificate } from '../certificate-store.js';
import { GenericModule } from '../generic/index.js';
import type { FiscalInput, FiscalModule, PrepareInput, ServiceEvent } from '../module.js';
import { classify } from '../../esr/business-case.js';
import { cvrOf } from './cvr.js';
import { exportSaft } from './export.js';
import { DK_LETTERS } from './letters.js';
import { cashTransType, signedAmounts } from '../saft-cash-register/cash-transaction.js';
import { DK_VERIFIER } from './verifier.js';

/** Business cases that are events, not cash transactions: journaled, never signed. */
const EVENT_KINDS = new Set(['login', 'logout', 'reprint', 'xreport', 'closing', 'nonfiscal']);

/** The string the Danish validator rebuilds from the file. */
export function danishSignedString(prev: string, f: { nr: string; transId: string; transType: string; transDate: string; transTime: string; empId: string; amntIn: string; amntEx: string; registerId: string; companyIdent: string }): string {
  return [prev, f.nr, f.transId, f.transType, f.transDate, f.transTime, f.empId, f.amntIn, f.amntEx, f.registerId, f.companyIdent].join(';');
}

export class DkModule implements FiscalModule {
  readonly country: string = 'DK';
  readonly letters = DK_LETTERS;
  readonly exports = { saft: exportSaft };
  readonly verifier = DK_VERIFIER;
  private readonly generic = new GenericModule('DK', DK_LETTERS);

  validate(): void {
    // the generic rules; the CVR and the certificate are checked before anything is journaled (prepare)
  }

  /** A cash transaction needs the CVR and a valid certificate: refused before it is journaled. */
  prepare(input: PrepareInput): Promise<void> {
    const bc = classify(input.esr);
    if (!EVENT_KINDS.has(bc.kind) || bc.flags.includes('test')) {
      cvrOf(input.state.cfg);
      requireFiscalCertificate(input.dataDir, input.state.rn, input.attributes, new Date(), false);
    }
    return Promise.resolve();
  }

  fiscalize(input: FiscalInput): Obj {
    const { esr, bc, state } = input;
    if (input.type !== 'Tra') return this.generic.fiscalize(input);
    const fisD = formatLocalDateTime(input.now);
    const training = bc.flags.includes('test') || bc.kind === 'training';
    if (EVENT_KINDS.has(bc.kind) && !training) {
      const fis: Obj = { D: fisD };
      if (bc.kind === 'reprint') {
        const original = input.original && isObj(input.original.Fis) ? str(input.original.Fis, 'FN') : undefined;
        if (original) fis.RFN = original;
      }
      return fis;
    }
    const cert = requireFiscalCertificate(input.dataDir, input.rn, input.attributes, input.now, false);
    const d = str(esr, 'D') ?? fisD;
    const { total, amntIn, amntEx } = signedAmounts(esr);
    const f = {
      nr: String(state.fn + 1),
      transId: String(input.sq),
      transType: cashTransType(bc.kind, training, total),
      transDate: d.slice(0, 10),
      transTime: d.slice(11, 19),
      empId: (str(esr, 'Opr') ?? 'POS').slice(0, 36),
      amntIn,
      amntEx,
      registerId: (str(obj(state.cfg, 'Trm') ?? {}, 'TT') ?? state.rn).slice(0, 36),
      companyIdent: cvrOf(state.cfg),
    };
    const prev = state.country['dk|sig'] ?? '0';
    const signature = sign('sha512', Buffer.from(danishSignedString(prev, f), 'utf8'), cert.keyPem).toString('base64');
    state.fn += 1;
    state.country['dk|sig'] = signature;
    const fis: Obj = {
      D: fisD,
      FN: f.nr,
      TransID: f.transId,
      TransType: f.transType,
      EmpID: f.empId,
      RegisterID: f.registerId,
      CompanyIdent: f.companyIdent,
      TransDate: f.transDate,
      TransTime: f.transTime,
      AmntIn: f.amntIn,
      AmntEx: f.amntEx,
      Signature: signature,
      KeyVersion: '1',
      CertSerial: cert.serial,
    };
    if (training) fis.Training = '1';
    return fis;
  }

  /** The start and stop of the service are journaled (POS application start/stop events). */
  async serviceEvent(ctx: ServiceContext, reg: Register, event: ServiceEvent): Promise<void> {
    const d = formatLocalDateTime(ctx.clock.now());
    await appendRecord(ctx, reg, { type: 'log', data: { TS: d, Event: event }, index: { d } }, undefined, true);
  }
}
