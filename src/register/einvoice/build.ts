/**
 * ESR + Cfg + fiscal number → the EN 16931 model (model.ts). Whatever an ESR or Cfg leaves out that the
 * destination's rules make mandatory is refused here, with the rule's id and the ESR or Cfg field to send,
 * so that an e-invoice is never built that breaks a fatal rule for lack of data (docs/einvoicing.md).
 */
import { countriesModule } from '../../shared/lazy-modules.js';
import { FiscalError } from '../../shared/errors.js';
import { type Dec, ZERO, abs, add, allocate, cmp, div, fmt, mul, neg, parseDec, sign, significantScale, sub, sum } from '../../shared/money.js';
import { type Obj, isObj, lines, obj, str } from '../codec/index.js';
import { isDate } from '../esr/datetime.js';
import { analyzePositions, isMod, qtyOf, resolveWithTaxA } from '../esr/tax.js';
import type { TaxLetters } from '../fiscal/tax-letters.js';
import { currencyOf, endpointOfVat, hasCountryPrefix, unitOf } from './codes.js';
import type { Destination } from './destination.js';
import type { Address, DocumentAllowance, Einvoice, Endpoint, Line, Party, PaymentInstructions, VatBreakdown, VatCategory } from './model.js';

export interface BuildInput {
  esr: Obj;
  cfg: Obj;
  destination: Destination;
  letters: TaxLetters;
  /** BT-1: the FN, or TL/TT/TN where the country has no FN */
  id: string;
}

/** A rule the ESR or Cfg breaks: RC BAD naming the field to fix, with the rule id first in the message. */
export function ruleError(field: string, rule: string, text: string): FiscalError {
  return new FiscalError('#INVALID_VALUE', { field, detail: `[${rule}] ${text}` });
}

const HUNDRED: Dec = { v: 100n, s: 0 };

/** Leitweg-ID: coarse addressing (2 to 12 digits), optional fine addressing, check digits. */
const LEITWEG_ID = /^[0-9]{2,12}(?:-[A-Za-z0-9]{1,30})?-[0-9]{2}$/;

function text(o: Obj | undefined, key: string): string | undefined {
  const v = o ? str(o, key)?.trim() : undefined;
  return v ? v : undefined;
}

function street(o: Obj): string | undefined {
  const adr = text(o, 'Adr');
  const nr = text(o, 'AdrNr');
  return adr && nr ? `${adr} ${nr}` : adr;
}

/** An ISO 3166-1 alpha-2 code of an address (BR-CL-14), upper case; EN 16931 adds 1A (Kosovo) and XI (Northern Ireland). */
function countryCode(value: string, field: string): string {
  const c = value.toUpperCase();
  if ((/^[A-Z]{2}$/.test(c) && countriesModule().isValid(c)) || c === '1A' || c === 'XI') return c;
  throw ruleError(field, 'BR-CL-14', `"${value}" is no country code of ISO 3166-1 alpha-2`);
}

/** The date part of an ESR date or date-time; a value that is none is refused naming its field. */
function dateOf(value: string | undefined, field: string): string | undefined {
  if (value === undefined) return undefined;
  const d = value.slice(0, 10);
  if (!isDate(d)) throw new FiscalError('#INVALID_VALUE', { field, detail: `"${value}" is not a date YYYY-MM-DD` });
  return d;
}

function addDays(date: string, days: number): string {
  const t = Date.UTC(Number(date.slice(0, 4)), Number(date.slice(5, 7)) - 1, Number(date.slice(8, 10))) + days * 86_400_000;
  return new Date(t).toISOString().slice(0, 10);
}

/** An endpoint written `scheme:id` (Peppol participant id, optionally with the `iso6523-actorid-upis::` prefix). */
function endpointOf(value: string): Endpoint | undefined {
  const m = /^(?:iso6523-actorid-upis::)?([0-9]{4}|[A-Z]{2}):(.+)$/.exec(value.trim());
  return m ? { scheme: m[1] as string, id: (m[2] as string).trim() } : undefined;
}

function seller(cfg: Obj, dest: Destination): Party {
  const cmp = obj(cfg, 'Cmp');
  const doc = obj(cfg, 'Doc');
  const name = text(cmp, 'Nam');
  if (!cmp || !name) throw ruleError('Cfg.Cmp.Nam', 'BR-6', 'Seller name (BT-27) is missing: configure Cfg.Cmp before invoicing');
  const given = text(cmp, 'Ctry');
  if (!given) throw ruleError('Cfg.Cmp.Ctry', 'BR-9', 'Seller country code (BT-40) is missing');
  const country = countryCode(given, 'Cfg.Cmp.Ctry');
  const address: Address = { country };
  const s = street(cmp);
  if (s) address.street = s;
  const city = text(cmp, 'City');
  const zip = text(cmp, 'Zip');
  if (city) address.city = city;
  if (zip) address.zip = zip;
  const party: Party = { name, address };
  const taxId = text(cmp, 'TaxId');
  if (taxId && hasCountryPrefix(taxId)) party.vatId = taxId;
  else if (taxId) party.taxRegistrationId = taxId;
  const tin = text(cmp, 'TIN');
  if (tin && !party.taxRegistrationId) party.taxRegistrationId = tin;
  const contact = { name: text(doc, 'ContactName'), telephone: text(doc, 'ContactTelephone'), email: text(doc, 'ContactElectronicMail') };
  party.contact = Object.fromEntries(Object.entries(contact).filter(([, v]) => v !== undefined));
  const byVat = party.vatId ? endpointOfVat(party.vatId) : undefined;
  if (byVat) party.endpoint = byVat;
  // an e-mail address (EAS EM) is an EN 16931 electronic address, but no Peppol participant
  else if (contact.email && dest.syntax === 'xrechnung') party.endpoint = { scheme: 'EM', id: contact.email };
  // Denmark and Iceland name the seller's legal entity by its register number (DK-R-002, IS-R-002)
  if (country === 'DK' && party.vatId && /^DK[0-9]{8}$/.test(party.vatId)) party.legalId = { scheme: '0184', id: party.vatId };
  if (country === 'IS' && tin) party.legalId = { scheme: '0196', id: tin };
  if (dest.syntax === 'xrechnung') {
    if (!city) throw ruleError('Cfg.Cmp.City', 'BR-DE-3', 'Seller city (BT-37) is missing');
    if (!zip) throw ruleError('Cfg.Cmp.Zip', 'BR-DE-4', 'Seller post code (BT-38) is missing');
    if (!contact.name) throw ruleError('Cfg.Doc.ContactName', 'BR-DE-5', 'Seller contact point (BT-41) is missing');
    if (!contact.telephone) throw ruleError('Cfg.Doc.ContactTelephone', 'BR-DE-6', 'Seller contact telephone number (BT-42) is missing');
    if (!contact.email) throw ruleError('Cfg.Doc.ContactElectronicMail', 'BR-DE-7', 'Seller contact email address (BT-43) is missing');
  }
  if (!party.endpoint) {
    const how = dest.syntax === 'peppol' ? 'configure Cfg.Cmp.TaxId, a VAT number with its country prefix (Peppol addresses the seller by it)' : 'configure Cfg.Cmp.TaxId with its country prefix or Cfg.Doc.ContactElectronicMail';
    throw ruleError('Cfg.Cmp.TaxId', 'PEPPOL-EN16931-R020', `Seller electronic address (BT-34) is missing: ${how}`);
  }
  return party;
}

function buyer(esr: Obj, sellerCountry: string, dest: Destination): Party {
  const ctm = obj(esr, 'Ctm');
  const name = text(ctm, 'Nam');
  if (!ctm || !name) throw ruleError('ESR.Ctm.Nam', 'BR-7', 'Buyer name (BT-44) is missing');
  // a customer without Ctry is taken to be in the seller's country (docs/einvoicing.md)
  const ctry = text(ctm, 'Ctry');
  const address: Address = { country: ctry ? countryCode(ctry, 'ESR.Ctm.Ctry') : sellerCountry };
  const s = street(ctm);
  if (s) address.street = s;
  const adr2 = text(ctm, 'Adr2');
  if (adr2) address.additionalStreet = adr2;
  const city = text(ctm, 'City');
  const zip = text(ctm, 'Zip');
  if (city) address.city = city;
  if (zip) address.zip = zip;
  const party: Party = { name, address };
  const taxId = text(ctm, 'TaxId');
  if (taxId) {
    if (!hasCountryPrefix(taxId)) throw ruleError('ESR.Ctm.TaxId', 'BR-CO-9', `Buyer VAT identifier (BT-48) "${taxId}" must start with its country prefix (ISO 3166-1 alpha-2, EL for Greece)`);
    party.vatId = taxId;
  }
  const cn = text(ctm, 'CN');
  if (cn) party.identifier = cn;
  const dd = text(esr, 'DDto');
  const given = dest.syntax === 'peppol' && dd ? endpointOf(dd) : undefined;
  if (dest.syntax === 'peppol' && dd && !given) {
    throw ruleError('ESR.DDto', 'PEPPOL-EN16931-R010', `"${dd}" is not a Peppol participant identifier scheme:id (for example 0088:7300010000001 or 9930:DE123456789)`);
  }
  const byVat = party.vatId ? endpointOfVat(party.vatId) : undefined;
  if (given) party.endpoint = given;
  // a German public buyer is addressed by its Leitweg-ID (EAS 0204), which XRechnung takes in DDto
  else if (dest.syntax === 'xrechnung' && dd && LEITWEG_ID.test(dd)) party.endpoint = { scheme: '0204', id: dd };
  else if (byVat) party.endpoint = byVat;
  if (dest.syntax === 'xrechnung') {
    if (!city) throw ruleError('ESR.Ctm.City', 'BR-DE-8', 'Buyer city (BT-52) is missing');
    if (!zip) throw ruleError('ESR.Ctm.Zip', 'BR-DE-9', 'Buyer post code (BT-53) is missing');
  }
  // Peppol BIS and XRechnung 3.0 both need the receiver's electronic address
  if (!party.endpoint) {
    const how = dest.syntax === 'peppol' ? "send the buyer's Peppol participant id as ESR.DDto (scheme:id)" : 'send a Leitweg-ID as ESR.DDto';
    throw ruleError(dest.syntax === 'peppol' ? 'ESR.DDto' : 'ESR.Ctm.TaxId', 'PEPPOL-EN16931-R010', `Buyer electronic address (BT-49) is missing: ${how}, or ESR.Ctm.TaxId with its country prefix`);
  }
  return party;
}

interface TaxGroup {
  category: VatCategory;
  rate: Dec;
  net: Dec;
  tax: Dec;
  exemptionReason?: string;
  exemptionCode?: string;
  /** indexes into the lines */
  lines: number[];
}

function taxGroups(taxA: Obj[]): TaxGroup[] {
  return taxA.map((t, i) => {
    if (str(t, 'TTY')) throw ruleError(`ESR.TaxA[${i}].TTY`, 'BR-CO-18', `the tax ${str(t, 'TTY') ?? ''} is not VAT: other taxes than VAT are not supported in e-invoices yet`);
    const rate = parseDec(str(t, 'Prc') ?? '');
    const net = parseDec(str(t, 'Net') ?? '');
    const tax = parseDec(str(t, 'TAmt') ?? '');
    if (!rate || !net || !tax) throw ruleError(`ESR.TaxA[${i}]`, 'BR-CO-18', 'a tax element without Prc, Net and TAmt');
    return { category: sign(rate) > 0 ? 'S' : 'Z', rate, net, tax, lines: [] };
  });
}

/** A price: the exact quotient where it has at most 6 decimals, else rounded to 6 (BT-146 allows them). */
function priceOf(amount: Dec, quantity: Dec): Dec {
  if (quantity.v === 0n) return ZERO;
  const p = div(abs(amount), abs(quantity), 6);
  return { v: p.v / 10n ** BigInt(p.s - Math.max(2, significantScale(p))), s: Math.max(2, significantScale(p)) };
}

/** VATEX-EU-AE: reverse charge; the other VATEX-EU codes of an exemption make category E. */
const REVERSE_CHARGE = 'VATEX-EU-AE';
/** VATEX codes of other categories (intra-community, export, not subject), not made yet */
const OTHER_VATEX = new Set(['VATEX-EU-IC', 'VATEX-EU-G', 'VATEX-EU-O', 'VATEX-EU-D', 'VATEX-EU-F', 'VATEX-EU-I', 'VATEX-EU-J']);

/**
 * The VAT category of each tax group from the exemptions its positions name (Pos.TaxExemptionCode, a VATEX
 * code; Pos.TaxExemptionReason, its text): none at rate 0 is Z, an exemption is E, VATEX-EU-AE is AE (reverse
 * charge). A group's positions name one exemption (one breakdown per category and rate, BR-E-01/BR-AE-01),
 * at rate 0 without tax (BR-E-05/06, BR-AE-05/06).
 */
function exemptions(posA: Obj[], groups: TaxGroup[], positions: Array<{ index: number }>, groupOf: number[]): void {
  const named = new Map<number, { code?: string; reason?: string; pos: number }>();
  positions.forEach((p, n) => {
    const pos = posA[p.index] as Obj;
    const code = text(pos, 'TaxExemptionCode')?.toUpperCase();
    const reason = text(pos, 'TaxExemptionReason');
    const g = groupOf[n] as number;
    const field = `ESR.PosA[${p.index}]`;
    const seen = named.get(g);
    if (seen && (seen.code !== code || seen.reason !== reason)) {
      throw ruleError(`${field}.TaxExemptionCode`, code === REVERSE_CHARGE || seen.code === REVERSE_CHARGE ? 'BR-AE-01' : 'BR-E-01', `the positions of tax group ${fmt((groups[g] as TaxGroup).rate)} % name different exemptions (or none): one VAT breakdown per category and rate has one exemption reason; use a tax group of its own for each`);
    }
    if (!seen) named.set(g, { ...(code ? { code } : {}), ...(reason ? { reason } : {}), pos: p.index });
  });
  for (const [g, e] of named) {
    if (e.code === undefined && e.reason === undefined) continue;
    const group = groups[g] as TaxGroup;
    const field = `ESR.PosA[${e.pos}].TaxExemptionCode`;
    if (e.code !== undefined && (!/^VATEX-EU-[A-Z0-9-]+$/.test(e.code) || OTHER_VATEX.has(e.code))) {
      throw ruleError(field, 'BR-CL-22', `"${e.code}" is not an exemption this version makes: a VATEX code of an exemption (category E, e.g. VATEX-EU-132-1I) or VATEX-EU-AE (reverse charge)`);
    }
    const category: VatCategory = e.code === REVERSE_CHARGE ? 'AE' : 'E';
    if (sign(group.rate) !== 0) throw ruleError(field, `BR-${category}-05`, `an exempt or reverse charge position has the VAT rate 0, its tax group ${fmt(group.rate)} %`);
    if (sign(group.tax) !== 0) throw ruleError(field, `BR-${category}-06`, `an exempt or reverse charge tax group has no VAT, not ${fmt(group.tax)}`);
    group.category = category;
    if (e.code !== undefined) group.exemptionCode = e.code;
    group.exemptionReason = e.reason ?? (category === 'AE' ? 'Reverse charge' : undefined);
    if (group.exemptionReason === undefined) delete group.exemptionReason;
  }
}

/** A Mod of the whole receipt (PN `*`): a document level allowance or charge, not spread on the lines. */
function isDocumentMod(l: Obj): boolean {
  return isMod(l) && (str(l, 'PN') ?? '').trim() === '*';
}

function buildLines(esr: Obj, groups: TaxGroup[], letters: TaxLetters, creditNote: boolean): { lines: Line[]; allowances: DocumentAllowance[] } {
  const posA = lines(esr, 'PosA');
  // the lines with their own Mods only (the receipt's Mods kept as display lines, so that indexes stay)
  const positions = analyzePositions(posA.map((l) => (isDocumentMod(l) ? { _: 'Lin' } : l)));
  const withAll = analyzePositions(posA);
  const docMods = posA.filter(isDocumentMod);
  if (positions.length === 0) throw ruleError('ESR.PosA', 'BR-16', 'An invoice shall have at least one invoice line (BG-25)');
  const taxA = lines(esr, 'TaxA');
  const taxN = str(esr, 'TaxN') === '1';
  const groupOf = positions.map((p) => {
    const field = `ESR.PosA[${p.index}].TaxG`;
    if (p.groups.length !== 1) throw ruleError(field, 'BR-CO-4', 'each invoice line has exactly one VAT category (BT-151): name one tax group');
    const g = resolveWithTaxA(p.groups[0] as string, taxA, letters, field);
    (groups[g] as TaxGroup).lines.push(p.index);
    return g;
  });
  exemptions(posA, groups, positions, groupOf);
  // each group's net is split over its lines by their amounts after Mods: the line nets add up to it exactly;
  // what the receipt's Mods took from the group (their share, net) is the group's document level allowance
  const nets = new Map<number, Dec>();
  const documentNet = new Map<number, Dec>();
  groups.forEach((g, gi) => {
    const members = positions.filter((p) => g.lines.includes(p.index));
    const amounts = members.map((p) => p.modified);
    const docGross = sum(positions.map((p, k) => (g.lines.includes(p.index) ? sub((withAll[k] as { modified: Dec }).modified, p.modified) : ZERO)));
    const docNet = sign(docGross) === 0 ? ZERO : taxN ? docGross : div(mul(docGross, HUNDRED), add(HUNDRED, g.rate), Math.max(2, g.net.s));
    documentNet.set(gi, docNet);
    const lineTotal = sub(g.net, docNet);
    let shares: Dec[];
    if (amounts.some((a) => sign(a) > 0) && amounts.some((a) => sign(a) < 0)) {
      // lines of both signs (an item given back on the invoice): shares of the group's net would multiply its
      // rounding by the lines' amounts over their sum; each line's own net, the group's rounding spread by size
      const own = amounts.map((a) => (taxN ? a : div(mul(a, HUNDRED), add(HUNDRED, g.rate), g.net.s)));
      const spread = allocate(sub(lineTotal, sum(own)), own.map(abs));
      shares = own.map((n, k) => add(n, spread[k] as Dec));
    } else {
      shares = allocate(lineTotal, amounts);
    }
    members.forEach((p, k) => nets.set(p.index, shares[k] as Dec));
  });
  const flip = (d: Dec): Dec => (creditNote ? neg(d) : d);
  const allowances: DocumentAllowance[] = [];
  const reason = docMods.map((m) => text(m, 'Dsc')).find((d) => d !== undefined);
  groups.forEach((g, gi) => {
    const docNet = documentNet.get(gi) ?? ZERO;
    if (sign(docNet) === 0) return;
    // a discount lowers what is invoiced (or credited): an allowance; a markup a charge
    const allowance = neg(flip(docNet));
    const charge = sign(allowance) < 0;
    allowances.push({ charge, amount: abs(allowance), reason: reason ?? (charge ? 'Surcharge' : 'Discount'), category: g.category, rate: g.rate });
  });
  const built = positions.map((p, n) => {
    const pos = posA[p.index] as Obj;
    const field = `ESR.PosA[${p.index}]`;
    const group = groups[groupOf[n] as number] as TaxGroup;
    const net = nets.get(p.index) ?? ZERO;
    // before the Mods: the position's own amount, net of VAT
    const before = taxN ? p.amt : div(mul(p.amt, HUNDRED), add(HUNDRED, group.rate), Math.max(2, net.s));
    const quantity = flip(qtyOf(pos));
    const line: Line = {
      id: String(n + 1),
      pos: p.index,
      quantity,
      unit: unitOf(str(pos, 'QtyU')),
      net: flip(net),
      allowance: flip(sub(before, net)),
      name: text(pos, 'Dsc') ?? '',
      category: group.category,
      rate: group.rate,
      price: priceOf(before, quantity),
    };
    if (!line.name) throw ruleError(`${field}.Dsc`, 'BR-25', 'Item name (BT-153) is missing');
    const note = text(pos, 'Note');
    if (note) line.note = note;
    const sku = text(pos, 'SKU');
    if (sku) line.sellerItemId = sku;
    const gtin = text(pos, 'IN');
    if (gtin) line.gtin = gtin;
    const olr = text(pos, 'OrderLineReference');
    if (olr) line.orderLineReference = olr;
    const start = dateOf(text(pos, 'SvcStartD'), `${field}.SvcStartD`);
    const end = dateOf(text(pos, 'SvcEndD'), `${field}.SvcEndD`);
    if (start && end && end < start) throw ruleError(`${field}.SvcEndD`, 'BR-30', `Invoice line period end date (BT-135) ${end} is before its start date (BT-134) ${start}`);
    if (start) line.periodStart = start;
    if (end) line.periodEnd = end;
    return line;
  });
  return { lines: built, allowances };
}

/**
 * BG-16. What is left to pay on an invoice goes to the seller's account (58, SEPA credit transfer). Peppol
 * wants payment instructions only for what is left to pay (and the Netherlands allows only transfer, card
 * and debit codes, NL-R-008); XRechnung always (BR-DE-1): a paid invoice says cash (10) or, for other means,
 * ZZZ, since a card code would need the card's number (BR-DE-24-a), which the POS does not send.
 */
function payment(esr: Obj, cfg: Obj, payable: Dec, creditNote: boolean, dest: Destination, sellerCountry: string): PaymentInstructions | undefined {
  const doc = obj(cfg, 'Doc');
  const iban = text(doc, 'AccountIBAN')?.replace(/\s+/g, '');
  if (sign(payable) > 0 && iban && !creditNote) {
    const p: PaymentInstructions = { code: '58', iban };
    const name = text(doc, 'AccountName');
    if (name) p.accountName = name;
    const bic = text(doc, 'AccountBIC');
    if (bic) p.bic = bic;
    return p;
  }
  if (dest.syntax === 'xrechnung') {
    if (sign(payable) > 0) return { code: '1' };
    const paid = lines(esr, 'PayA').filter((p) => str(p, 'PayG') !== 'open');
    const largest = paid.reduce<Obj | undefined>((a, p) => (!a || cmp(abs(parseDec(str(p, 'Amt') ?? '0') ?? ZERO), abs(parseDec(str(a, 'Amt') ?? '0') ?? ZERO)) > 0 ? p : a), undefined);
    return { code: ['cash', 'change', 'foreign'].includes(str(largest ?? {}, 'PayG') ?? '') ? '10' : 'ZZZ' };
  }
  if (sign(payable) <= 0) return undefined;
  if (sellerCountry === 'NL') {
    if (creditNote) return undefined;
    throw ruleError('Cfg.Doc.AccountIBAN', 'NL-R-008', 'A Dutch seller must give a payment account (BT-84) for what is left to pay: configure Cfg.Doc.AccountIBAN');
  }
  return { code: '1' };
}

function breakdown(groups: TaxGroup[], creditNote: boolean): VatBreakdown[] {
  // one breakdown per category and rate (BR-CO-18, BR-S-08): groups of the same rate are added up
  const out: VatBreakdown[] = [];
  for (const g of groups) {
    if (g.lines.length === 0 && sign(g.net) === 0 && sign(g.tax) === 0) continue;
    const same = out.find((b) => b.category === g.category && cmp(b.rate, g.rate) === 0);
    const taxable = creditNote ? neg(g.net) : g.net;
    const tax = creditNote ? neg(g.tax) : g.tax;
    if (same) {
      if (same.exemptionCode !== g.exemptionCode || same.exemptionReason !== g.exemptionReason) {
        throw ruleError('ESR.TaxA', `BR-${g.category}-01`, 'two tax groups name different exemptions: an invoice has one VAT breakdown per category and rate, with one exemption reason');
      }
      same.taxable = add(same.taxable, taxable);
      same.tax = add(same.tax, tax);
    } else {
      const b: VatBreakdown = { category: g.category, rate: g.rate, taxable, tax };
      if (g.exemptionReason !== undefined) b.exemptionReason = g.exemptionReason;
      if (g.exemptionCode !== undefined) b.exemptionCode = g.exemptionCode;
      out.push(b);
    }
  }
  return out;
}

export function buildEinvoice(input: BuildInput): Einvoice {
  const { esr, cfg, destination } = input;
  const ctm = obj(esr, 'Ctm');
  const reference = destination.syntax === 'xrechnung' ? text(esr, 'DDto') ?? text(ctm, 'BuyerReference') : text(ctm, 'BuyerReference');
  const order = text(esr, 'OrderReference');
  if (destination.syntax === 'xrechnung' && !reference) {
    throw ruleError('ESR.DDto', 'BR-DE-15', 'Buyer reference (BT-10) is missing: send the Leitweg-ID as ESR.DDto (or ESR.Ctm.BuyerReference)');
  }
  if (destination.syntax === 'peppol' && !reference && !order) {
    throw ruleError('ESR.Ctm.BuyerReference', 'PEPPOL-EN16931-R003', 'A buyer reference (BT-10) or purchase order reference (BT-13) must be provided: send ESR.Ctm.BuyerReference or ESR.OrderReference');
  }
  const sellerParty = seller(cfg, destination);
  const buyerParty = buyer(esr, sellerParty.address.country, destination);
  const taxA = lines(esr, 'TaxA');
  const groups = taxGroups(taxA);
  const total = sum(groups.map((g) => add(g.net, g.tax)));
  const creditNote = sign(total) < 0;
  const { lines: invoiceLines, allowances } = buildLines(esr, groups, input.letters, creditNote);
  const vat = breakdown(groups, creditNote);
  const flip = (d: Dec): Dec => (creditNote ? neg(d) : d);
  const lineNet = sum(invoiceLines.map((l) => l.net));
  const allowanceTotal = sum(allowances.filter((a) => !a.charge).map((a) => a.amount));
  const chargeTotal = sum(allowances.filter((a) => a.charge).map((a) => a.amount));
  const taxExclusive = add(sub(lineNet, allowanceTotal), chargeTotal);
  const tax = sum(vat.map((b) => b.tax));
  const taxInclusive = add(taxExclusive, tax);
  const paid = sum(lines(esr, 'PayA').filter((p) => str(p, 'PayG') !== 'open').map((p) => parseDec(str(p, 'Amt') ?? '0') ?? ZERO));
  const prepaid = flip(paid);
  const payable = sub(taxInclusive, prepaid);
  const issueDate = dateOf(text(esr, 'D'), 'ESR.D');
  if (!issueDate) throw ruleError('ESR.D', 'BR-3', 'Invoice issue date (BT-2) is missing');

  const inv: Einvoice = {
    syntax: destination.syntax,
    creditNote,
    id: input.id,
    issueDate,
    currency: currencyOf(sellerParty.address.country),
    seller: sellerParty,
    buyer: buyerParty,
    lines: invoiceLines,
    allowances,
    vat,
    totals: { lineNet, allowances: allowanceTotal, charges: chargeTotal, taxExclusive, tax, taxInclusive, prepaid, payable },
  };
  const means = payment(esr, cfg, payable, creditNote, destination, sellerParty.address.country);
  if (means) inv.payment = means;
  const doc = obj(cfg, 'Doc');
  const cmpCfg = obj(cfg, 'Cmp');
  if (text(cmpCfg, 'VATonPayment') === '1') inv.taxPointCode = '432';
  if (reference) inv.buyerReference = reference;
  if (order) inv.orderReference = order;
  const rfn = text(esr, 'RFN');
  const rtn = text(esr, 'RTN');
  const precedingId = rfn ?? (rtn ? [text(esr, 'RTL'), text(esr, 'RTT'), rtn].filter(Boolean).join('/') : undefined);
  if (precedingId) {
    inv.preceding = { id: precedingId };
    const rd = dateOf(text(esr, 'RD'), 'ESR.RD');
    if (rd) inv.preceding.date = rd;
  }
  // one invoice note (Peppol allows no more, PEPPOL-EN16931-R002): the reason, then the header text
  const head = esr.Head;
  const notes = [text(esr, 'Rsn'), isObj(head) ? text(head, 'Txt') : undefined].filter((n): n is string => n !== undefined);
  if (notes.length) inv.note = notes.join('\n');
  const terms = text(esr, 'PaymentTerms') ?? text(doc, 'PaymentTerms');
  if (terms) inv.paymentTerms = terms;
  const due = dateOf(text(esr, 'DueDate'), 'ESR.DueDate');
  const period = text(doc, 'PaymentPeriod');
  if (period !== undefined && !/^\d{1,4}$/.test(period)) throw ruleError('Cfg.Doc.PaymentPeriod', 'BR-CO-25', `"${period}" is not a number of days`);
  const dueDate = due ?? (period !== undefined ? addDays(issueDate, Number(period)) : undefined);
  if (dueDate) inv.dueDate = dueDate;
  // a credit note's due date is written in its payment instructions: without them it has none
  const dueWritten = inv.creditNote ? (inv.payment ? dueDate : undefined) : dueDate;
  if (sign(payable) > 0 && !dueWritten && !terms) {
    throw ruleError('Cfg.Doc.PaymentTerms', 'BR-CO-25', 'In case the Amount due for payment (BT-115) is positive, either the Payment due date (BT-9) or the Payment terms (BT-20) shall be present: configure Cfg.Doc.PaymentTerms or Cfg.Doc.PaymentPeriod, or send ESR.DueDate');
  }
  const delivery = lines(esr, 'Delivery')[0] ?? (Array.isArray(esr.Delivery) ? undefined : obj(esr, 'Delivery'));
  if (delivery) {
    const d: NonNullable<Einvoice['delivery']> = {};
    const date = dateOf(text(delivery, 'D'), 'ESR.Delivery[0].D');
    if (date) d.date = date;
    const city = text(delivery, 'City');
    const zip = text(delivery, 'Zip');
    const adr = text(delivery, 'Adr');
    if (city || zip || adr) {
      if (destination.syntax === 'xrechnung' && !city) throw ruleError('ESR.Delivery[0].City', 'BR-DE-10', 'Deliver to city (BT-77) is missing');
      if (destination.syntax === 'xrechnung' && !zip) throw ruleError('ESR.Delivery[0].Zip', 'BR-DE-11', 'Deliver to post code (BT-78) is missing');
      const ctry = text(delivery, 'Ctry');
      const address: Address = { country: ctry ? countryCode(ctry, 'ESR.Delivery[0].Ctry') : buyerParty.address.country };
      if (adr) address.street = adr;
      const adr2 = text(delivery, 'Adr2');
      if (adr2) address.additionalStreet = adr2;
      if (city) address.city = city;
      if (zip) address.zip = zip;
      d.address = address;
    }
    inv.delivery = d;
  }
  // the date of supply the law asks for (BR-DE-TMP-32): what is sold at the POS is delivered with the sale,
  // unless the delivery or every line names its own date or period
  if (!inv.delivery?.date && !invoiceLines.every((l) => l.periodStart !== undefined || l.periodEnd !== undefined)) {
    inv.delivery = { ...inv.delivery, date: issueDate };
  }
  if (!sellerParty.vatId && !sellerParty.taxRegistrationId) {
    const category = (['S', 'Z', 'E', 'AE'] as const).find((c) => vat.some((b) => b.category === c)) ?? 'S';
    throw ruleError('Cfg.Cmp.TaxId', `BR-${category}-02`, 'Seller VAT identifier (BT-31) or tax registration identifier (BT-32) is missing');
  }
  // reverse charge: the buyer accounts for the VAT, so both parties are named by their VAT numbers
  if (vat.some((b) => b.category === 'AE')) {
    if (!sellerParty.vatId) throw ruleError('Cfg.Cmp.TaxId', 'BR-AE-02', 'Seller VAT identifier (BT-31), with its country prefix, is missing for a reverse charge');
    if (!buyerParty.vatId && !buyerParty.legalId) throw ruleError('ESR.Ctm.TaxId', 'BR-AE-02', 'Buyer VAT identifier (BT-48) is missing for a reverse charge');
  }
  // a zero rate with tax is no VAT category of EN 16931 (BR-Z-09)
  for (const b of vat) {
    if (b.category === 'Z' && sign(b.tax) !== 0) throw ruleError('ESR.TaxA', 'BR-Z-09', `VAT category tax amount (BT-117) is ${fmt(b.tax)} at rate 0`);
  }
  return inv;
}
