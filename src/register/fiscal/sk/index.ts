/**
 * Slovakia (eKasa, zákon č. 289/2008 Z. z. o používaní elektronickej registračnej pokladnice). Every fiscal
 * receipt gets its PKP and OKP offline (signed with the register's authentication certificate), the offline QR
 * code and its Slovak lines; after it is journaled the pipeline sends it to eKasa (ekasa.ts), whose receipt id
 * (UID) is added to the receipt. Training, test and non-fiscal records are numbered like everywhere else and
 * not reported. See docs/countries/sk.md.
 */
import { FiscalError } from '../../../shared/errors.js';
import { type Obj, isObj, str } from '../../codec/index.js';
import type { BusinessCase } from '../../esr/business-case.js';
import { classify } from '../../esr/business-case.js';
import { formatLocalDateTime } from '../../esr/datetime.js';
import type { AuthorityCertificate } from '../authority.js';
import { ownFiscalCertificate, requireFiscalCertificate } from '../certificate-store.js';
import { GenericModule } from '../generic/index.js';
import type { FiscalInput, FiscalModule, PrepareInput } from '../module.js';
import type { RegisterState } from '../../journal/types.js';
import { closeSoapAgents } from '../soap-client.js';
import { EkasaAuthority } from './ekasa.js';
import { tagsOf } from './fis.js';
import { cashRegisterCodeOf, sellerIds, swIdOf } from './ids.js';
import { SK_LETTERS } from './letters.js';
import { okpOf, pkpOf } from './pkp.js';
import { offlineQr } from './qr.js';
import { ekasaReceiptOf, invoiceNumberOf } from './receipt.js';
import { SK_VERIFIER } from './verifier.js';

/** Whether a transaction is a receipt eKasa must receive (fiscal, not training or test). */
export function isReported(bc: BusinessCase): boolean {
  return bc.fiscal && !bc.flags.includes('test');
}

/**
 * The authentication certificate that signs: installed and valid. Whether it is one of the test system
 * cannot be read from it (test and production data name the register the same way), so Fiscal_Test alone
 * chooses the system. The financial administration issues authentication data per cash register, so a
 * register does not borrow def's as a Croatian one does: registers sharing one would report their receipts
 * under one cash register code, each numbering its own from 1.
 */
function certificateOf(dataDir: string, rn: string, attributes: ReadonlyMap<string, string>, now: Date): AuthorityCertificate {
  const cert = requireFiscalCertificate(dataDir, rn, attributes, now, false);
  if (rn !== 'def' && ownFiscalCertificate(dataDir, rn) === undefined) {
    throw new FiscalError('#FISCAL_CERTIFICATE', { rn, detail: `a Slovak register reports with the authentication data of its own cash register: install them for this register (POST /cer/fiscal?rn=${rn}); def's (${cert.subject}) belong to another` });
  }
  return cert;
}

/** The id of the original receipt a return or void names: ESR.RFiscal (its UID), else the original's UID or OKP as journaled. */
function referenceOf(esr: Obj, original: Obj | undefined): string | undefined {
  const given = str(esr, 'RFiscal')?.trim();
  if (given) return given;
  const fis = original && isObj(original.Fis) ? original.Fis : undefined;
  return fis ? (str(fis, 'UID') ?? str(fis, 'OKP')) : undefined;
}

/**
 * A register is one cash register (one code, one certificate) with one series of receipt numbers, but the
 * service numbers per TL/TT: receipts of a second TL/TT would repeat the numbers eKasa already has from this
 * cash register. Throws naming ESR.TT when the register numbered receipts of another TL/TT before.
 */
function requireOneTerminal(state: RegisterState, esr: Obj): void {
  const own = `${str(esr, 'TL') ?? ''}/${str(esr, 'TT') ?? ''}`;
  const other = Object.keys(state.tn).find((k) => k !== own);
  if (other !== undefined) {
    throw new FiscalError('#INVALID_VALUE', { field: 'ESR.TT', detail: `this register is one eKasa cash register, whose receipts are numbered for TL/TT ${other}; ${own} needs a register of its own (profile RN_TT) with the authentication data of its cash register` });
  }
}

export class SkModule implements FiscalModule {
  readonly country = 'SK';
  readonly letters = SK_LETTERS;
  /** a receipt number is never used twice by one cash register */
  readonly uniqueTn = true;
  readonly close = closeSoapAgents;
  readonly authority = new EkasaAuthority();
  readonly verifier = SK_VERIFIER;
  private readonly generic = new GenericModule('SK', SK_LETTERS);

  validate(esr: Obj, bc: BusinessCase): void {
    if (!isReported(bc)) return;
    const tn = str(esr, 'TN');
    if (tn !== undefined && !/^[1-9]\d{0,8}$/.test(tn)) throw new FiscalError('#INVALID_VALUE', { field: 'ESR.TN', detail: 'the receipt number (poradové číslo dokladu): digits without a leading zero, at most 9' });
    const paragon = str(esr, 'SK_ParagonNumber');
    if (paragon !== undefined && !/^[1-9]\d{0,8}$/.test(paragon.trim())) throw new FiscalError('#INVALID_VALUE', { field: 'ESR.SK_ParagonNumber', detail: 'the number of the paper receipt (paragón): digits without a leading zero, at most 9' });
    const invoice = invoiceNumberOf(esr);
    if (invoice !== undefined && invoice.length > 50) throw new FiscalError('#INVALID_VALUE', { field: 'ESR.SK_InvoiceNumber', detail: 'at most 50 characters' });
    // the items as eKasa will read them (rates, seller ids, the original a returned item names): refused now,
    // not after the receipt is journaled; an RFN is resolved to the original's id when it is fiscalized
    const named = str(esr, 'RFiscal')?.trim() || (str(esr, 'RFN') || str(esr, 'RTN') ? 'O-00000000000000000000000000000000' : undefined);
    ekasaReceiptOf({ esr: { D: '2000-01-01T00:00:00', ...esr }, bc, ...(named ? { referenceReceiptId: named } : {}) });
  }

  prepare(input: PrepareInput): Promise<void> {
    // a receipt for eKasa needs the seller's ids, the certificate, the cash register code and the software id
    if (isReported(classify(input.esr))) {
      sellerIds(input.state.cfg);
      const cert = certificateOf(input.dataDir, input.state.rn, input.attributes, new Date());
      cashRegisterCodeOf(input.attributes, cert);
      swIdOf(input.attributes);
    }
    return Promise.resolve();
  }

  fiscalize(input: FiscalInput): Obj {
    const { esr, bc } = input;
    if (input.type !== 'Tra' || !isReported(bc)) return this.generic.fiscalize(input);
    requireOneTerminal(input.state, esr);
    const seller = sellerIds(input.state.cfg);
    const cert = certificateOf(input.dataDir, input.rn, input.attributes, input.now);
    const cashRegisterCode = cashRegisterCodeOf(input.attributes, cert);
    const referenceReceiptId = referenceOf(esr, input.original);
    const receipt = ekasaReceiptOf({ esr, bc, ...(referenceReceiptId ? { referenceReceiptId } : {}) });
    const pkp = pkpOf(cert.keyPem, { dic: seller.dic, cashRegisterCode, receiptNumber: receipt.receiptNumber, receiptType: receipt.receiptType, issued: receipt.issued, amount: receipt.amount });
    const okp = okpOf(pkp);
    const fis: Obj = {
      D: formatLocalDateTime(input.now),
      FN: `${cashRegisterCode}/${receipt.receiptNumber}`,
      Type: receipt.receiptType,
      Dic: seller.dic,
      CashRegisterCode: cashRegisterCode,
      PKP: pkp,
      OKP: okp,
      CertSerial: cert.serial,
      Code: offlineQr({ okp, cashRegisterCode, issued: receipt.issued, receiptNumber: receipt.receiptNumber, amount: receipt.amount }),
      Tag: tagsOf(seller, cashRegisterCode, receipt, okp, pkp),
    };
    if (referenceReceiptId) fis.RefReceiptId = referenceReceiptId;
    return fis;
  }
}
