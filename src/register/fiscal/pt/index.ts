/**
 * Portugal (certified invoicing software, SAF-T PT). Every fiscal transaction is a document of a series:
 * a fatura simplificada (FS), a fatura (FT, with a customer) or fatura-recibo (FR, asked by ESR.DT), a
 * nota de crédito (NC) for returns and voids. Each document is signed with the program's RSA key into
 * its series' hash chain; the receipt prints the document number, the ATCUD, four characters of the
 * hash with the certificate number, and the QR code of Portaria 195/2020. GET /export?type=saft writes
 * the SAF-T PT 1.04_01 file. See docs/countries/pt.md.
 */
import type { KeyObject } from 'node:crypto';
import { FiscalError } from '../../../shared/errors.js';
import { type Obj, obj, str } from '../../codec/index.js';
import type { BusinessCase } from '../../esr/business-case.js';
import { formatLocalDateTime } from '../../esr/datetime.js';
import { GenericModule } from '../generic/index.js';
import type { ServiceContext } from '../../context.js';
import type { Register } from '../../registers.js';
import type { FiscalInput, FiscalModule, PrepareInput, ServiceEvent } from '../module.js';
import { PT_LETTERS } from './letters.js';
import { DOC_NAMES, amountsOf, customerOf, money2, qrCustomer } from './document.js';
import { exportSaft } from './export.js';
import { ensureKey, fingerprintOf, forgetKey, signingKey } from './keys.js';
import { companyNif } from './nif.js';
import { claimSeries, forgetOwners } from './owners.js';
import { qrText } from './qr.js';
import { DOCUMENT_NO, checkPortugueseRules } from './rules.js';
import { SeriesChain, certificateOf, docTypeOf, seriesOf, validationCode } from './series.js';
import { hashMessage, hashChars, printedHash, signMessage } from './signature.js';
import { PT_FILES } from './files.js';
import { PT_VERIFIER } from './verifier.js';

/** HashControl of the documents: the version of the signing key. */
export const HASH_CONTROL = '1';

/** Whether a transaction becomes a document of a series (training and test documents do not). */
export function isDocument(input: { type: string; bc: BusinessCase }): boolean {
  return input.type === 'Tra' && input.bc.fiscal && input.bc.kind !== 'training' && !input.bc.flags.includes('test');
}

/**
 * The number of the document a credit note corrects: the journaled original's (found by RFN or by
 * RTL/RTT/RTN), else the RFN as sent (a document of this series made before the journal, e.g. migrated).
 */
function correctedOf(input: FiscalInput): string {
  const fis = input.original ? obj(input.original, 'Fis') : undefined;
  const fn = fis ? str(fis, 'FN') : undefined;
  if (fn && DOCUMENT_NO.test(fn)) return fn;
  const rfn = str(input.esr, 'RFN')?.trim();
  if (rfn && DOCUMENT_NO.test(rfn)) return rfn;
  throw new FiscalError('#INVALID_VALUE', { field: rfn ? 'ESR.RFN' : 'ESR.RTN', detail: 'names no invoice (FS, FT or FR) of this journal: send RFN with the document number, e.g. "FS A/12"' });
}

const fingerprints = new WeakMap<KeyObject, string>();

/**
 * The key must be the one that signed the register's documents: its fingerprint is kept in the country
 * state (`pt|key`, set with the first document). Another key (swapped with its public key, or made anew
 * after a loss) would start chains nobody can verify with the first one: refused.
 */
function checkKey(state: FiscalInput['state'], key: KeyObject): void {
  let fp = fingerprints.get(key);
  if (!fp) {
    fp = fingerprintOf(key);
    fingerprints.set(key, fp);
  }
  const known = state.country['pt|key'];
  if (known !== undefined && known !== fp) {
    throw new FiscalError('#DEVICE_FAILED', { value: `pt/private-key.pem (not the key this register signed with: fingerprint ${fp.slice(0, 16)}…, expected ${known.slice(0, 16)}…)` });
  }
  state.country['pt|key'] = fp;
}

export class PtModule implements FiscalModule {
  readonly country = 'PT';
  readonly files = PT_FILES;
  readonly verifier = PT_VERIFIER;
  readonly letters = PT_LETTERS;
  private readonly generic = new GenericModule('PT', PT_LETTERS);
  readonly exports = { saft: exportSaft };

  validate(esr: Obj, bc: BusinessCase): void {
    checkPortugueseRules(esr, bc);
  }

  async prepare(input: PrepareInput): Promise<void> {
    const country = input.state.country;
    await ensureKey(input.dataDir, Object.keys(country).some((k) => k.startsWith('pt|')), country['pt|key']);
  }

  async serviceEvent(ctx: ServiceContext, _reg: Register, event: ServiceEvent): Promise<void> {
    // a service started again in this process reads the key and the series owners from their files
    if (event === 'start') {
      forgetKey(ctx.dataDir);
      forgetOwners(ctx.dataDir);
    }
  }

  fiscalize(input: FiscalInput): Obj {
    if (!isDocument(input)) return this.generic.fiscalize(input);
    const { esr, state, attributes } = input;
    const nif = companyNif(str(obj(state.cfg, 'Cmp') ?? {}, 'TaxId'));
    if (!nif) throw new FiscalError('#INVALID_VALUE', { field: 'Cfg.Cmp.TaxId', detail: 'a Portuguese register needs the company NIF (nine digits with check digit, optionally prefixed PT)' });
    const type = docTypeOf(esr, input.bc);
    const series = seriesOf(attributes, esr);
    const certificate = certificateOf(attributes);
    const code = validationCode(attributes, type, series);
    const chain = new SeriesChain(state, `${type} ${series}`);
    const number = chain.number + 1;
    const invoiceNo = `${type} ${series}/${number}`;
    const d = str(esr, 'D') ?? formatLocalDateTime(input.now);
    const invoiceDate = d.slice(0, 10);
    // the time of recording; never before the series' last one (a clock set back keeps the order)
    const now = formatLocalDateTime(input.now);
    const systemEntryDate = now < chain.systemEntryDate ? chain.systemEntryDate : now;
    if (invoiceDate < chain.invoiceDate) {
      throw new FiscalError('#INVALID_VALUE', { field: 'ESR.D', detail: `the documents of series ${type} ${series} are dated in order: the last one is of ${chain.invoiceDate}` });
    }
    if (invoiceDate > systemEntryDate.slice(0, 10)) {
      throw new FiscalError('#INVALID_VALUE', { field: 'ESR.D', detail: `a document cannot be dated after the day it is recorded (${systemEntryDate.slice(0, 10)})` });
    }
    const amounts = amountsOf(esr, type);
    const grossTotal = money2(amounts.grossTotal);
    const ref = type === 'NC' ? correctedOf(input) : undefined;
    const key = signingKey(input.dataDir);
    checkKey(state, key);
    // the last check: from here the series is this register's and the document is signed
    claimSeries(input.dataDir, nif, series, input.rn);
    const message = hashMessage({ invoiceDate, systemEntryDate, invoiceNo, grossTotal, previousHash: chain.hash });
    const hash = signMessage(key, message);
    chain.advance(number, hash, invoiceDate, systemEntryDate);
    const atcud = code ? `${code}-${number}` : '0';
    const customer = customerOf(esr);
    const qc = qrCustomer(customer);
    const code4 = hashChars(hash);
    const tags: Obj[] = [
      { Name: 'Doc', Label: '', Value: `${DOC_NAMES[type]} ${invoiceNo}` },
      { Name: 'ATCUD', Label: 'ATCUD:', Value: atcud },
      { Name: 'NIF', Label: 'NIF:', Value: customer.taxId === '999999990' ? 'Consumidor final' : customer.taxId },
    ];
    if (ref) tags.push({ Name: 'Ref', Label: 'Ref.:', Value: ref });
    tags.push({ Name: 'Hash', Label: '', Value: printedHash(hash, certificate) });
    return {
      D: systemEntryDate,
      FN: invoiceNo,
      Type: type,
      Code: qrText({
        companyNif: nif, customerNif: qc.nif, customerCountry: qc.country, type, status: 'N', invoiceDate, invoiceNo, atcud,
        taxes: amounts.taxes, taxPayable: amounts.taxPayable, grossTotal: amounts.grossTotal, hash4: code4, certificate,
      }),
      Payload: message,
      Signature: hash,
      Tag: tags,
    };
  }
}
