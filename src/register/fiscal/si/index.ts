/**
 * Slovenia (davčno potrjevanje računov, FURS). Every fiscal receipt gets its ZOI (zoi.ts) offline, is
 * numbered `<TL>-<TT>-<TN>` (premise, electronic device, sequential number per device: numbering structure B)
 * and carries the 60-digit code for its QR code (qr.ts); after it is journaled the pipeline sends it to
 * FURS (furs.ts), whose EOR is added to the receipt. Training, test and non-fiscal records are not reported
 * and have no ZOI. See docs/countries/si.md.
 */
import { FiscalError } from '../../../shared/errors.js';
import { fmt } from '../../../shared/money.js';
import { type Obj, str } from '../../codec/index.js';
import type { BusinessCase } from '../../esr/business-case.js';
import { formatLocalDateTime } from '../../esr/datetime.js';
import { requireFiscalCertificate } from '../certificate-store.js';
import { GenericModule } from '../generic/index.js';
import type { FiscalInput, FiscalModule } from '../module.js';
import { FursAuthority } from './furs.js';
import { companyTaxNumber, invoiceTotal } from './invoice.js';
import { SI_LETTERS } from './letters.js';
import { zoiQrCode } from './qr.js';
import { zoiOf } from './zoi.js';
import type { ServiceContext } from '../../context.js';
import type { Register } from '../../registers.js';
import type { ServiceEvent } from '../module.js';
import { registerPremiseIfChanged } from './premise-registration.js';
import { closeFursAgents } from './endpoint.js';

/** FURS's BusinessPremiseID and ElectronicDeviceID: 1 to 20 letters and digits. */
const FURS_ID = /^[0-9a-zA-Z]{1,20}$/;
/** The sequential invoice number: digits without leading zeros. */
const FURS_NUMBER = /^[1-9]\d{0,19}$/;

export function zoiTag(zoi: string): Obj {
  return { Name: 'ZOI', Label: 'ZOI:', Value: zoi };
}

export class SiModule implements FiscalModule {
  readonly country = 'SI';
  /** the kept-alive connections to the tax authority, shared by the registers */
  readonly close = closeFursAgents;
  readonly letters = SI_LETTERS;
  readonly authority = new FursAuthority();
  private readonly generic = new GenericModule('SI', SI_LETTERS);

  /** The premise of Cfg.Loc is registered with FURS after a change and at start, in the background (premise-registration.ts). */
  configChanged(ctx: ServiceContext, reg: Register): Promise<void> {
    void registerPremiseIfChanged(ctx, reg).catch(() => undefined);
    return Promise.resolve();
  }

  serviceEvent(ctx: ServiceContext, reg: Register, event: ServiceEvent): Promise<void> {
    if (event === 'start') void registerPremiseIfChanged(ctx, reg).catch(() => undefined);
    return Promise.resolve();
  }

  validate(esr: Obj, bc: BusinessCase): void {
    if (!bc.fiscal || bc.flags.includes('test')) return;
    const tl = str(esr, 'TL');
    if (!tl) throw new FiscalError('#MISSING_FIELD', { field: 'ESR.TL' });
    if (!FURS_ID.test(tl)) throw new FiscalError('#INVALID_VALUE', { field: 'ESR.TL', detail: `the FURS business premise id: 1 to 20 letters and digits, got "${tl}"` });
    const tt = str(esr, 'TT');
    if (tt !== undefined && !FURS_ID.test(tt)) throw new FiscalError('#INVALID_VALUE', { field: 'ESR.TT', detail: `the FURS electronic device id: 1 to 20 letters and digits, got "${tt}"` });
    const tn = str(esr, 'TN');
    if (tn !== undefined && !FURS_NUMBER.test(tn)) throw new FiscalError('#INVALID_VALUE', { field: 'ESR.TN', detail: `the sequential invoice number: digits without leading zeros, got "${tn}"` });
    // FURS: the operator's tax number (or, for an operator without a Slovenian one, ForeignOperator)
    if (!str(esr, 'OprTIN')?.trim()) throw new FiscalError('#MISSING_FIELD', { field: 'ESR.OprTIN' });
  }

  fiscalize(input: FiscalInput): Obj {
    const { esr, bc } = input;
    if (input.type !== 'Tra' || !bc.fiscal || bc.flags.includes('test')) return this.generic.fiscalize(input);
    // installed, valid, and test exactly when Fiscal_Test reports to FURS's test system
    const certificate = requireFiscalCertificate(input.dataDir, input.rn, input.attributes, input.now);
    const taxNumber = companyTaxNumber(input.state.cfg);
    const fisD = formatLocalDateTime(input.now);
    const issued = (str(esr, 'D') ?? fisD).slice(0, 19);
    const tl = str(esr, 'TL') ?? '';
    const tt = str(esr, 'TT') ?? '';
    const tn = str(esr, 'TN') ?? '';
    const zoi = zoiOf(certificate.keyPem, { taxNumber, issued, number: tn, premise: tl, device: tt, amount: fmt(invoiceTotal(esr), 2) });
    return { D: fisD, FN: `${tl}-${tt}-${tn}`, ZOI: zoi, Code: zoiQrCode(zoi, taxNumber, issued), Tag: [zoiTag(zoi)] };
  }
}
