/**
 * Croatia (fiskalizacija u prometu gotovinom). Every fiscal receipt gets its number TN/TL/TT (BrOznRac,
 * OznPosPr = the business premise, OznNapUr = the payment device), its ZKI (signed offline with the fiscal
 * certificate) and the QR code; after it is journaled the pipeline reports it to the CIS, whose JIR is added
 * (withId). Training, test and non-fiscal records are numbered like everywhere else and not reported.
 * See docs/countries/hr.md.
 */
import { FiscalError } from '../../../shared/errors.js';
import { type Obj, lines, obj, str } from '../../codec/index.js';
import type { BusinessCase } from '../../esr/business-case.js';
import { classify } from '../../esr/business-case.js';
import { formatLocalDateTime } from '../../esr/datetime.js';
import type { AuthorityCertificate, AuthorityPort, DeliveryInput, DeliveryResult } from '../authority.js';
import { requireFiscalCertificate } from '../certificate-store.js';
import { GenericModule } from '../generic/index.js';
import type { FiscalInput, FiscalModule, PrepareInput } from '../module.js';
import { cisDateTime } from './cis-date.js';
import { closeSoapAgents, postSoap } from '../soap-client.js';
import { endpointOf } from './endpoint.js';
import { amount2, racunOf } from './invoice.js';
import { HR_LETTERS } from './letters.js';
import { isValidOib, oibOf } from './oib.js';
import { type NacinPlac, nacinPlacOf } from './payment.js';
import { qrUrl } from './qr.js';
import { SOAP_ACTION_RACUNI, cisRequest, parseCisAnswer } from './request-xml.js';
import { zkiOf } from './zki.js';

const PAYMENT_TEXT: Readonly<Record<NacinPlac, string>> = { G: 'Gotovina', K: 'Kartice', C: 'Ček', T: 'Transakcijski račun', O: 'Ostalo' };

/** Whether a transaction is a receipt the CIS must receive (fiscal, not training or test). */
function isReported(bc: BusinessCase): boolean {
  return bc.fiscal && !bc.flags.includes('test');
}

/** The company's OIB from the configuration; throws when it is missing or has a wrong check digit. */
export function companyOib(cfg: Obj): string {
  const oib = oibOf(str(obj(cfg, 'Cmp') ?? {}, 'TaxId'));
  if (!oib) throw new FiscalError('#MISSING_FIELD', { field: 'Cfg.Cmp.TaxId' });
  if (!isValidOib(oib)) throw new FiscalError('#INVALID_VALUE', { field: 'Cfg.Cmp.TaxId', detail: `"${oib}" is not an OIB (11 digits with the ISO 7064 MOD 11,10 check digit)` });
  return oib;
}

/** The certificate that signs: installed, valid, and a Demo certificate exactly when Fiscal_Test reports to the test CIS. */
function certificateOf(dataDir: string, rn: string, attributes: ReadonlyMap<string, string>, now: Date): AuthorityCertificate {
  return requireFiscalCertificate(dataDir, rn, attributes, now);
}

/** The receipt's printed tags: ZKI, operator, payment method. */
function tagsOf(esr: Obj, zki: string): Obj[] {
  const tags: Obj[] = [{ Name: 'ZKI', Label: 'ZKI:', Value: zki }];
  const operator = str(esr, 'OprN') ?? str(esr, 'Opr') ?? str(esr, 'OprTIN');
  if (operator) tags.push({ Name: 'Operater', Label: 'Operater:', Value: operator });
  const nacin = nacinPlacOf(esr);
  tags.push({ Name: 'NacinPlac', Label: 'Način plaćanja:', Value: PAYMENT_TEXT[nacin] });
  return tags;
}

export class CisAuthority implements AuthorityPort {
  readonly name = 'CIS';
  readonly idName = 'JIR';
  readonly codeName = 'ZKI';

  reports(data: Obj): boolean {
    return str(data, '_') === 'Tra' && str(obj(data, 'Fis') ?? {}, 'ZKI') !== undefined;
  }

  async deliver(input: DeliveryInput): Promise<DeliveryResult> {
    const esr = obj(input.data, 'ESR') ?? {};
    const fis = obj(input.data, 'Fis') ?? {};
    let racun;
    try {
      racun = racunOf({ esr, fis, cfg: input.cfg, attributes: input.attributes, later: input.later });
    } catch (e) {
      // the journaled receipt cannot become a CIS request: sending it again would not help
      if (e instanceof FiscalError) return { ok: false, code: e.code, message: e.message };
      throw e;
    }
    const { xml } = cisRequest({ racun, certificate: input.certificate, sentAt: cisDateTime(formatLocalDateTime(input.now)) });
    const answer = await postSoap(endpointOf(input.attributes), xml, input.certificate, input.signal, SOAP_ACTION_RACUNI, 'CIS');
    return parseCisAnswer(answer);
  }

  withId(fis: Obj, id: string, data: Obj): Obj {
    const esr = obj(data, 'ESR') ?? {};
    const d = str(esr, 'D') ?? str(fis, 'D') ?? '';
    const tags = lines(fis, 'Tag').filter((t) => str(t, 'Name') !== 'JIR');
    const out: Obj = { ...fis, JIR: id, Tag: [...tags, { Name: 'JIR', Label: 'JIR:', Value: id }] };
    if (d) out.Code = qrUrl({ jir: id }, d, amount2(str(esr, 'T') ?? '0', 'ESR.T'));
    return out;
  }
}

export class HrModule implements FiscalModule {
  readonly country = 'HR';
  /** the kept-alive connections to the tax authority, shared by the registers */
  readonly close = closeSoapAgents;
  readonly letters = HR_LETTERS;
  readonly authority: AuthorityPort = new CisAuthority();
  private readonly generic = new GenericModule('HR', HR_LETTERS);

  validate(esr: Obj, bc: BusinessCase): void {
    if (!isReported(bc)) return;
    const tl = str(esr, 'TL');
    if (!tl) throw new FiscalError('#MISSING_FIELD', { field: 'ESR.TL' });
    if (!/^[0-9a-zA-Z]{1,20}$/.test(tl)) throw new FiscalError('#INVALID_VALUE', { field: 'ESR.TL', detail: 'the business premise (oznaka poslovnog prostora): 1 to 20 letters and digits' });
    const tt = str(esr, 'TT');
    if (tt !== undefined && !/^\d{1,20}$/.test(tt)) throw new FiscalError('#INVALID_VALUE', { field: 'ESR.TT', detail: 'the payment device (oznaka naplatnog uređaja): 1 to 20 digits' });
    const tn = str(esr, 'TN');
    if (tn !== undefined && !/^[1-9]\d{0,19}$/.test(tn)) throw new FiscalError('#INVALID_VALUE', { field: 'ESR.TN', detail: 'the receipt number (brojčana oznaka računa): digits without a leading zero' });
    const opr = str(esr, 'OprTIN')?.replace(/^HR/i, '');
    if (!opr) throw new FiscalError('#MISSING_FIELD', { field: 'ESR.OprTIN' });
    if (!isValidOib(opr)) throw new FiscalError('#INVALID_VALUE', { field: 'ESR.OprTIN', detail: `"${opr}" is not an OIB (11 digits with the ISO 7064 MOD 11,10 check digit)` });
    lines(esr, 'TaxA').forEach((tax, i) => {
      const tty = str(tax, 'TTY');
      if (tty !== undefined && tty.toUpperCase() !== 'CT') throw new FiscalError('#INVALID_VALUE', { field: `ESR.TaxA[${i}].TTY`, detail: `"${tty}" is not a Croatian tax; CT (porez na potrošnju) is` });
      if (tty !== undefined && str(tax, 'Base') === undefined) throw new FiscalError('#MISSING_FIELD', { field: `ESR.TaxA[${i}].Base` });
    });
    const spec = str(esr, 'HR_SpecNamj');
    if (spec !== undefined && spec.length > 1000) throw new FiscalError('#INVALID_VALUE', { field: 'ESR.HR_SpecNamj', detail: 'at most 1000 characters' });
    const paragon = str(esr, 'HR_ParagonBrRac');
    if (paragon !== undefined && paragon.length > 100) throw new FiscalError('#INVALID_VALUE', { field: 'ESR.HR_ParagonBrRac', detail: 'at most 100 characters' });
  }

  prepare(input: PrepareInput): Promise<void> {
    // a receipt for the CIS needs the company's OIB and the fiscal certificate: refused before it is journaled
    if (isReported(classify(input.esr))) {
      companyOib(input.state.cfg);
      certificateOf(input.dataDir, input.state.rn, input.attributes, new Date());
    }
    return Promise.resolve();
  }

  fiscalize(input: FiscalInput): Obj {
    const { esr, bc } = input;
    if (input.type !== 'Tra' || !isReported(bc)) return this.generic.fiscalize(input);
    const oib = companyOib(input.state.cfg);
    const cert = certificateOf(input.dataDir, input.rn, input.attributes, input.now);
    const d = str(esr, 'D') ?? formatLocalDateTime(input.now);
    const tn = str(esr, 'TN') ?? '';
    const tl = str(esr, 'TL') ?? '';
    const tt = str(esr, 'TT') ?? '1';
    const total = amount2(str(esr, 'T') ?? '0', 'ESR.T');
    const zki = zkiOf(cert.keyPem, { oib, issued: d, number: tn, premise: tl, device: tt, total });
    return {
      D: formatLocalDateTime(input.now),
      FN: `${tn}/${tl}/${tt}`,
      ZKI: zki,
      Code: qrUrl({ zki }, d, total),
      Tag: tagsOf(esr, zki),
    };
  }
}
