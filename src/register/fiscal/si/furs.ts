/**
 * The FURS AuthorityPort: which journaled records are reported (fiscal receipts with a ZOI), sending one as a
 * signed InvoiceRequest, and adding the EOR FURS answers to the receipt's Fis. FURS's answers are verified
 * with its signing certificate when the profile attribute Fiscal_AuthorityCert names that PEM file; else
 * they are decoded only (docs/countries/si.md).
 */
import { FiscalError } from '../../../shared/errors.js';
import { readFileSync } from 'node:fs';
import { type Obj, isObj, str } from '../../codec/index.js';
import type { AuthorityPort, DeliveryInput, DeliveryResult } from '../authority.js';
import { endpointOf, invoiceUrl, postJson } from './endpoint.js';
import { invoiceRequest, jsonText } from './invoice.js';
import { parseFursAnswer, signFursJws, tokenBody } from './jws.js';
import { journaledFlags } from '../../esr/business-case.js';

const verifyKeys = new Map<string, string>();

/** FURS's signing certificate (PEM) named by Fiscal_AuthorityCert, read once; undefined when not set. */
function verifyKeyOf(attributes: ReadonlyMap<string, string>): string | undefined {
  const file = attributes.get('fiscal_authoritycert')?.trim();
  if (!file) return undefined;
  let pem = verifyKeys.get(file);
  if (pem === undefined) {
    pem = readFileSync(file, 'utf8');
    verifyKeys.set(file, pem);
  }
  return pem;
}

export function eorTag(eor: string): Obj {
  return { Name: 'EOR', Label: 'EOR:', Value: eor };
}

export class FursAuthority implements AuthorityPort {
  readonly name = 'FURS';
  readonly idName = 'EOR';
  readonly codeName = 'ZOI';

  reports(data: Obj): boolean {
    const fis = data.Fis;
    if (str(data, '_') !== undefined && str(data, '_') !== 'Tra') return false;
    if (journaledFlags(data).includes('test')) return false;
    return isObj(fis) && Boolean(str(fis, 'ZOI'));
  }

  async deliver(input: DeliveryInput): Promise<DeliveryResult> {
    let request;
    try {
      request = invoiceRequest({ data: input.data, cfg: input.cfg, later: input.later, now: input.now });
    } catch (e) {
      // the receipt cannot be mapped (a tax number missing from the base data): a refusal of our own, sent again after a change
      if (e instanceof FiscalError) return { ok: false, code: e.code, message: e.message };
      throw e;
    }
    const jws = signFursJws(jsonText(request), input.certificate);
    const answer = await postJson(invoiceUrl(endpointOf(input.attributes)), tokenBody(jws), input.certificate, input.attributes, input.signal);
    return parseFursAnswer(answer.text, verifyKeyOf(input.attributes));
  }

  withId(fis: Obj, id: string): Obj {
    const tags = (Array.isArray(fis.Tag) ? fis.Tag : []).filter((t) => !(isObj(t) && str(t, 'Name') === 'EOR'));
    return { ...fis, EOR: id, Tag: [...tags, eorTag(id)] };
  }
}
