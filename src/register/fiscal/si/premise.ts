/**
 * Business premise registration (FURS message "Poslovni prostor" / BusinessPremiseRequest, posted to
 * `<base>/invoices/register`): every TL must be registered before its first receipt is reported, and again
 * when its data change; a closed premise is reported with ClosingTag Z. The data come from Cfg.Loc (the
 * location whose TL it is): Adr = street, AdrNr = house number (with its addition, "24A"), Zip = postal code,
 * City = post office, SI_Community = settlement (default City), and the land-register identification
 * SI_CadastralNumber, SI_BuildingNumber, SI_BuildingSectionNumber; a movable premise gives SI_PremiseType
 * (A vehicle, B market stall etc., C other) instead. When the service registers: docs/countries/si.md.
 */
import { randomUUID } from 'node:crypto';
import { LosslessNumber } from 'lossless-json';
import { FiscalError } from '../../../shared/errors.js';
import { type Obj, isObj, str } from '../../codec/index.js';
import { formatLocalDateTime } from '../../esr/datetime.js';
import type { AuthorityCertificate, DeliveryResult } from '../authority.js';
import { endpointOf, postJson, premiseUrl } from './endpoint.js';
import { type JsonValue, companyTaxNumber, jsonText } from './invoice.js';
import { parseFursAnswer, signFursJws } from './jws.js';
import { slovenianTaxNumber } from './tax-number.js';

/** The Cfg.Loc of a TL: the one Loc object (when its TL is that or unset), or the one of a Loc array that names it. */
export function locationOf(cfg: Obj, tl: string): Obj | undefined {
  const loc = cfg.Loc;
  const all = Array.isArray(loc) ? loc.filter(isObj) : isObj(loc) ? [loc] : [];
  return all.find((l) => str(l, 'TL') === tl) ?? (all.length === 1 && !str(all[0] as Obj, 'TL') ? all[0] : undefined);
}

function required(loc: Obj, key: string, tl: string): string {
  const v = str(loc, key)?.trim();
  if (!v) throw new FiscalError('#MISSING_FIELD', { field: `Cfg.Loc.${key} (TL ${tl})` });
  return v;
}

function integer(loc: Obj, key: string, tl: string, max: number): LosslessNumber {
  const v = required(loc, key, tl);
  if (!/^\d{1,5}$/.test(v) || Number(v) > max) throw new FiscalError('#INVALID_VALUE', { field: `Cfg.Loc.${key}`, detail: `a number 0 to ${max}, got "${v}"` });
  return new LosslessNumber(String(Number(v)));
}

/** BPIdentifier: a real estate premise (address and land-register ids) or a movable one (PremiseType). */
function identifierOf(loc: Obj, tl: string): { [key: string]: JsonValue } {
  const movable = str(loc, 'SI_PremiseType')?.trim().toUpperCase();
  if (movable) {
    if (!['A', 'B', 'C'].includes(movable)) throw new FiscalError('#INVALID_VALUE', { field: 'Cfg.Loc.SI_PremiseType', detail: `A, B or C, got "${movable}"` });
    return { PremiseType: movable };
  }
  const nr = /^(\d+)\s*(.*)$/.exec(required(loc, 'AdrNr', tl));
  const zip = required(loc, 'Zip', tl);
  if (!/^\d{4}$/.test(zip)) throw new FiscalError('#INVALID_VALUE', { field: 'Cfg.Loc.Zip', detail: `a Slovenian postal code (4 digits), got "${zip}"` });
  const address: { [key: string]: JsonValue } = {
    Street: required(loc, 'Adr', tl),
    HouseNumber: nr ? (nr[1] as string) : required(loc, 'AdrNr', tl),
  };
  const additional = nr?.[2]?.trim();
  if (additional) address.HouseNumberAdditional = additional;
  address.Community = str(loc, 'SI_Community')?.trim() || required(loc, 'City', tl);
  address.City = required(loc, 'City', tl);
  address.PostalCode = zip;
  return {
    RealEstateBP: {
      PropertyID: {
        CadastralNumber: integer(loc, 'SI_CadastralNumber', tl, 9999),
        BuildingNumber: integer(loc, 'SI_BuildingNumber', tl, 99999),
        BuildingSectionNumber: integer(loc, 'SI_BuildingSectionNumber', tl, 9999),
      },
      Address: address,
    },
  };
}

export interface PremiseInput {
  cfg: Obj;
  attributes: ReadonlyMap<string, string>;
  /** the premise (BusinessPremiseID) */
  tl: string;
  /** the day from which the data are valid, YYYY-MM-DD (default: today) */
  validFrom?: string;
  /** the premise is closed (ClosingTag Z) */
  closing?: boolean;
  specialNotes?: string;
  now: Date;
  messageId?: string;
}

/**
 * The software supplier: the profile attribute Fiscal_SoftwareSupplier (a Slovenian tax number, or the name
 * of a foreign supplier), else the company itself.
 */
function supplierOf(input: PremiseInput): { [key: string]: JsonValue } {
  const given = input.attributes.get('fiscal_softwaresupplier')?.trim();
  if (given) {
    const n = slovenianTaxNumber(given);
    return n ? { TaxNumber: new LosslessNumber(n) } : { NameForeign: given.slice(0, 1000) };
  }
  return { TaxNumber: new LosslessNumber(companyTaxNumber(input.cfg)) };
}

/** The BusinessPremiseRequest of a TL. Throws #MISSING_FIELD / #INVALID_VALUE naming the Cfg.Loc field that is missing. */
export function premiseRequest(input: PremiseInput): { BusinessPremiseRequest: { [key: string]: JsonValue } } {
  if (!/^[0-9a-zA-Z]{1,20}$/.test(input.tl)) throw new FiscalError('#INVALID_VALUE', { field: 'TL', detail: `FURS's business premise id: 1 to 20 letters and digits, got "${input.tl}"` });
  const loc = locationOf(input.cfg, input.tl);
  if (!loc) throw new FiscalError('#MISSING_FIELD', { field: `Cfg.Loc (TL ${input.tl})` });
  const day = input.validFrom ?? formatLocalDateTime(input.now).slice(0, 10);
  if (!/^\d{4}-\d{2}-\d{2}$/.test(day)) throw new FiscalError('#INVALID_VALUE', { field: 'ValidityDate', detail: `YYYY-MM-DD, got "${day}"` });
  const premise: { [key: string]: JsonValue } = {
    TaxNumber: new LosslessNumber(companyTaxNumber(input.cfg)),
    BusinessPremiseID: input.tl,
    BPIdentifier: identifierOf(loc, input.tl),
    ValidityDate: `${day}T00:00:00`,
  };
  if (input.closing) premise.ClosingTag = 'Z';
  premise.SoftwareSupplier = [supplierOf(input)];
  if (input.specialNotes) premise.SpecialNotes = input.specialNotes.slice(0, 1000);
  return {
    BusinessPremiseRequest: {
      Header: { MessageID: input.messageId ?? randomUUID(), DateTime: formatLocalDateTime(input.now) },
      BusinessPremise: premise,
    },
  };
}

/**
 * Registers (or re-registers, or closes) a business premise with FURS: resolves {ok:true, id:''} when FURS
 * accepted it, {ok:false, code, message} when it refused; throws on a network failure, a timeout or an
 * unreadable answer.
 */
export async function registerPremise(input: PremiseInput & { certificate: AuthorityCertificate; signal: AbortSignal; verifyKey?: string }): Promise<DeliveryResult> {
  const jws = signFursJws(jsonText(premiseRequest(input)), input.certificate);
  const answer = await postJson(premiseUrl(endpointOf(input.attributes)), JSON.stringify({ token: jws }), input.certificate, input.attributes, input.signal);
  return parseFursAnswer(answer.text, input.verifyKey);
}
