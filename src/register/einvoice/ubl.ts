/**
 * The EN 16931 model written as a UBL 2.1 Invoice or CreditNote, elements in the order of the OASIS schema,
 * with the specification identifiers of Peppol BIS Billing 3.0 or XRechnung 3.0 (BT-24, BT-23).
 */
import { type Dec, fmt, fmtMoney, neg, sign } from '../../shared/money.js';
import { escapeAttr, escapeText } from '../codec/xml-text.js';
import type { Address, Einvoice, Line, Party } from './model.js';

export const CUSTOMIZATION_ID = {
  peppol: 'urn:cen.eu:en16931:2017#compliant#urn:fdc:peppol.eu:2017:poacc:billing:3.0',
  xrechnung: 'urn:cen.eu:en16931:2017#compliant#urn:xeinkauf.de:kosit:xrechnung_3.0',
} as const;

export const PEPPOL_PROFILE_ID = 'urn:fdc:peppol.eu:2017:poacc:billing:01:1.0';

type Node = string | undefined | false;

function el(name: string, content: Node | Node[], attrs: Record<string, string> = {}): string {
  const body = Array.isArray(content) ? content.filter((c): c is string => typeof c === 'string').join('') : content;
  if (body === undefined || body === false) return '';
  const a = Object.entries(attrs).map(([k, v]) => ` ${k}="${escapeAttr(v)}"`).join('');
  return `<${name}${a}>${body}</${name}>`;
}

function val(name: string, value: string | undefined, attrs?: Record<string, string>): string {
  return value === undefined ? '' : el(name, escapeText(value), attrs);
}

function money(d: Dec): string {
  return fmt(d, 2);
}

function amount(name: string, d: Dec, currency: string): string {
  return val(name, money(d), { currencyID: currency });
}

function percent(d: Dec): string {
  return fmt(d, Math.max(2, d.s));
}

function address(a: Address, tag = 'cac:PostalAddress'): string {
  return el(tag, [
    val('cbc:StreetName', a.street),
    val('cbc:AdditionalStreetName', a.additionalStreet),
    val('cbc:CityName', a.city),
    val('cbc:PostalZone', a.zip),
    el('cac:Country', val('cbc:IdentificationCode', a.country)),
  ]);
}

function party(p: Party, seller: boolean): string {
  const contact = p.contact && (p.contact.name || p.contact.telephone || p.contact.email)
    ? el('cac:Contact', [val('cbc:Name', p.contact.name), val('cbc:Telephone', p.contact.telephone), val('cbc:ElectronicMail', p.contact.email)])
    : undefined;
  return el('cac:Party', [
    p.endpoint && val('cbc:EndpointID', p.endpoint.id, { schemeID: p.endpoint.scheme }),
    p.identifier !== undefined && el('cac:PartyIdentification', val('cbc:ID', p.identifier)),
    address(p.address),
    p.vatId !== undefined && el('cac:PartyTaxScheme', [val('cbc:CompanyID', p.vatId), el('cac:TaxScheme', val('cbc:ID', 'VAT'))]),
    seller && p.taxRegistrationId !== undefined && el('cac:PartyTaxScheme', [val('cbc:CompanyID', p.taxRegistrationId), el('cac:TaxScheme', val('cbc:ID', 'FC'))]),
    el('cac:PartyLegalEntity', [val('cbc:RegistrationName', p.name), p.legalId && val('cbc:CompanyID', p.legalId.id, { schemeID: p.legalId.scheme })]),
    contact,
  ]);
}

function category(tag: string, c: { category: string; rate: Dec; exemptionCode?: string; exemptionReason?: string }): string {
  return el(tag, [
    val('cbc:ID', c.category),
    val('cbc:Percent', percent(c.rate)),
    // BT-121, BT-120: in the VAT breakdown only (the lines name the category)
    val('cbc:TaxExemptionReasonCode', c.exemptionCode),
    val('cbc:TaxExemptionReason', c.exemptionReason),
    el('cac:TaxScheme', val('cbc:ID', 'VAT')),
  ]);
}

function line(inv: Einvoice, l: Line): string {
  const cur = inv.currency;
  const tag = inv.creditNote ? 'cac:CreditNoteLine' : 'cac:InvoiceLine';
  const qtyTag = inv.creditNote ? 'cbc:CreditedQuantity' : 'cbc:InvoicedQuantity';
  const allowance = sign(l.allowance) === 0 ? undefined : sign(l.allowance) > 0
    ? el('cac:AllowanceCharge', [val('cbc:ChargeIndicator', 'false'), val('cbc:AllowanceChargeReasonCode', '95'), val('cbc:AllowanceChargeReason', 'Discount'), amount('cbc:Amount', l.allowance, cur)])
    : el('cac:AllowanceCharge', [val('cbc:ChargeIndicator', 'true'), val('cbc:AllowanceChargeReason', 'Surcharge'), amount('cbc:Amount', neg(l.allowance), cur)]);
  return el(tag, [
    val('cbc:ID', l.id),
    val('cbc:Note', l.note),
    val(qtyTag, fmt(l.quantity), { unitCode: l.unit }),
    amount('cbc:LineExtensionAmount', l.net, cur),
    (l.periodStart !== undefined || l.periodEnd !== undefined) && el('cac:InvoicePeriod', [val('cbc:StartDate', l.periodStart), val('cbc:EndDate', l.periodEnd)]),
    l.orderLineReference !== undefined && el('cac:OrderLineReference', val('cbc:LineID', l.orderLineReference)),
    allowance,
    el('cac:Item', [
      val('cbc:Name', l.name),
      l.sellerItemId !== undefined && el('cac:SellersItemIdentification', val('cbc:ID', l.sellerItemId)),
      l.gtin !== undefined && el('cac:StandardItemIdentification', val('cbc:ID', l.gtin, { schemeID: '0160' })),
      category('cac:ClassifiedTaxCategory', l),
    ]),
    // BT-146 keeps the decimals of the price (build.ts priceOf), not the currency's two: quantity × price is the line's amount
    el('cac:Price', val('cbc:PriceAmount', fmtMoney(l.price), { currencyID: cur })),
  ]);
}

export function toUbl(inv: Einvoice): string {
  const cur = inv.currency;
  const root = inv.creditNote ? 'CreditNote' : 'Invoice';
  const ns = `urn:oasis:names:specification:ubl:schema:xsd:${root}-2`;
  const pay = inv.payment;
  const means = pay && el('cac:PaymentMeans', [
    val('cbc:PaymentMeansCode', pay.code),
    // a credit note has no BT-9 of its own in UBL: it is the payment means' due date
    inv.creditNote && val('cbc:PaymentDueDate', inv.dueDate),
    val('cbc:PaymentID', pay.remittance),
    pay.iban !== undefined && el('cac:PayeeFinancialAccount', [
      val('cbc:ID', pay.iban),
      val('cbc:Name', pay.accountName),
      pay.bic !== undefined && el('cac:FinancialInstitutionBranch', val('cbc:ID', pay.bic)),
    ]),
  ]);
  const t = inv.totals;
  const body = [
    val('cbc:CustomizationID', CUSTOMIZATION_ID[inv.syntax]),
    val('cbc:ProfileID', PEPPOL_PROFILE_ID),
    val('cbc:ID', inv.id),
    val('cbc:IssueDate', inv.issueDate),
    !inv.creditNote && val('cbc:DueDate', inv.dueDate),
    inv.creditNote ? val('cbc:CreditNoteTypeCode', '381') : val('cbc:InvoiceTypeCode', '380'),
    val('cbc:Note', inv.note),
    val('cbc:DocumentCurrencyCode', cur),
    val('cbc:BuyerReference', inv.buyerReference),
    inv.taxPointCode !== undefined && el('cac:InvoicePeriod', val('cbc:DescriptionCode', inv.taxPointCode)),
    inv.orderReference !== undefined && el('cac:OrderReference', val('cbc:ID', inv.orderReference)),
    inv.preceding && el('cac:BillingReference', el('cac:InvoiceDocumentReference', [val('cbc:ID', inv.preceding.id), val('cbc:IssueDate', inv.preceding.date)])),
    el('cac:AccountingSupplierParty', party(inv.seller, true)),
    el('cac:AccountingCustomerParty', party(inv.buyer, false)),
    inv.delivery && el('cac:Delivery', [
      val('cbc:ActualDeliveryDate', inv.delivery.date),
      inv.delivery.address && el('cac:DeliveryLocation', address(inv.delivery.address, 'cac:Address')),
    ]),
    means,
    inv.paymentTerms !== undefined && el('cac:PaymentTerms', val('cbc:Note', inv.paymentTerms)),
    ...inv.allowances.map((a) => el('cac:AllowanceCharge', [
      val('cbc:ChargeIndicator', a.charge ? 'true' : 'false'),
      !a.charge && val('cbc:AllowanceChargeReasonCode', '95'),
      val('cbc:AllowanceChargeReason', a.reason),
      amount('cbc:Amount', a.amount, cur),
      category('cac:TaxCategory', a),
    ])),
    el('cac:TaxTotal', [
      amount('cbc:TaxAmount', t.tax, cur),
      ...inv.vat.map((b) => el('cac:TaxSubtotal', [amount('cbc:TaxableAmount', b.taxable, cur), amount('cbc:TaxAmount', b.tax, cur), category('cac:TaxCategory', b)])),
    ]),
    el('cac:LegalMonetaryTotal', [
      amount('cbc:LineExtensionAmount', t.lineNet, cur),
      amount('cbc:TaxExclusiveAmount', t.taxExclusive, cur),
      amount('cbc:TaxInclusiveAmount', t.taxInclusive, cur),
      sign(t.allowances) !== 0 && amount('cbc:AllowanceTotalAmount', t.allowances, cur),
      sign(t.charges) !== 0 && amount('cbc:ChargeTotalAmount', t.charges, cur),
      sign(t.prepaid) !== 0 && amount('cbc:PrepaidAmount', t.prepaid, cur),
      amount('cbc:PayableAmount', t.payable, cur),
    ]),
    ...inv.lines.map((l) => line(inv, l)),
  ];
  const open = `<${root} xmlns="${ns}" xmlns:cac="urn:oasis:names:specification:ubl:schema:xsd:CommonAggregateComponents-2" xmlns:cbc="urn:oasis:names:specification:ubl:schema:xsd:CommonBasicComponents-2">`;
  return `<?xml version="1.0" encoding="UTF-8"?>\n${open}${body.filter((b): b is string => typeof b === 'string').join('')}</${root}>\n`;
}
